#!/usr/bin/env bash
# Oracle: pgci's difflib (src/patchgen/difflib.c) against CPython's difflib.
#  1. 10,000 generated cases, random and adversarial (repeated lines, popular lines
#     past the autojunk threshold, empty sides, no final newline, every
#     str.splitlines terminator, trailing Unicode whitespace, files of thousands of
#     lines with small edits): unified_diff and the patchgen .diff form must be
#     byte-identical for every case.
#  2. When the corpus cache already holds transformers 5.9.0 and 5.16.1 (see
#     tests/corpus/30-difflib.sh, which downloads them), every models/*/modeling_*.py
#     from 5.9.0 to 5.16.1 as well (the corpus test also diffs them back). Nothing is
#     downloaded here.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${PGCI_BUILD:-build}
TOOL=$BUILD/tests/tools/difftool
[ -x "$TOOL" ] || make -s BUILD="$BUILD" "$TOOL"
python3 tests/oracle/difflib_oracle.py --tool "$TOOL" --cases "${PGCI_DIFFLIB_CASES:-10000}" \
    --keep "$BUILD/difflib-oracle-failures"

CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}
OLD=$CACHE/transformers-5.9.0
NEW=$CACHE/transformers-5.16.1
if [ -f "$OLD/.done" ] && [ -f "$NEW/.done" ]; then
    echo "corpus pairs: transformers 5.9.0 -> 5.16.1 modeling files"
    python3 tests/oracle/difflib_oracle.py --tool "$TOOL" --keep "$BUILD/difflib-oracle-failures" \
        --pairs "$OLD/transformers/models" "$NEW/transformers/models" --match 'modeling_*.py' \
        --one-way
else
    echo "corpus pairs not compared: transformers wheels not in $CACHE (make corpus-test fetches them)"
fi
