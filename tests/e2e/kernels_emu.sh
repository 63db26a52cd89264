#!/usr/bin/env bash
# End-to-end: the CUDA code itself (kernels/kgpu.cu, unchanged) compiled for the
# CPU against the emulator in tests/gpu/emu into a CUDA plugin (a shared object,
# as nvcc builds pgci-cuda.so), loaded by the real pgci through PGCI_CUDA_PLUGIN
# (so the loader, kernels/kgpu_load.c, is exercised too), and run on every fixture
# toy as if a GPU were there: the kernels' launch geometry, indexing,
# shared-memory reductions, warp shuffles and cuBLAS calls must reproduce the
# reference within tolerance at fp32 and bf16, and every deliberately broken
# kernel variant must be caught on this path too. (The real GPU run is
# `make gpu-check`; the loader's failure paths are tests/e2e/kgpu_loader.sh.)
set -u
cd "$(dirname "$0")/../.."
BUILD=${PGCI_BUILD:-build}
PGCI=${PGCI:-$PWD/bin/pgci}
lib=$BUILD/libpgci.a
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
[ -x "$PGCI" ] || { echo "FAIL: $PGCI not built"; exit 1; }
command -v g++ >/dev/null || { echo "FAIL: g++ is needed to compile kgpu.cu for the emulator"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An ASan build of pgci needs the plugin built with the same sanitizers.
san=
nm "$lib" 2>/dev/null | grep -q __asan_init && san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
# -z defs: the plugin must need nothing from pgci (only the C++ runtime and libc).
g++ -std=c++17 -O1 -g $san -x c++ -shared -fPIC -fvisibility=hidden -Itests/gpu/emu -I. -Wall \
    kernels/kgpu.cu -o "$tmp/pgci-cuda-emu.so" -Wl,-z,defs \
    -Wl,--version-script=kernels/pgci-cuda.map ||
    { echo "FAIL: kgpu.cu does not build into a plugin against the emulator"; exit 1; }
export PGCI_CUDA_PLUGIN=$tmp/pgci-cuda-emu.so
emu() { "$PGCI" logits "$@"; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the version script: the entry table is the plugin's one export
exports=$(nm -D --defined-only "$tmp/pgci-cuda-emu.so" | awk '$2 ~ /^[TWDBRVu]$/ {print $3}')
[ "$exports" = "pgci_cuda_plugin_entry" ] || fail "the plugin exports more than its entry: $(echo $exports | head -c 300)"

emu --device cuda --seq 4 --batch 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "emulated GPU run exited $rc: $(cat "$tmp/err")"
n=$(grep -Ec " cuda +pass " "$tmp/out")
[ "$n" -eq 10 ] || fail "expected 10 passing emulated-GPU rows, got $n: $(cat "$tmp/out")"
grep -q "GPU: CPU emulator" "$tmp/out" || fail "the device is not named"

# Wider shapes than the fixtures: a sequence longer than the attention block (128
# threads), head_dim 128, a row longer than the RMSNorm block (256 threads) and a
# vocabulary over two fused cross-entropy chunks (8192 each).
mkdir -p "$tmp/wide"
cat >"$tmp/wide/config.json" <<'JSON'
{"model_type": "qwen3", "vocab_size": 9000, "hidden_size": 320, "intermediate_size": 256,
 "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 128,
 "rope_theta": 1000000.0, "tie_word_embeddings": false}
JSON
emu --toy "$tmp/wide" --device cuda --seq 200 --batch 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$(grep -Ec "^wide +qwen3 +(fp32|bf16) +cuda +pass " "$tmp/out")
[ $rc -eq 0 ] && [ "$n" -eq 2 ] || fail "wide shapes on the emulated GPU: exit $rc: $(cat "$tmp/out" "$tmp/err")"

breaks="rmsnorm swiglu rotary attention moe ce"
# Under ASan every coroutine switch is slow: the clean run and two breaks suffice.
[ -n "$san" ] && breaks="rotary moe"
for k in $breaks; do
    want=5
    [ $k = moe ] && want=1 # only qwen3_moe_tiny has MoE layers
    PGCI_TEST_BREAK_KERNEL=$k emu --device cuda --dtype fp32 --seq 4 --batch 2 \
        >"$tmp/out" 2>/dev/null
    rc=$?
    n=$(grep -Ec " cuda +FAIL " "$tmp/out")
    [ $rc -eq 1 ] && [ "$n" -eq $want ] || fail "broken $k on the CUDA path: exit $rc, $n failing rows (want $want)"
done
[ $fails -eq 0 ] && echo "kernels on the CUDA emulator: ok"
exit $((fails > 0))
