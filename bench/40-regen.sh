#!/usr/bin/env bash
# make bench: regeneration speed.
#  1. pgci against the real patchgen (veomni 0.1.11) on the oracle fixture configs,
#     same inputs, raw codegen (no ruff): wall time per full pass, and the ratio.
#     Both sides pay their start-up: a fresh `pgci regen` process against a fresh
#     `python3` that loads patchgen and the configs and generates every module.
#  2. the real corpus (veomni 0.1.12's 29 configs, transformers 5.9.0): wall time of
#     regenerating everything with and without ruff 0.13.2, and ruff's share.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
export PYTHONDONTWRITEBYTECODE=1
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
RUNS=${PGCI_BENCH_RUNS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
secs() { echo "scale=4; ($2 - $1) / $RUNS" | bc | sed 's/^\./0./'; }

wheel=$(corpus_wheel veomni 0.1.11) || { echo "no veomni 0.1.11: skipped"; exit 0; }
mkdir -p "$tmp/pg/veomni"
: >"$tmp/pg/veomni/__init__.py"
cp -r "$wheel/veomni/patchgen" "$tmp/pg/veomni/"
cat >"$tmp/gen.py" <<'PY'
import importlib, os, sys, time, types
pg, ws, up = sys.argv[1:4]
total = 0.0
sys.path[:0] = [pg, ws, up]
from veomni.patchgen.codegen import ModelingCodeGenerator
root = os.path.join(ws, "oracle/models")
for d, _, files in sorted(os.walk(root)):
    for f in sorted(files):
        if f.endswith("_patch_gen_config.py"):
            rel = os.path.relpath(os.path.join(d, f), root)[:-3]
            c = importlib.import_module("oracle.models." + rel.replace(os.sep, ".")).config
            if c.source_module not in sys.modules:
                m = types.ModuleType(c.source_module)
                m.__file__ = os.path.join(up, *c.source_module.split(".")) + ".py"
                sys.modules[c.source_module] = m
            t = time.perf_counter()
            ModelingCodeGenerator(c).generate()
            total += time.perf_counter() - t
print(f"{total * 1000:.1f}", file=sys.stderr)
PY
n=$(find fixtures/patchgen -name '*_patch_gen_config.py' | wc -l)
TIMEFORMAT='%R %U %S'
py_t=$( { time for _ in $(seq "$RUNS"); do
    python3 "$tmp/gen.py" "$tmp/pg" "$repo/fixtures/patchgen" "$repo/fixtures/upstream/v1.0.0" 2>>"$tmp/py_ms"
done; } 2>&1 )
pc_t=$( { time for _ in $(seq "$RUNS"); do
    "$PGCI" regen -C fixtures/patchgen --no-ruff -o "$tmp/o" -q -j 1 || exit 1
done; } 2>&1 )
unset TIMEFORMAT
# the generator alone, in process: patchgen's generate() vs pgci's codegen step
for _ in $(seq "$RUNS"); do
    "$PGCI" regen -C fixtures/patchgen --no-ruff -o "$tmp/o" -j 1 -v 2>&1 >/dev/null |
        sed -n 's/.*codegen \([0-9.]*\) ms.*/\1/p' | awk '{ s += $1 } END { print s }'
done >"$tmp/pc_ms"
per() { echo "$1" | awk -v n="$RUNS" '{ printf "%.3fs wall, %.3fs cpu", $1 / n, ($2 + $3) / n }'; }
ratio() { echo "$1 $2" | awk '{ printf "%.1fx less wall, %.1fx less cpu", $1 / $4, ($2 + $3) / ($5 + $6) }'; }
echo "fixture configs ($n, raw codegen, mean of $RUNS runs, one process each):"
echo "  patchgen 0.1.11 (python3): $(per "$py_t")"
echo "  pgci regen --no-ruff -j1:  $(per "$pc_t")   ($(ratio "$py_t" "$pc_t"))"
pyg=$(awk '{ s += $1 } END { printf "%.1f", s / NR }' "$tmp/py_ms")
pcg=$(awk '{ s += $1 } END { printf "%.1f", s / NR }' "$tmp/pc_ms")
echo "  the generator alone, in process: patchgen generate() ${pyg} ms, pgci codegen ${pcg} ms ($(echo "$pyg $pcg" | awk '{ printf "%.1f", $1 / $2 }')x)"

tf=$(corpus_wheel transformers 5.9.0) || { echo "no transformers 5.9.0: corpus part skipped"; exit 0; }
ws=$(veomni_sdist 0.1.12) || { echo "no veomni 0.1.12: corpus part skipped"; exit 0; }
J=$(nproc)
corpus() { # ARGS... -> "wall cpu" seconds of one run (cpu: user+sys, ruff included)
    local TIMEFORMAT='%R %U %S'
    { time "$PGCI" regen -C "$ws" --tag v5.9.0 --upstream "dir:$tf" -q "$@" >/dev/null 2>&1; } 2>&1 |
        awk '{ printf "%.2fs wall, %.2fs cpu", $1, $2 + $3 }'
}
"$PGCI" regen -C "$ws" --tag v5.9.0 --upstream "dir:$tf" -q --no-ruff >/dev/null 2>&1 # warm the page cache
raw1=$(corpus --no-ruff -j 1)
ruff1=$(corpus --ruff "$RUFF" -j 1)
rawJ=$(corpus --no-ruff -j "$J")
ruffJ=$(corpus --ruff "$RUFF" -j "$J")
echo "real corpus (veomni 0.1.12, 29 configs, transformers 5.9.0):"
echo "  -j 1:  without ruff ${raw1}; with ruff 0.13.2 ${ruff1}"
echo "  -j $J:  without ruff ${rawJ}; with ruff 0.13.2 ${ruffJ}"
# ruff's share, from pgci's own per-step timings (regen -v) of a -j 1 run
"$PGCI" regen -C "$ws" --tag v5.9.0 --upstream "dir:$tf" --ruff "$RUFF" -j 1 -v 2>&1 >/dev/null |
    sed -n 's/.*: eval \([0-9.]*\) ms, fetch \([0-9.]*\) ms, codegen \([0-9.]*\) ms, ruff \([0-9.]*\) ms, diff \([0-9.]*\) ms/\1 \2 \3 \4 \5/p' |
    awk '{ e += $1; f += $2; c += $3; r += $4; d += $5 }
         END { t = e + f + c + r + d; if (t == 0) exit;
               printf "  per step (-j 1): eval %.0f ms, fetch %.0f ms, codegen %.0f ms, ruff %.0f ms, diff %.0f ms: ruff %.0f%% of the time\n", e, f, c, r, d, 100 * r / t }'
