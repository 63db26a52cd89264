#!/usr/bin/env bash
# pgci regen end to end on the demo workspace (whose generated files come from the
# real patchgen): up to date, drift found and fixed, --stdout, -o, --jobs, and one
# clear error (exit 2, no partial file) for each way a regeneration can fail.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cp -r "$repo/fixtures/workspace" "$tmp/ws"
# the demo's upstream is dir:../upstream/{tag}, relative to the workspace
ln -s "$repo/fixtures/upstream" "$tmp/upstream"
ws=$tmp/ws
gen=$ws/demo/models/qwen3/generated

# 1. the checked-in files are what patchgen wrote: up to date, exit 0
"$PGCI" regen -C "$ws" --ruff "$RUFF" --diff >"$tmp/out" 2>"$tmp/err" || fail "up to date run: $(cat "$tmp/err")"
[ "$(grep -c '^up to date' "$tmp/out")" = 4 ] || fail "expected 4 up to date: $(cat "$tmp/out")"
grep -q '4 configs at v1.0.0: 0 errors, all up to date' "$tmp/err" || fail "summary: $(cat "$tmp/err")"

# a relative --source hangs off the workspace (-C), wherever pgci is started, as
# in check and survey (it was resolved against the current directory)
(cd / && "$PGCI" regen -C "$ws" --source 'dir:../upstream/{tag}' --ruff "$RUFF" --diff) >"$tmp/out" 2>"$tmp/err" ||
    fail "relative --source: $(cat "$tmp/err")"
[ "$(grep -c '^up to date' "$tmp/out")" = 4 ] || fail "relative --source: $(cat "$tmp/out")"

# a ruff other than the pinned one is worth a warning (the bytes depend on it)
sed 's/^# ruff_version = .*/ruff_version = "0.0.1"/' "$ws/pyproject.toml" >"$tmp/pyproject.toml"
cp "$ws/pyproject.toml" "$tmp/pyproject.orig"
cp "$tmp/pyproject.toml" "$ws/pyproject.toml"
"$PGCI" regen -C "$ws" --ruff "$RUFF" >/dev/null 2>"$tmp/err" || fail "version warning run failed"
grep -q "is ruff 0.13.2, not the 0.0.1 that .*pyproject.toml pins" "$tmp/err" || fail "no version warning: $(cat "$tmp/err")"
cp "$tmp/pyproject.orig" "$ws/pyproject.toml"

# --format json: one object per config, with the notes
"$PGCI" regen -C "$ws" --ruff "$RUFF" --format json >"$tmp/regen.json" || fail "--format json run failed"
python3 - "$tmp/regen.json" <<'PY' || fail "--format json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tag"] == "v1.0.0", d["tag"]
assert [c["state"] for c in d["configs"]] == ["up-to-date"] * 4, d
kinds = {n["kind"] for c in d["configs"] for n in c["notes"]}
assert "dropped-statement" in kinds, kinds
assert all(c["normalized"] and c["error"] is None for c in d["configs"])
PY

# 2. --stdout prints the regenerated file; with --diff, the .diff
"$PGCI" regen -C "$ws" --ruff "$RUFF" --stdout demo.models.qwen3.qwen3_npu_patch_gen_config >"$tmp/npu.py"
cmp "$tmp/npu.py" "$gen/patched_modeling_qwen3_npu.py" || fail "--stdout differs"
"$PGCI" regen -C "$ws" --ruff "$RUFF" --stdout --diff qwen3_npu_patch_gen_config >"$tmp/npu.diff"
cmp "$tmp/npu.diff" "$gen/patched_modeling_qwen3_npu.diff" || fail "--stdout --diff differs"
# raw output: no ruff, no final newline (patchgen's generate() joins with "\n")
"$PGCI" regen -C "$ws" --no-ruff --stdout qwen3_npu_patch_gen_config >"$tmp/raw.py"
[ "$(tail -c1 "$tmp/raw.py" | od -An -c | tr -d ' ')" != '\n' ] || fail "raw output ends with a newline"
cmp -s "$tmp/raw.py" "$tmp/npu.py" && fail "raw output equals the normalised one"

