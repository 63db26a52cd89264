#!/usr/bin/env bash
# make gpu-check: the GPU proof of the kernels, as one bounded script (< 8 min).
#
#  1. builds the CUDA plugin with nvcc and `pgci logits` standalone (the loader,
#     the check, the core library; needs a C compiler, nvcc, cuBLAS, jansson and
#     libcrypto, nothing else; GPU_CHECK_DEPS=DIR adds DIR/include and DIR/lib for
#     a machine whose image lacks the last two's headers);
#  2. `pgci logits` on every fixture toy (host twins and CUDA kernels against the
#     reference, fp32 and bf16);
#  3. `pgci logits --device cuda` on one full-size toy per family (hidden 4096,
#     vocab 151936, 2 layers), fp32 and bf16;
#  4. the kernel bandwidth benchmark (`pgci logits --bench`);
#  5. tests/gpu/hf_parity.py: transformers builds each fixture toy from the same
#     config.json, loads the weights pgci exported and runs the ids pgci dumped;
#     its logits must match pgci's reference; and the HF forward is timed on the
#     full-size toys next to pgci's CUDA forward;
#  6. compute-sanitizer's memcheck, racecheck and synccheck on the CUDA kernels
#     (every fixture toy, batch 2, sequence 4): any error it reports fails.
# torch and transformers are used when importable, else installed with pip into
# $BUILD/gpu/venv (in the background while steps 1-4 run). Anything that could not
# run is reported as NOT RUN, never as passed. Exit: 0 all passed; 1 something
# failed; 2 nothing failed but something did not run.
# GPU_CHECK_BUILD_ONLY=1 stops after step 1 (tests/e2e/gpu_check_build.sh runs it so
# in `make test`, which keeps this build's source list from going stale);
# GPU_CHECK_NVCC=0 leaves the plugin out of that build.
set -u
cd "$(dirname "$0")/../.."
T0=$SECONDS
BUDGET=${GPU_CHECK_BUDGET:-460}
BUILD=${PGCI_BUILD:-build}
OUT=$BUILD/gpu
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.err "$OUT"/*.txt "$OUT"/*.safetensors "$OUT"/pip.log
SEQ_FULL=${GPU_CHECK_FULL_SEQ:-16}
failed=()
notrun=()
say() { printf '[gpu-check %3ds] %s\n' $((SECONDS - T0)) "$*"; }
left() { echo $((BUDGET - (SECONDS - T0))); }
pip_pid=

cleanup() {
    if [ -n "$pip_pid" ] && kill -0 "$pip_pid" 2>/dev/null; then
        kill "$pip_pid" 2>/dev/null
        wait "$pip_pid" 2>/dev/null
    fi
}
trap cleanup EXIT

say "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
have_gpu=0
gpu=
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    have_gpu=1
    gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)
    say "GPU: $gpu"
else
    say "no NVIDIA GPU here (nvidia-smi -L lists none): the GPU steps are NOT RUN"
    notrun+=("every GPU step (no GPU on this machine)")
fi
date -u +"date: %Y-%m-%d %H:%M UTC" | tee "$OUT/date.txt"

# --- torch/transformers, in the background ----------------------------------------
PY=python3
if [ $have_gpu -eq 0 ]; then
    : # nothing to install torch for
elif python3 -c "import torch, transformers" >/dev/null 2>&1; then
    say "torch and transformers are importable"
else
    say "installing torch, transformers, safetensors with pip into $OUT/venv (background)"
    (python3 -m venv --system-site-packages "$OUT/venv" &&
        timeout 300 "$OUT/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --retries 1 --timeout 20 \
            torch transformers safetensors) >"$OUT/pip.log" 2>&1 &
    pip_pid=$!
    PY=$OUT/venv/bin/python
fi

# --- 1. build ---------------------------------------------------------------------
# As the Makefile does: nvcc builds the kernels into the plugin pgci-cuda.so, and
# pgci (here the standalone `pgci logits`) links no CUDA library but loads the
# plugin on first use. The two are laid out as installed ($OUT/bin/pgci-logits,
# $OUT/lib/pgci/pgci-cuda.so), so the loader's lookup next to the executable is what
# finds it; the same path is also compiled in, as the build-tree fallback.
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)}
BIN=$OUT/bin/pgci-logits
PLUGIN=$OUT/lib/pgci/pgci-cuda.so
unset PGCI_CUDA_PLUGIN # the lookup under test, not an override from the environment
build() {
    if [ "${GPU_CHECK_NVCC:-1}" != 0 ] && [ -z "$NVCC" ]; then
        echo "nvcc not found"
        return 1
    fi
    local cuda=${NVCC%/bin/nvcc} obj=$OUT/obj deps=${GPU_CHECK_DEPS:-}
    local cflags=(-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wshadow
                  -Wno-unused-parameter -Isrc -I.
                  "-DPGCI_CUDA_PLUGIN_PATH=\"$PWD/$PLUGIN\"")
    local ldflags=()
    if [ -n "$deps" ]; then
        cflags+=(-I"$deps/include")
        ldflags+=(-L"$deps/lib" -Wl,-rpath,"$deps/lib")
    fi
    rm -rf "$obj"
    mkdir -p "$obj" "$(dirname "$BIN")" "$(dirname "$PLUGIN")"
    # Every object goes into an archive and the program links against it, so only
    # what `pgci logits` reaches is linked (and needs its libraries).
    local srcs=(src/core/*.c src/cmd/cmd_common.c src/cmd/cmd_logits.c checks/finding.c
                checks/logits.c src/pipeline/run_doc.c src/pipeline/run_shard.c
                src/verify/verify_doc.c kernels/*.c)
    local objs=() pids=() s o
    for s in "${srcs[@]}"; do
        o=$obj/$(echo "$s" | tr / _).o
        objs+=("$o")
        ${CC:-cc} "${cflags[@]}" -c "$s" -o "$o" &
        pids+=($!)
    done
    ${CC:-cc} "${cflags[@]}" -c tests/gpu/logits_main.c -o "$obj/main.o" &
    pids+=($!)
    if [ "${GPU_CHECK_NVCC:-1}" != 0 ]; then
        "$NVCC" -O2 -std=c++17 -arch=sm_90 -shared -cudart shared \
            -Xcompiler -fPIC,-fvisibility=hidden,-Wall -I. -L"$cuda/lib64" \
            -Xlinker -rpath,"$cuda/lib64" -Xlinker -z,defs -lcublas \
            -Xlinker --version-script=kernels/pgci-cuda.map -o "$PLUGIN" kernels/*.cu &
        pids+=($!)
    fi
    local rc=0 p
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc -eq 0 ] || return 1
    ar rcs "$obj/logits.a" "${objs[@]}" || return 1
    ${CC:-cc} -o "$BIN" "$obj/main.o" "$obj/logits.a" "${ldflags[@]}" \
        -ljansson -lcrypto -lpthread -ldl -lm || return 1
    if ldd "$BIN" | grep -E "libcuda|libcublas"; then
        echo "$BIN links CUDA libraries: it must load them through the plugin only"
        return 1
    fi
}
say "building $BIN and $PLUGIN"
if ! build >"$OUT/build.log" 2>&1; then
    tail -n 30 "$OUT/build.log"
    say "FAIL: the build failed (log: $OUT/build.log)"
    exit 1
fi
if [ "${GPU_CHECK_BUILD_ONLY:-0}" = 1 ]; then
    say "built (GPU_CHECK_BUILD_ONLY): stopping"
    exit 0
fi
export CUDA_MODULE_LOADING=EAGER # module loading must not land inside the timed forward

# run_logits NAME TIMEOUT ARGS...: pgci logits with JSON into $OUT/NAME.json
run_logits() {
    local name=$1 t=$2
    shift 2
    local l
    l=$(left)
    [ "$t" -gt "$l" ] && t=$l
    if [ "$t" -lt 10 ]; then
        notrun+=("$name (time budget)")
        say "NOT RUN: $name (time budget spent)"
        return
    fi
    timeout "$t" "$BIN" "$@" --format json >"$OUT/$name.json" 2>"$OUT/$name.err"
    local rc=$?
    case $rc in
    0) say "$name: ok" ;;
    1) failed+=("$name"); say "FAIL: $name (comparisons failed)" ;;
    124) failed+=("$name"); say "FAIL: $name timed out after ${t}s" ;;
    *) failed+=("$name"); say "FAIL: $name exited $rc: $(head -c 400 "$OUT/$name.err")" ;;
    esac
}

# --- 2. fixture toys --------------------------------------------------------------
run_logits fixtures 120 --device auto
[ $have_gpu -eq 1 ] || { say "toys done on the CPU only; stopping before the GPU steps"; exit 2; }
# --- 3. one full-size toy per family, on the GPU --------------------------------------
for fam in llama qwen2 qwen3 qwen3_moe; do
    run_logits "full_$fam" 150 --toy "fixtures/toy_config/full/$fam" --device cuda \
        --seq "$SEQ_FULL" --batch 1
done
# --- 4. kernel bandwidth --------------------------------------------------------------
if [ "$(left)" -gt 20 ]; then
    timeout 60 "$BIN" --bench >"$OUT/bench.txt" 2>&1 || failed+=("bench")
else
    notrun+=("bench (time budget)")
fi

# --- 5. HF parity ---------------------------------------------------------------------
cases=()
for dir in fixtures/toy_config/*/; do
    toy=$(basename "$dir")
    [ -f "$dir/config.json" ] || continue
    if "$BIN" --toy "$dir" --device cpu --export-weights "$OUT/$toy.weights.safetensors" \
        --dump "$OUT/$toy.ref.safetensors" >/dev/null 2>"$OUT/$toy.export.err"; then
        cases+=(--case "$dir" "$OUT/$toy.weights.safetensors" "$OUT/$toy.ref.safetensors")
    else
        failed+=("export $toy")
    fi
