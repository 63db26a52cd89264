#!/usr/bin/env bash
# pgci patchgen as a drop-in for the patchgen console script: on a copy of the demo
# workspace, the same arguments give the same stdout, stderr, exit status and
# files as the real patchgen did (expected outputs captured from it: see
# tests/e2e/patchgen_cli/README).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
exp=$repo/tests/e2e/patchgen_cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$repo/fixtures/workspace" "$tmp/ws"
ln -s "$repo/fixtures/upstream" "$tmp/upstream"
ws=$(cd "$tmp/ws" && pwd -P)
# ruff on PATH, as patchgen finds it
mkdir -p "$tmp/bin"
ln -s "$RUFF" "$tmp/bin/ruff"
export PATH="$tmp/bin:$PATH"
fails=0
run() {
    local name=$1
    shift
    set +e
    (cd "$ws" && "$PGCI" patchgen "$@") >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    sed -i "s#$ws#@WS@#g" "$tmp/out" "$tmp/err"
    local ok=1
    [ "$rc" = "$(cat "$exp/$name.rc")" ] || { echo "FAIL $name: exit $rc, want $(cat "$exp/$name.rc")"; ok=0; }
    cmp -s "$tmp/out" "$exp/$name.out" || { echo "FAIL $name: stdout"; diff "$exp/$name.out" "$tmp/out" | head -20; ok=0; }
    cmp -s "$tmp/err" "$exp/$name.err" || { echo "FAIL $name: stderr"; diff "$exp/$name.err" "$tmp/err" | head -20; ok=0; }
    [ $ok = 1 ] && echo "ok   patchgen $*" || fails=$((fails + 1))
}
run check --check
run list --list
run none
run bogus --bogus
run nope nope.module
run all_dry --all --dry-run --diff
run one demo.models.qwen3.qwen3_gpu_patch_gen_config --diff -v
run one_dry demo.models.qwen3.qwen3_npu_patch_gen_config --dry-run
run cfgname demo.models.qwen3.qwen3_npu_patch_gen_config -c nope
run one_o demo.models.llama.llama_gpu_patch_gen_config -o out --diff
for f in patched_modeling_llama_gpu.py patched_modeling_llama_gpu.diff; do
    cmp -s "$ws/out/$f" "$repo/fixtures/workspace/demo/models/llama/generated/$f" || { echo "FAIL: -o out/$f"; fails=$((fails + 1)); }
done
rm -rf "$ws/out"
# `one` rewrote the qwen3 GPU files: byte-identical to what patchgen checked in
diff -r "$repo/fixtures/workspace/demo" "$ws/demo" >/dev/null || { echo "FAIL: MODULE --diff changed files"; fails=$((fails + 1)); }
printf '# edit\n' >>"$ws/demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py"
sed -i '5d' "$ws/demo/models/llama/generated/patched_modeling_llama_gpu.diff"
run drift --check
run fix --check --fix
run check_after_fix --check
diff -r "$repo/fixtures/workspace/demo" "$ws/demo" >/dev/null || { echo "FAIL: --fix did not restore the files"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "patchgen CLI e2e: all passed"
[ "$fails" = 0 ]
