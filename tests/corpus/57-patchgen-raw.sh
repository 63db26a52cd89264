#!/usr/bin/env bash
# The real patchgen on the real tree: veomni 0.1.11's generator (the one pgci
# reproduces, from the registry) run over veomni 0.1.12's 29 configs at
# transformers 5.9.0, the configs' heavy imports (torch, transformers, VeOmni's
# runtime) stubbed by tests/corpus/patchgen_stubbed.py, against `pgci regen
# --no-ruff` (raw codegen, with and without the result cache): every raw output
# byte-identical.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
export PYTHONDONTWRITEBYTECODE=1
# every incremental re-parse of a class (src/py/reparse.c) is checked against a fresh parse
export PGCI_VERIFY_REPARSE=1
tf=$(corpus_wheel transformers 5.9.0) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
wheel=$(corpus_wheel veomni 0.1.11) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg
mkdir -p "$tmp/pg/veomni"
: >"$tmp/pg/veomni/__init__.py"
cp -r "$wheel/veomni/patchgen" "$tmp/pg/veomni/"
python3 tests/corpus/patchgen_stubbed.py "$tmp/pg" "$ws" "$tf" "$tmp/patchgen" >"$tmp/n" 2>"$tmp/err" ||
    { echo "FAIL: the real patchgen did not run:"; tail -5 "$tmp/err"; exit 1; }
status=0
for run in --no-cache cold warm; do
    arg=; [ "$run" = --no-cache ] && arg=--no-cache
    rm -rf "$tmp/pgci"
    "$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --no-ruff $arg -o "$tmp/pgci" --write -q ||
        { echo "FAIL: pgci regen"; exit 1; }
    ok=0 n=0
    for f in "$tmp"/patchgen/*.py; do
        n=$((n + 1))
        cmp -s "$f" "$tmp/pgci/$(basename "$f")" && ok=$((ok + 1))
    done
    echo "real patchgen vs pgci regen --no-ruff (${run#--}): $ok/$n raw outputs byte-identical"
    [ "$ok" = "$n" ] && [ "$n" = "$(cat "$tmp/n")" ] && [ "$n" -gt 0 ] || status=1
done
exit $status