done
if [ -n "$pip_pid" ]; then
    say "waiting for pip (at most $(left)s)"
    while kill -0 "$pip_pid" 2>/dev/null && [ "$(left)" -gt 60 ]; do sleep 2; done
    if kill -0 "$pip_pid" 2>/dev/null; then
        kill "$pip_pid" 2>/dev/null
        echo "pip killed: time budget" >>"$OUT/pip.log"
    fi
    wait "$pip_pid" 2>/dev/null
    pip_pid=
fi
if ! "$PY" -c "import torch, transformers" >/dev/null 2>&1; then
    notrun+=("hf_parity (torch/transformers unavailable: $(tail -n 1 "$OUT/pip.log" 2>/dev/null | head -c 200))")
elif [ "$(left)" -lt 30 ]; then
    notrun+=("hf_parity (time budget)")
else
    timeout "$(left)" "$PY" tests/gpu/hf_parity.py "${cases[@]}" \
        --time fixtures/toy_config/full/llama --time fixtures/toy_config/full/qwen2 \
        --time fixtures/toy_config/full/qwen3 --time fixtures/toy_config/full/qwen3_moe \
        --batch 1 --seq "$SEQ_FULL" --json "$OUT/hf.json" >"$OUT/hf.txt" 2>&1
    case $? in
    0) ;;
    124) failed+=("hf_parity (timed out)") ;;
    *) failed+=("hf_parity") ;;
    esac
