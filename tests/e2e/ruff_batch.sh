#!/usr/bin/env bash
# ruff batched (src/patchgen/normalize_batch.c) when some items fail: in the
# patchgen oracle workspace, two of four configs are made to generate an undefined
# name, which `ruff check --fix` cannot fix. The other two are normalised in the
# batch to exactly the bytes they get alone; each failing config gets exactly the
# error it gets when regenerated alone (the per-file way), word for word (the whole
# message, ruff's output included, from --format json), at -j 1 and -j 4, with and
# without the cache.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export XDG_CACHE_HOME=$tmp/xdg
# the errors of a regen --format json report on stdin, one JSON string a line,
# sorted; RUFF_AS names the ruff command to read as $RUFF (a wrapper's path)
errors() {
    python3 -c 'import json, os, sys
for c in json.load(sys.stdin)["configs"]:
    if c["error"]:
        print(json.dumps(c["error"].replace(os.environ.get("RUFF_AS") or "\0", os.environ["RUFF"])))' |
        sort
}
export RUFF

cp -r "$repo/fixtures/patchgen" "$tmp/ws"
ln -s "$repo/fixtures/upstream" "$tmp/upstream"
ws=$tmp/ws
m=$ws/oracle/models
printf 'config.add_post_import_block("BROKEN = undefined_in_npu")\n' >>"$m/qwen3/qwen3_npu_patch_gen_config.py"
printf 'config.add_post_import_block("BROKEN = undefined_in_moe")\n' >>"$m/qwen3_moe/qwen3_moe_patch_gen_config.py"
mapfile -t cfgs < <("$PGCI" list -C "$ws" | awk '{print $1}')
[ "${#cfgs[@]}" = 4 ] || fail "expected 4 configs: ${cfgs[*]}"

# alone: one process per config, so ruff runs the per-file way
for c in "${cfgs[@]}"; do
    "$PGCI" regen -C "$ws" --ruff "$RUFF" --no-cache -o "$tmp/alone" --write "$c" --format json \
        2>/dev/null | errors >>"$tmp/alone.errors" || true
done
sort -o "$tmp/alone.errors" "$tmp/alone.errors"
[ "$(ls "$tmp/alone" | wc -l)" = 2 ] || fail "expected two configs to regenerate alone: $(ls "$tmp/alone")"
[ "$(wc -l <"$tmp/alone.errors")" = 2 ] || fail "expected two errors alone: $(cat "$tmp/alone.errors")"
grep -q "undefined_in_npu" "$tmp/alone.errors" || fail "npu's error: $(cat "$tmp/alone.errors")"
grep -q 'BROKEN = undefined_in_npu' "$tmp/alone.errors" || fail "no ruff output in the error"

for cache in --no-cache "" ""; do
    for j in 1 4; do
        out=$tmp/batch-$j${cache:+-nc}
        rm -rf "$out"
        rc=0
        "$PGCI" regen -C "$ws" --ruff "$RUFF" $cache -j "$j" -o "$out" --write --format json \
            >"$tmp/report" 2>/dev/null || rc=$?
        [ "$rc" = 2 ] || fail "batch -j $j $cache: exit $rc"
        diff -r "$tmp/alone" "$out" >/dev/null || fail "batch -j $j $cache: outputs differ from alone"
        errors <"$tmp/report" | cmp -s - "$tmp/alone.errors" ||
            fail "batch -j $j $cache: errors differ: $(errors <"$tmp/report")"
    done
done

# the batch ran as a batch: one check over all four and one format over the two
# that passed. The failing ones' errors are read from the check's report (each
# file's part of it is what its own run prints), so no ruff runs again.
cat >"$tmp/ruff-log" <<EOF2
#!/bin/sh
echo "\$1 \$#" >>"$tmp/ruff.calls"
exec "$RUFF" "\$@"
EOF2
chmod +x "$tmp/ruff-log"
"$PGCI" regen -C "$ws" --ruff "$tmp/ruff-log" --no-cache -j 1 -o "$tmp/logged" --write >/dev/null 2>&1 || true
diff -r "$tmp/alone" "$tmp/logged" >/dev/null || fail "logged run: outputs differ"
calls=$(sort "$tmp/ruff.calls" | uniq -c | awk '{print $2 "/" $3 "x" $1}' | tr '\n' ' ')
# "check" over 4 files: 6 arguments + 4 files; "format" over 2 files: 3 + 2
grep -q '^check 10$' "$tmp/ruff.calls" || fail "no batched check over 4 files: $calls"
grep -q '^format 5$' "$tmp/ruff.calls" || fail "no batched format over 2 files: $calls"
[ "$(grep -c '^check' "$tmp/ruff.calls")" = 1 ] || fail "expected 1 batched check: $calls"
[ "$(grep -c '^format' "$tmp/ruff.calls")" = 1 ] || fail "expected 1 format: $calls"

