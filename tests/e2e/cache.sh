#!/usr/bin/env bash
# The result cache (src/cache/) end to end, with real ruff, on the patchgen oracle
# workspace (4 configs; qwen3_npu and qwen3_moe reuse objects of the qwen3_gpu
# config) and the demo workspace:
#   - a warm run reuses every codegen and ruff result and writes the same bytes as
#     a run without the cache;
#   - a changed upstream module, config, sibling config, ruff version, ruff
#     setting each invalidate exactly what depends on them (counted by `-v`'s
#     "cache: H hits, M misses, ..." line: one codegen and one ruff entry per
#     config, one validation per distinct upstream module - 3 here);
#   - so do a file the ruff configuration extends (outside the directories
#     walked) and a RUFF_* environment variable;
#   - truncated and damaged entries are ignored, counted and rewritten;
#   - concurrent runs on a cold cache all write the reference bytes;
#   - --no-cache neither reads nor writes;
#   - pgci check gives the same findings cold, warm and without the cache, at -j 1
#     and -j 4.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export XDG_CACHE_HOME=$tmp/xdg

cp -r "$repo/fixtures/patchgen" "$tmp/ws"
cp -r "$repo/fixtures/upstream/v1.0.0" "$tmp/up"
ws=$tmp/ws
cfgs=$ws/oracle/models
run=0

# regen EXPECT_STATS [ARGS...]: regenerates every config into $tmp/o<N> and checks
# the cache line ("H M W C", or "none" when no line is expected)
regen() {
    local want=$1
    shift
    run=$((run + 1))
    "$PGCI" regen -v -C "$ws" --source "dir:$tmp/up" --ruff "${RUFF_CMD:-$RUFF}" --write --diff \
        -o "$tmp/o$run" "$@" >/dev/null 2>"$tmp/err$run" || fail "run $run: $(cat "$tmp/err$run")"
    local got
    got=$(sed -n 's/^pgci: cache: \([0-9]*\) hits, \([0-9]*\) misses, \([0-9]*\) written, \([0-9]*\) corrupt.*/\1 \2 \3 \4/p' "$tmp/err$run")
    [ "${got:-none}" = "$want" ] || fail "run $run ($*): cache '$got', expected '$want'"
}
# same OUT REF: byte-identical output directories
same() { diff -r "$1" "$2" >/dev/null || fail "$1 differs from $2: $(diff -r "$1" "$2" | head -5)"; }
entries() { find "$XDG_CACHE_HOME/pgci/results" -type f 2>/dev/null | wc -l; }

# 1. the reference, without the cache: nothing read, nothing written
regen none --no-cache
ref=$tmp/o1
[ "$(entries)" = 0 ] || fail "--no-cache wrote to the cache"
# 2. cold: 4 codegen + 4 ruff misses, all written; warm: all hits; same bytes
regen "0 11 11 0"
same "$tmp/o$run" "$ref"
regen "11 0 0 0"
same "$tmp/o$run" "$ref"
regen "11 0 0 0" -j 1
same "$tmp/o$run" "$ref"

# 3. an upstream module: only the config generated from it (llama) misses, both
# its validation, codegen and ruff (its output changes)
printf '\n\nEXTRA_CONSTANT = 1\n' >>"$tmp/up/transformers/models/llama/modeling_llama.py"
regen "8 3 3 0"
regen none --no-cache
same "$tmp/o$((run - 1))" "$tmp/o$run"

# 4. one config, a change that does not reach its output (a comment): its codegen
# misses, its ruff result is reused
printf '\n# a comment\n' >>"$cfgs/llama/llama_features_patch_gen_config.py"
regen "10 1 1 0"
# ... and one that does: codegen and ruff miss
printf 'config.add_post_import_block("EDITED_CONFIG = 1")\n' >>"$cfgs/llama/llama_features_patch_gen_config.py"
regen "9 2 2 0"
grep -q '^EDITED_CONFIG = 1' "$tmp/o$run/patched_modeling_llama_features.py" || fail "the edit did not reach the output"

# 5. a sibling config: qwen3_gpu's file defines objects qwen3_npu and qwen3_moe
# reuse, so a comment there misses the codegen of all three (their outputs, and
# so their ruff results, are unchanged) ...
printf '\n# sibling comment\n' >>"$cfgs/qwen3/qwen3_gpu_patch_gen_config.py"
regen "8 3 3 0"
# ... and a body edit to a reused function reaches every config that uses it
python3 - "$cfgs/qwen3/qwen3_gpu_patch_gen_config.py" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
head, sep, tail = s.partition("def qwen3_rmsnorm_forward_patched(self, hidden_states):\n")
assert sep, "no qwen3_rmsnorm_forward_patched"
open(p, "w").write(head + sep + "    edited_in_sibling = 1  # noqa: F841\n" + tail)
PY
regen "5 6 6 0"
regen none --no-cache
same "$tmp/o$((run - 1))" "$tmp/o$run"
[ "$(grep -l edited_in_sibling "$tmp/o$run"/*.py | wc -l)" = 3 ] || fail "the sibling edit reached $(grep -l edited_in_sibling "$tmp/o$run"/*.py)"