# 3. drift: a hand edit is found (exit 1), --write --diff restores the bytes
cp "$gen/patched_modeling_qwen3_gpu.py" "$tmp/orig.py"
cp "$gen/patched_modeling_qwen3_gpu.diff" "$tmp/orig.diff"
printf '# hand edit\n' >>"$gen/patched_modeling_qwen3_gpu.py"
rm "$gen/patched_modeling_qwen3_gpu.diff"
set +e
"$PGCI" regen -C "$ws" --ruff "$RUFF" --diff >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc = 1 ] || fail "drift: exit $rc, want 1"
grep -q '^would change  demo/models/qwen3/qwen3_gpu_patch_gen_config.py: demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py demo/models/qwen3/generated/patched_modeling_qwen3_gpu.diff$' "$tmp/out" ||
    fail "drift line: $(cat "$tmp/out")"
"$PGCI" regen -C "$ws" --ruff "$RUFF" --write --diff -q
cmp "$tmp/orig.py" "$gen/patched_modeling_qwen3_gpu.py" || fail "--write did not restore the .py"
cmp "$tmp/orig.diff" "$gen/patched_modeling_qwen3_gpu.diff" || fail "--write did not restore the .diff"

# 4. -o DIR, and the same bytes with 1 job and with 4
"$PGCI" regen -C "$ws" --ruff "$RUFF" --diff -o "$tmp/o1" -j 1 -q
"$PGCI" regen -C "$ws" --ruff "$RUFF" --diff -o "$tmp/o4" -j 4 -q
diff -r "$tmp/o1" "$tmp/o4" >/dev/null || fail "-j 1 and -j 4 differ"
[ "$(ls "$tmp/o1" | wc -l)" = 8 ] || fail "-o wrote $(ls "$tmp/o1")"
cmp "$tmp/o1/patched_modeling_qwen3_npu.py" "$gen/patched_modeling_qwen3_npu.py" || fail "-o content"
"$PGCI" regen -C "$ws" --ruff "$RUFF" -j 1 >"$tmp/a" 2>/dev/null
"$PGCI" regen -C "$ws" --ruff "$RUFF" -j 4 >"$tmp/b" 2>/dev/null
cmp "$tmp/a" "$tmp/b" || fail "report order depends on --jobs"

# --shard K/N: the shares partition the configs (round robin, as pgci check does)
for k in 1 2 3; do "$PGCI" regen -C "$ws" --ruff "$RUFF" --shard "$k/3" 2>/dev/null; done | sort >"$tmp/sharded"
"$PGCI" regen -C "$ws" --ruff "$RUFF" 2>/dev/null | sort >"$tmp/whole"
cmp "$tmp/sharded" "$tmp/whole" || fail "--shard shares do not add up to the whole"

# expect_error NAME PATTERN ARGS...: exit 2, one error line matching PATTERN
expect_error() {
    local name=$1 pattern=$2
    shift 2
    set +e
    "$PGCI" regen "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    [ $rc = 2 ] || fail "$name: exit $rc, want 2 ($(cat "$tmp/err"))"
    grep -q -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"
}

