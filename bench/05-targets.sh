#!/usr/bin/env bash
# make bench, first: issue 18's table (bench/targets.py) - pgci's regeneration, gate
# and survey on the real VeOmni tree (veomni 0.1.12's 29 configs, transformers 5.9.0
# and 5.16.1) side by side with CPython's parser, the real patchgen, ruff alone and
# griffe on the same inputs; medians of $PGCI_BENCH_RUNS runs (default 5) and the
# ratio against each target. Prints only; never fails on time.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
GRIFFE=2.4.1
tf=$(corpus_wheel transformers 5.9.0) || { echo "no transformers 5.9.0: skipped"; exit 0; }
tf16=$(corpus_wheel transformers 5.16.1) || { echo "no transformers 5.16.1: skipped"; exit 0; }
ws=$(veomni_sdist 0.1.12) || { echo "no veomni 0.1.12 sdist: skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the real patchgen's generator (veomni 0.1.11's, the one pgci reproduces), alone
pg=-
if wheel=$(corpus_wheel veomni 0.1.11); then
    mkdir -p "$tmp/pg/veomni"
    : >"$tmp/pg/veomni/__init__.py"
    cp -r "$wheel/veomni/patchgen" "$tmp/pg/veomni/"
    printf '%s\n' "import runpy, sys" "sys.argv[1:1] = ['$tmp/pg']" \
        "runpy.run_path('$repo/tests/corpus/patchgen_stubbed.py', run_name='__main__')" >"$tmp/patchgen.py"
    pg=$tmp/patchgen.py
fi
# griffe (pinned) from the registry, into the corpus cache
gpy=-
venv=$PGCI_CORPUS_CACHE/griffe-$GRIFFE
if [ -x "$venv/bin/python" ] || { python3 -m venv "$venv" &&
    "$venv/bin/pip" install --quiet "griffe==$GRIFFE" >/dev/null 2>&1; }; then
    gpy=$venv/bin/python
fi
python3 bench/targets.py "$PGCI" "$RUFF" "$tf" "$tf16" "$ws" "$gpy" "${PGCI_BENCH_RUNS:-5}" "$pg"
