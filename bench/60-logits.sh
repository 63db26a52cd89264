#!/usr/bin/env bash
# Bench: `pgci logits` wall time on the fixture toys (CPU: reference + host twins;
# GPU too when present), and the CUDA kernels' memory bandwidth when a GPU is
# there. Never fails on time; reports what it could not run.
set -u
PGCI=${PGCI:?}
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
"$PGCI" logits --format json >/tmp/pgci-bench-logits.$$ 2>/dev/null
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
rm -f /tmp/pgci-bench-logits.$$
"$PGCI" logits --bench 2>&1 || echo "(kernel bandwidth: not run without a CUDA device)"