fi

# --- 6. compute-sanitizer -------------------------------------------------------------
CS=$(command -v compute-sanitizer 2>/dev/null || ls "${NVCC%/bin/nvcc}/bin/compute-sanitizer" 2>/dev/null)
for tool in memcheck racecheck synccheck; do
    if [ -z "$CS" ]; then
        notrun+=("compute-sanitizer $tool (not installed)")
    elif [ "$(left)" -lt 20 ]; then
        notrun+=("compute-sanitizer $tool (time budget)")
    else
        t=$(left)
        [ "$t" -gt 90 ] && t=90
        timeout "$t" "$CS" --tool "$tool" --error-exitcode 9 "$BIN" --device cuda --seq 4 \
            --batch 2 >"$OUT/sanitizer-$tool.txt" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q "^========= .*SUMMARY: 0 " "$OUT/sanitizer-$tool.txt"; then
            say "compute-sanitizer $tool: $(grep "^========= .*SUMMARY" "$OUT/sanitizer-$tool.txt" | sed 's/^========= //')"
        else
            failed+=("compute-sanitizer $tool (exit $rc, see $OUT/sanitizer-$tool.txt)")
            say "FAIL: compute-sanitizer $tool exited $rc"
        fi
    fi
done

# --- the table ------------------------------------------------------------------------
echo
echo "================ pgci gpu-check: $(cat "$OUT/date.txt") ${gpu:+on $gpu} ================"
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print(f"{'toy':18} {'family':10} {'dtype':5} {'dev':5} {'status':8} {'max_rel':>9} {'rel_l2':>9} "
      f"{'cosine':>10} {'layer':>6} {'loss_rel':>9} {'ref_ms':>9} {'dev_ms':>8}")