# the report format the project sets is the per-file way's too: the batch cuts
# ruff's concise, grouped and pylint reports as it cuts the full one; one it
# cannot cut (github) sends every item back to the per-file way. Each time the
# errors are the ones each config gets alone.
# show-fixes adds a summary of every file's fixes after the diagnostics, which
# --quiet keeps: the batch's names other files, so it goes to the per-file way
# unless only the refused file's own fixes are listed.
for fmt in concise grouped pylint github show-fixes; do
    cp -r "$ws" "$tmp/ws-$fmt"
    if [ "$fmt" = show-fixes ]; then
        sed -i "s/^\[tool.ruff\]\$/&\nshow-fixes = true/" "$tmp/ws-$fmt/pyproject.toml"
        grep -q "^show-fixes = true" "$tmp/ws-$fmt/pyproject.toml" || fail "$fmt: not set"
    else
        sed -i "s/^\[tool.ruff\]\$/&\noutput-format = \"$fmt\"/" "$tmp/ws-$fmt/pyproject.toml"
        grep -q "^output-format = \"$fmt\"" "$tmp/ws-$fmt/pyproject.toml" || fail "$fmt: not set"
    fi
    : >"$tmp/$fmt.alone.errors"
    for c in "${cfgs[@]}"; do
        "$PGCI" regen -C "$tmp/ws-$fmt" --ruff "$RUFF" --no-cache -o "$tmp/alone-$fmt" --write "$c" \
            --format json 2>/dev/null | errors >>"$tmp/$fmt.alone.errors" || true
    done
    sort -o "$tmp/$fmt.alone.errors" "$tmp/$fmt.alone.errors"
    [ "$(wc -l <"$tmp/$fmt.alone.errors")" = 2 ] || fail "$fmt: expected two errors alone"
    [ "$fmt" = show-fixes ] || ! cmp -s "$tmp/$fmt.alone.errors" "$tmp/alone.errors" ||
        fail "$fmt: the errors read as the full format's: the format was not applied"
    rm -f "$tmp/ruff.calls"
    "$PGCI" regen -C "$tmp/ws-$fmt" --ruff "$tmp/ruff-log" --no-cache -j 1 -o "$tmp/batch-$fmt" \
        --write --format json >"$tmp/$fmt.report" 2>/dev/null || true
    diff -r "$tmp/alone-$fmt" "$tmp/batch-$fmt" >/dev/null || fail "$fmt: outputs differ from alone"
    RUFF_AS=$tmp/ruff-log errors <"$tmp/$fmt.report" | cmp -s - "$tmp/$fmt.alone.errors" ||
        fail "$fmt: errors differ: $(RUFF_AS=$tmp/ruff-log errors <"$tmp/$fmt.report")"
    alone=$([ "$fmt" = github ] && echo 5 || echo 1)
    [ "$fmt" = show-fixes ] || [ "$(grep -c '^check' "$tmp/ruff.calls")" = "$alone" ] ||
        fail "$fmt: expected $alone ruff checks: $(tr '\n' ' ' <"$tmp/ruff.calls")"
done

# warm: ruff's refusals are kept in the cache beside its results (the same key),
# so a second run starts no ruff but for --version, with the same errors
for run in cold warm; do
    rm -f "$tmp/ruff.calls"
    "$PGCI" regen -C "$ws" --ruff "$tmp/ruff-log" -j 1 -o "$tmp/logged-$run" --write --format json \
        >"$tmp/$run.report" 2>/dev/null || true
    diff -r "$tmp/alone" "$tmp/logged-$run" >/dev/null || fail "$run run: outputs differ"
    # the errors name the ruff command, here the wrapper
    RUFF_AS=$tmp/ruff-log errors <"$tmp/$run.report" | cmp -s - "$tmp/alone.errors" ||
        fail "$run run: errors differ: $(RUFF_AS=$tmp/ruff-log errors <"$tmp/$run.report")"
done
calls=$(sort "$tmp/ruff.calls" | uniq -c | awk '{print $2 "/" $3 "x" $1}' | tr '\n' ' ')
[ "$(grep -vc '^--version' "$tmp/ruff.calls")" = 0 ] || fail "warm run started ruff: $calls"
echo "ruff batch: ok"
