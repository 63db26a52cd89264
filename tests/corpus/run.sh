#!/usr/bin/env bash
# make corpus-test: pgci on real inputs from the package registries (transformers
# releases, the veomni distribution, ruff), downloaded into a cache outside the
# repository ($PGCI_CORPUS_CACHE, default ~/.cache/pgci-corpus). Runs every
# tests/corpus/NN-*.sh in order and fails when any fails.
set -u
cd "$(dirname "$0")/../.."
export PGCI_CORPUS_CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}
mkdir -p "$PGCI_CORPUS_CACHE"
# One step that hangs (a download that never ends) fails after this long instead
# of using up CI's time; each step says how long it took.
limit=${PGCI_CORPUS_TIMEOUT:-1200}
rc=0
for s in tests/corpus/[0-9]*-*.sh; do
    [ -f "$s" ] || continue
    echo "== corpus: $(basename "$s" .sh)"
    t0=$SECONDS
    st=0
    timeout -k 10 "$limit" bash "$s" || st=$?
    if [ "$st" -eq 0 ]; then
        echo "   ($((SECONDS - t0))s)"
    else
        why=""
        [ "$st" -eq 124 ] || [ "$st" -eq 137 ] && why=" (timed out after ${limit}s)"
        echo "FAIL: $s$why"
        rc=1
    fi
done
exit $rc