# 6. ruff's version (a wrapper reporting another one): every ruff result misses,
# no codegen result does
cat >"$tmp/ruff-next" <<EOF
#!/bin/sh
if [ "\$1" = "--version" ]; then echo "ruff 0.13.3"; exit 0; fi
exec "$RUFF" "\$@"
EOF
chmod +x "$tmp/ruff-next"
RUFF_CMD=$tmp/ruff-next regen "7 4 4 0"
RUFF_CMD=$tmp/ruff-next regen "11 0 0 0"
regen "11 0 0 0" # the real ruff's results are still there

# 7. a ruff setting: [tool.patchgen] ruff_extra_ignore, then [tool.ruff] itself
sed -i 's/^package_prefix = "oracle.models"/&\nruff_extra_ignore = ["E731"]/' "$ws/pyproject.toml"
regen "7 4 4 0"
sed -i 's/^line-length = 119/line-length = 100/' "$ws/pyproject.toml"
regen "7 4 4 0"
regen none --no-cache
same "$tmp/o$((run - 1))" "$tmp/o$run"
ref=$tmp/o$run

# 8. damaged entries: one truncated, one with a flipped byte; both are misses,
# counted, recomputed and rewritten, and the output is unchanged
mapfile -t files < <(find "$XDG_CACHE_HOME/pgci/results" -type f -newer "$ws/pyproject.toml" | sort)
[ "${#files[@]}" -ge 8 ] || fail "expected at least 8 fresh entries, got ${#files[@]}"
truncate -s -7 "${files[0]}"
python3 - "${files[1]}" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-2] ^= 0x01
open(p, "wb").write(bytes(b))
PY
regen "9 2 2 2"
same "$tmp/o$run" "$ref"
regen "11 0 0 0"

# 9. three runs at once on a cold cache: every one writes the reference bytes,
# and the cache they leave is whole
rm -rf "$XDG_CACHE_HOME"
pids=()
for k in a b c; do
    "$PGCI" regen -C "$ws" --source "dir:$tmp/up" --ruff "$RUFF" --write --diff -o "$tmp/par-$k" \
        >/dev/null 2>"$tmp/par-$k.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent run failed"; done
for k in a b c; do same "$tmp/par-$k" "$ref"; done
regen "11 0 0 0"
[ -z "$(find "$XDG_CACHE_HOME/pgci/results" -name '*.tmp-*')" ] || fail "temporary files left behind"

# 9b. a setting in a file [tool.ruff] extends, outside the directories walked for
# configuration: the extending file's own edit, then the extended file's alone
mkdir -p "$tmp/shared-ruff"
printf '[format]\nquote-style = "double"\n' >"$tmp/shared-ruff/base.toml"
sed -i 's|^\[tool.ruff\]$|&\nextend = "../shared-ruff/base.toml"|' "$ws/pyproject.toml"
regen "7 4 4 0"
same "$tmp/o$run" "$ref"
printf '[format]\nquote-style = "single"\n' >"$tmp/shared-ruff/base.toml"
regen "7 4 4 0"
regen none --no-cache
same "$tmp/o$((run - 1))" "$tmp/o$run"
! diff -r "$tmp/o$run" "$ref" >/dev/null || fail "quote-style single changed nothing: the test proves nothing"
# 9c. RUFF_* environment variables are settings to ruff: another value, another key
RUFF_OUTPUT_FORMAT=concise regen "7 4 4 0"
RUFF_OUTPUT_FORMAT=concise regen "11 0 0 0"
regen "11 0 0 0"
printf '[format]\nquote-style = "double"\n' >"$tmp/shared-ruff/base.toml"
regen "11 0 0 0" # the results of the first base.toml are still there
same "$tmp/o$run" "$ref"

# 10. pgci check on the demo workspace: the same findings without the cache, cold
# and warm, at -j 1 and -j 4
cp -r "$repo/fixtures/workspace" "$tmp/demo"
ln -s "$repo/fixtures/upstream" "$tmp/upstream"
rm -rf "$XDG_CACHE_HOME"
check() { "$PGCI" check -C "$tmp/demo" --ruff "$RUFF" --format json "$@" 2>/dev/null || true; }
check --no-cache -j 1 >"$tmp/check-ref.json"
[ -s "$tmp/check-ref.json" ] || fail "no findings document"
for j in 1 4; do
    rm -rf "$XDG_CACHE_HOME"
    check -j "$j" >"$tmp/check-cold.json"
    check -j "$j" >"$tmp/check-warm.json"
    cmp "$tmp/check-ref.json" "$tmp/check-cold.json" || fail "check -j $j cold differs"
    cmp "$tmp/check-ref.json" "$tmp/check-warm.json" || fail "check -j $j warm differs"
done
"$PGCI" check -v -C "$tmp/demo" --ruff "$RUFF" >/dev/null 2>"$tmp/check.err" || true
grep -q 'cache: [1-9][0-9]* hits, 0 misses' "$tmp/check.err" || fail "warm check: $(cat "$tmp/check.err")"
echo "cache: ok"
