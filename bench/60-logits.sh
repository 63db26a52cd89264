#!/usr/bin/env bash
# Bench: `pgci logits` wall time on the fixture toys (CPU: reference + host twins;
# GPU too when present); side by side, the same forward pass (same config, batch 2,
# sequence 16, fp32 and bf16) run by HuggingFace transformers on the same CPU
# (eager, median of 5 after a warm-up; torch and transformers from the corpus
# cache, installed on first use), both on one thread so that the ratio does not
# depend on how busy the other core is; and the CUDA kernels' memory bandwidth when a GPU
# is there. Never fails on time; reports what it could not run.
set -u
PGCI=${PGCI:?}
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
"$PGCI" logits -j 1 --format json >/tmp/pgci-bench-logits.$$ 2>/dev/null
rc=$?
t1=$(date +%s.%N)
python3 - /tmp/pgci-bench-logits.$$ "$t0" "$t1" "$rc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"pgci logits, {len(d['rows'])} comparisons on the fixture toys: {wall:.2f} s wall (exit {sys.argv[4]})")
print(f"{'toy':18} {'dtype':5} {'dev':5} {'status':8} {'reference ms':>13} {'kernels ms':>11}")
for r in d["rows"]:
    if r["status"] == "skipped":
        print(f"{r['toy']:18} {r['dtype']:5} {r['device']:5} skipped  ({r['reason']})")
    else:
        print(f"{r['toy']:18} {r['dtype']:5} {r['device']:5} {r['status']:8} "
              f"{r['ms_reference']:13.2f} {r['ms']:11.2f}")
PY
. tests/corpus/lib.sh
if PY=$(corpus_hf_venv); then
    args=()
    for d in fixtures/toy_config/*/; do [ -f "$d/config.json" ] && args+=(--time "$d"); done
    "$PY" tests/gpu/hf_parity.py "${args[@]}" --time-dtype fp32 --time-dtype bf16 --batch 2 \
        --seq 16 --threads 1 --json /tmp/pgci-bench-hf.$$ >/dev/null 2>&1
    python3 - /tmp/pgci-bench-logits.$$ /tmp/pgci-bench-hf.$$ <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
h = json.load(open(sys.argv[2]))
hf = {(os.path.basename(t["config"].rstrip("/")), t["dtype"]): t["hf_ms"] for t in h["timings"]}
print(f"forward pass on one CPU thread, batch 2 x seq 16 (transformers {h['transformers']}, torch {h['torch']}):")
print(f"{'toy':18} {'dtype':5} {'pgci twins ms':>14} {'HF eager ms':>12} {'HF / pgci':>10}")
for r in d["rows"]:
    k = (r["toy"], r["dtype"])
    if r["device"] != "cpu" or k not in hf:
        continue
    print(f"{r['toy']:18} {r['dtype']:5} {r['ms']:14.2f} {hf[k]:12.2f} {hf[k] / r['ms']:9.2f}x")
for e in h["errors"]:
    print("hf:", e)
PY
    rm -f /tmp/pgci-bench-hf.$$
else
    echo "(HF side of the comparison: not run, torch/transformers could not be installed)"
fi
rm -f /tmp/pgci-bench-logits.$$
"$PGCI" logits --bench 2>&1 || echo "(kernel bandwidth: not run without a CUDA device)"
