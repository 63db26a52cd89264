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
import importlib, os, sys, types
pg, ws, up = sys.argv[1:4]
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
            ModelingCodeGenerator(c).generate()
PY
n=$(find fixtures/patchgen -name '*_patch_gen_config.py' | wc -l)
t0=$(now)
for _ in $(seq "$RUNS"); do
    python3 "$tmp/gen.py" "$tmp/pg" "$repo/fixtures/patchgen" "$repo/fixtures/upstream/v1.0.0"
done
t1=$(now)
for _ in $(seq "$RUNS"); do
    "$PGCI" regen -C fixtures/patchgen --no-ruff -o "$tmp/o" -q -j 1 || exit 1
done
t2=$(now)
py=$(secs "$t0" "$t1")
pc=$(secs "$t1" "$t2")
echo "fixture configs ($n, raw codegen, mean of $RUNS runs, one process each):"
echo "  patchgen 0.1.11 (python3): ${py}s"
echo "  pgci regen --no-ruff -j1:  ${pc}s   ($(echo "scale=1; $py / $pc" | bc)x faster)"

tf=$(corpus_wheel transformers 5.9.0) || { echo "no transformers 5.9.0: corpus part skipped"; exit 0; }
veomni=$(corpus_wheel veomni 0.1.12) || { echo "no veomni 0.1.12: corpus part skipped"; exit 0; }
veomni_workspace "$tmp/ws" "$veomni"
J=$(nproc)
corpus() { # ARGS... -> wall seconds of one run
    local a b
    a=$(now)
    "$PGCI" regen -C "$tmp/ws" --tag v5.9.0 --upstream "dir:$tf" -q "$@" >/dev/null 2>&1
    b=$(now)
    echo "scale=3; ($b - $a) / 1" | bc | sed 's/^\./0./'
}
"$PGCI" regen -C "$tmp/ws" --tag v5.9.0 --upstream "dir:$tf" -q --no-ruff >/dev/null 2>&1 # warm the page cache
raw1=$(corpus --no-ruff -j 1)
ruff1=$(corpus --ruff "$RUFF" -j 1)
rawJ=$(corpus --no-ruff -j "$J")
ruffJ=$(corpus --ruff "$RUFF" -j "$J")
echo "real corpus (veomni 0.1.12, 29 configs, transformers 5.9.0):"
echo "  -j 1:  without ruff ${raw1}s, with ruff 0.13.2 ${ruff1}s (ruff's share $(echo "scale=0; 100 * ($ruff1 - $raw1) / $ruff1" | bc)%)"
echo "  -j $J:  without ruff ${rawJ}s, with ruff 0.13.2 ${ruffJ}s"
