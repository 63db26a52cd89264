#!/usr/bin/env bash
# Corpus: every models/*/modeling_*.py of transformers 5.9.0 diffed against its
# 5.16.1 version and back (a file only in one release against the empty text) by
# pgci and by Python's difflib; the unified diff and the patchgen .diff form must be
# byte-identical for every one.
set -eu
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
BUILD=${PGCI_BUILD:-build}
TOOL=$BUILD/tests/tools/difftool
[ -x "$TOOL" ] || make -s BUILD="$BUILD" "$TOOL"
OLD=$(corpus_wheel transformers 5.9.0)
NEW=$(corpus_wheel transformers 5.16.1)
python3 tests/oracle/difflib_oracle.py --tool "$TOOL" --keep "$BUILD/difflib-corpus-failures" \
    --pairs "$OLD/transformers/models" "$NEW/transformers/models" --match 'modeling_*.py'
