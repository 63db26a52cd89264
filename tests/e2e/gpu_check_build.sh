#!/usr/bin/env bash
# End-to-end: the build step of `make gpu-check` (tests/gpu/gpu_check.sh), which
# otherwise runs only on a GPU machine. Its standalone `pgci logits` is linked from
# a list of sources of its own; when a file it reaches moves or gains a library,
# only a GPU machine would find out, and too late (that happened: the list missed
# run_shard.c and libcrypto for weeks). Here the script builds it in a scratch
# build directory (GPU_CHECK_BUILD_ONLY=1; the plugin too when nvcc is there), and
# the program must run the CPU check of a fixture toy and link no CUDA library.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

nvcc=$(command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
use_nvcc=0
[ -n "$nvcc" ] && use_nvcc=1
PGCI_BUILD=$tmp/build GPU_CHECK_BUILD_ONLY=1 GPU_CHECK_NVCC=$use_nvcc \
    bash tests/gpu/gpu_check.sh >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "gpu_check.sh's build exited $rc: $(tail -n 15 "$tmp/log"; tail -n 15 "$tmp/build/gpu/build.log" 2>/dev/null)"
bin=$tmp/build/gpu/bin/pgci-logits
if [ -x "$bin" ]; then
    ldd "$bin" | grep -E "libcuda|libcublas" && fail "$bin links a CUDA library"
    "$bin" --toy fixtures/toy_config/llama_tiny --device cpu --seq 4 --batch 1 --format json \
        >"$tmp/out.json" 2>"$tmp/err" || fail "pgci-logits on llama_tiny exited $?: $(cat "$tmp/err")"
    python3 - "$tmp/out.json" <<'PY' || fail "pgci-logits' JSON: $(head -c 300 "$tmp/out.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert len(rows) == 2, rows                       # fp32 and bf16 on the CPU
assert all(r["status"] == "pass" and r["device"] == "cpu" for r in rows), rows
assert {r["dtype"] for r in rows} == {"fp32", "bf16"}, rows
PY
else
    fail "$bin was not built"
fi
if [ $use_nvcc -eq 1 ]; then
    [ -f "$tmp/build/gpu/lib/pgci/pgci-cuda.so" ] || fail "the plugin was not built with $nvcc"
fi
grep -q "built (GPU_CHECK_BUILD_ONLY): stopping" "$tmp/log" || fail "the script did not stop after its build: $(tail -n 5 "$tmp/log")"

[ $fails -eq 0 ] || exit 1
echo "gpu_check_build: ok (plugin built with nvcc: $([ $use_nvcc -eq 1 ] && echo yes || echo no))"