pgci_ms = {}
for name in ["fixtures", "full_llama", "full_qwen2", "full_qwen3", "full_qwen3_moe"]:
    p = os.path.join(out, name + ".json")
    try:
        d = json.load(open(p))
    except Exception:
        print(f"{name}: no result (see {name}.err)")
        continue
    for r in d["rows"]:
        if r["status"] == "skipped":
            print(f"{r['toy']:18} {r['family']:10} {r['dtype']:5} {r['device']:5} SKIPPED  ({r.get('reason')})")
            continue
        layer = r["first_diverging_layer"]
        layer = "-" if layer is None else str(layer)
        f = lambda v, fmt: format(v, fmt) if isinstance(v, (int, float)) else "nan"
        print(f"{r['toy']:18} {r['family']:10} {r['dtype']:5} {r['device']:5} {r['status']:8} "
              f"{f(r['max_rel'], '9.2e')} {f(r['rel_l2'], '9.2e')} {f(r['cosine'], '10.7f')} "
              f"{layer:>6} {f(r['loss_rel'], '9.2e')} {f(r['ms_reference'], '9.1f')} {f(r['ms'], '8.2f')}")
        if name.startswith("full_") and r["device"] == "cuda":
            pgci_ms[(r["family"], r["dtype"])] = r["ms"]
print()
try:
    print(open(os.path.join(out, "bench.txt")).read().rstrip())
except OSError:
    print("bench: no result")
print()
try:
    print(open(os.path.join(out, "hf.txt")).read().rstrip())
    hf = json.load(open(os.path.join(out, "hf.json")))
    print()
    print(f"{'family':10} {'pgci CUDA forward bf16 ms':>26} {'HF eager forward bf16 ms':>25}")
    for t in hf["timings"]:
        ms = pgci_ms.get((t["family"], "bf16"))
        print(f"{t['family']:10} {ms if ms is not None else float('nan'):26.2f} {t['hf_ms']:25.2f}")
except (OSError, ValueError):
    print("hf_parity: no result")
PY
echo
for n in "${notrun[@]}"; do echo "NOT RUN: $n"; done
for f in "${failed[@]}"; do echo "FAILED: $f"; done
say "done"
if [ ${#failed[@]} -gt 0 ]; then
    exit 1
elif [ ${#notrun[@]} -gt 0 ]; then
    exit 2
fi
echo "gpu-check: all passed"
