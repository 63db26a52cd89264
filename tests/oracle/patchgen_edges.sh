#!/usr/bin/env bash
# The patchgen oracle on the generator's corners (tests/oracle/patchgen_edges.py):
# the real patchgen (veomni 0.1.11, as in tests/oracle/patchgen.sh) and
# `pgci regen --no-ruff` on the same hand-written configs and upstream modules;
# the raw outputs must be byte-identical. (Raw only: several cases are not
# ruff-clean on purpose.)
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
# every incremental re-parse of a class (src/py/reparse.c) is checked against a fresh parse
export PGCI_VERIFY_REPARSE=1
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PGCI=${PGCI:-$repo/bin/pgci}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
corpus_patchgen "$tmp/pg" || exit 1
python3 tests/oracle/patchgen_edges.py "$tmp/pg" "$tmp/ws"
"$PGCI" regen -C "$tmp/ws" --tag v9.9.9 --upstream "dir:$tmp/ws/upstream" --no-ruff -o "$tmp/pgci" -q -j 2
n=0
bad=0
for f in "$tmp/ws/expected"/*.py; do
    n=$((n + 1))
    if cmp -s "$f" "$tmp/pgci/$(basename "$f")"; then
        echo "ok    $(basename "$f" .py)"
    else
        bad=$((bad + 1))
        echo "DIFF  $(basename "$f" .py)"
        diff "$f" "$tmp/pgci/$(basename "$f")" | head -20 || true
    fi
done
echo "$((n - bad))/$n edge cases byte-identical with patchgen (raw output)"
[ "$bad" -eq 0 ] && [ "$n" -gt 0 ]
