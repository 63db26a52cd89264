#!/usr/bin/env bash
# make corpus-test: pgci on real inputs from the package registries (transformers
# releases, the veomni distribution, ruff), downloaded into a cache outside the
# repository ($PGCI_CORPUS_CACHE, default ~/.cache/pgci-corpus). Runs every
# tests/corpus/NN-*.sh in order and fails when any fails.
set -u
cd "$(dirname "$0")/../.."
export PGCI_CORPUS_CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}
mkdir -p "$PGCI_CORPUS_CACHE"
rc=0
for s in tests/corpus/[0-9]*-*.sh; do
    [ -f "$s" ] || continue
    echo "== corpus: $(basename "$s" .sh)"
    bash "$s" || { echo "FAIL: $s"; rc=1; }
done
exit $rc
