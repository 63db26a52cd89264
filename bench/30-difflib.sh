#!/usr/bin/env bash
# Bench: pgci's difflib against Python's difflib on the same inputs, one after the
# other (wall time, ratio): the transformers 5.9.0 -> 5.16.1 modeling file pairs,
# then the oracle's 10,000 generated cases. Both outputs are also checked equal.
set -u
cd "$(dirname "$0")/.."
. tests/corpus/lib.sh
BUILD=${PGCI_BUILD:-build}
TOOL=$BUILD/tests/tools/difftool
[ -x "$TOOL" ] || make -s BUILD="$BUILD" "$TOOL" || exit 1
if OLD=$(corpus_wheel transformers 5.9.0) && NEW=$(corpus_wheel transformers 5.16.1); then
    echo "-- transformers 5.9.0 -> 5.16.1, models/*/modeling_*.py"
    python3 tests/oracle/difflib_oracle.py --tool "$TOOL" --bench \
        --pairs "$OLD/transformers/models" "$NEW/transformers/models" --match 'modeling_*.py'
else
    echo "-- corpus pairs skipped: transformers wheels unavailable"
fi
echo "-- 10,000 generated cases"
python3 tests/oracle/difflib_oracle.py --tool "$TOOL" --bench --cases 10000
