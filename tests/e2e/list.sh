#!/usr/bin/env bash
# pgci list on the demo workspace (text and JSON, from the root and from a
# subdirectory), and its errors: a workspace without [tool.patchgen], a bad
# package_prefix, a bad --format. Every error is one line on stderr, exit 2,
# nothing on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-$PWD/bin/pgci}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgci-e2e-list.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

want='demo.models.llama.llama_gpu_patch_gen_config
demo.models.qwen3.qwen3_gpu_patch_gen_config
demo.models.qwen3.qwen3_npu_patch_gen_config
demo.models.qwen3_moe.qwen3_moe_gpu_patch_gen_config'

# text: one module per line, nothing on stderr
out=$("$PGCI" list -C fixtures/workspace 2>"$tmp/err")
[ "$out" = "$want" ] || fail "text output differs:"$'\n'"$out"
[ ! -s "$tmp/err" ] || fail "stderr not empty: $(cat "$tmp/err")"

# the same modules as Python's sorted(rglob) with patchgen's module rule
py=$(cd fixtures/workspace && python3 -c '
from pathlib import Path
root = Path("demo/models")
for p in sorted(root.rglob("*_patch_gen_config.py")):
    if not p.name.startswith("_"):
        print(".".join(("demo.models", *p.relative_to(root).with_suffix("").parts)))')
[ "$out" = "$py" ] || fail "differs from sorted(rglob):"$'\n'"$py"

# from a subdirectory: the nearest pyproject.toml with [tool.patchgen] above it
sub=$(cd fixtures/workspace/demo/models/qwen3 && "$PGCI" list)
[ "$sub" = "$want" ] || fail "list from a subdirectory differs"

# json: parseable, same order, path/module/name/dir
"$PGCI" list -C fixtures/workspace --format json >"$tmp/list.json"
python3 - "$tmp/list.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pin"] == "1.0.0", d["pin"]
assert d["search_root"] == "demo/models" and d["package_prefix"] == "demo.models"
c = d["configs"]
assert [x["module"] for x in c] == [
    "demo.models.llama.llama_gpu_patch_gen_config",
    "demo.models.qwen3.qwen3_gpu_patch_gen_config",
    "demo.models.qwen3.qwen3_npu_patch_gen_config",
    "demo.models.qwen3_moe.qwen3_moe_gpu_patch_gen_config",
], c
assert c[2] == {
    "module": "demo.models.qwen3.qwen3_npu_patch_gen_config",
    "name": "qwen3_npu_patch_gen_config",
    "path": "demo/models/qwen3/qwen3_npu_patch_gen_config.py",
    "dir": "demo/models/qwen3",
}, c[2]
PY

# one-line errors with exit 2 and an empty stdout
expect_error() { # expect_error <stderr substring> <pgci args...>
    local msg=$1
    shift
    set +e
    "$PGCI" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "pgci $* exited $rc, expected 2"
    [ ! -s "$tmp/out" ] || fail "pgci $* printed on stdout: $(cat "$tmp/out")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "pgci $* stderr is not one line: $(cat "$tmp/err")"
    grep -qF -- "$msg" "$tmp/err" || fail "pgci $* stderr lacks '$msg': $(cat "$tmp/err")"
}

mkdir -p "$tmp/nopatchgen"
printf '[project]\nname = "x"\ndependencies = ["transformers==5.9.0"]\n' >"$tmp/nopatchgen/pyproject.toml"
expect_error "pgci: error: $tmp/nopatchgen/pyproject.toml: no [tool.patchgen] table" \
    list -C "$tmp/nopatchgen"

mkdir -p "$tmp/badprefix/m"
printf '[tool.patchgen]\nsearch_root = "m"\npackage_prefix = "demo.models."\n' >"$tmp/badprefix/pyproject.toml"
expect_error "pyproject.toml:3: [tool.patchgen] package_prefix 'demo.models.' ends with '.'" \
    list -C "$tmp/badprefix"

mkdir -p "$tmp/badtoml"
printf '[tool.patchgen]\nsearch_root = "m"\npackage_prefix = demo\n' >"$tmp/badtoml/pyproject.toml"
expect_error "badtoml/pyproject.toml:3: expected a value, found 'd' (a string needs quotes)" \
    list -C "$tmp/badtoml"

expect_error "unknown --format 'yaml'" list -C fixtures/workspace --format yaml
expect_error "list takes no arguments" list -C fixtures/workspace extra
expect_error "workspace $tmp/none" list -C "$tmp/none"

# --help is help, exit 0
"$PGCI" list --help | grep -q -- "--format" || fail "list --help lacks --format"
echo "list: ok"