# 5. ruff missing, ruff failing: the command, its status and its output; no partial file
expect_error "missing ruff" "command '/nonexistent/ruff check --fix --quiet" -C "$ws" --ruff /nonexistent/ruff
printf '#!/bin/sh\necho "ruff exploded" >&2\nexit 3\n' >"$tmp/badruff"
chmod +x "$tmp/badruff"
cp "$gen/patched_modeling_qwen3_gpu.py" "$tmp/before.py"
expect_error "failing ruff" "exited with status 3: ruff exploded" -C "$ws" --ruff "$tmp/badruff" --write
cmp "$tmp/before.py" "$gen/patched_modeling_qwen3_gpu.py" || fail "a failed regen touched the output"
[ -z "$(find "$ws" -name '*.tmp*')" ] || fail "temporary files left behind"
# a ruff with pages of diagnostics: whole lines up to a budget, then a count and the
# first lines of the diagnostics left out, up to a budget of their own; the
# temporary directory reads <tmp>
printf '#!/bin/sh\nfor i in $(seq 1 400); do echo "E999 diagnostic line $i in $4$5$6$7$8"; done\nexit 1\n' >"$tmp/noisyruff"
chmod +x "$tmp/noisyruff"
expect_error "noisy ruff" "more lines of ruff output; the other diagnostics there:)" -C "$ws" --ruff "$tmp/noisyruff" qwen3_gpu_patch_gen_config
grep -q "<tmp>/patched_modeling_qwen3_gpu.py" "$tmp/err" || fail "temporary path not masked: $(head -c 300 "$tmp/err")"
[ "$(wc -c <"$tmp/err")" -lt 3000 ] || fail "ruff output not capped ($(wc -c <"$tmp/err") bytes)"
grep -q "^\.\.\. (and more)$" "$tmp/err" || fail "the list past the cut does not say it is cut"

# 6. broken configs, each in a workspace of its own
mkws() {
    rm -rf "$tmp/bad"
    mkdir -p "$tmp/bad/pkg/models/m"
    printf '[tool.patchgen]\nsearch_root = "pkg/models"\npackage_prefix = "pkg.models"\n[tool.pgci]\nupstream = "dir:%s/fixtures/upstream/{tag}"\n[project]\ndependencies = ["transformers==1.0.0"]\n' \
        "$repo" >"$tmp/bad/pyproject.toml"
    cat >"$tmp/bad/pkg/models/m/m_patch_gen_config.py"
}
mkws <<'PY'
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.llama.modeling_llama", target_file="x.py")


@config.add_helper_after("NoSuchClass")
def helper():
    return 1
PY
expect_error "positioned helper target" "positioned helper target(s) not found in generated output: NoSuchClass" \
    -C "$tmp/bad" --no-ruff
# the config named once, by its path in the workspace: no machine path in a report
grep -q "^pgci: error: pkg/models/m/m_patch_gen_config.py: positioned helper" "$tmp/err" ||
    fail "the refusal does not name the config by its workspace path: $(cat "$tmp/err")"
! grep -q "$tmp" "$tmp/err" || fail "the refusal names a machine path: $(cat "$tmp/err")"
[ ! -e "$tmp/bad/pkg/models/m/generated" ] || fail "an output directory appeared"

mkws <<'PY'
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.nope.modeling_nope", target_file="x.py")
PY
expect_error "missing source_module" "modeling_nope" -C "$tmp/bad" --no-ruff

mkws <<'PY'
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.llama.modeling_llama", target_file="x.py"
PY
expect_error "config syntax error" "m_patch_gen_config.py:3:" -C "$tmp/bad" --no-ruff

mkws <<'PY'
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.llama.modeling_llama", target_file="x.py")
for name in ["a", "b"]:
    config.exclude_from_output(name)
PY
expect_error "unsupported construct" "m_patch_gen_config.py:4:1" -C "$tmp/bad" --no-ruff

mkws <<'PY'
from veomni.patchgen.patch_spec import PatchConfig

config = PatchConfig(source_module="transformers.models.llama.modeling_llama", target_file="../escape.py")
PY
expect_error "unsafe target_file" "target_file" -C "$tmp/bad" --no-ruff --write
[ ! -e "$tmp/bad/pkg/models/escape.py" ] || fail "wrote outside generated/"

expect_error "unknown config" "no config 'nope'" -C "$ws" nope
expect_error "bad shard" "--shard wants K/N" -C "$ws" --shard 4/3
echo "regen e2e: all passed"
