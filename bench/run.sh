#!/usr/bin/env bash
# make bench: prints side-by-side timings of pgci against the reference tools on the
# same inputs. Never fails on time; a missing input is reported and skipped.
set -u
cd "$(dirname "$0")/.."
export PGCI_CORPUS_CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}
for s in bench/[0-9]*-*.sh; do
    [ -f "$s" ] || continue
    echo "== bench: $(basename "$s" .sh)"
    bash "$s" || echo "(bench $(basename "$s") did not complete)"
done
