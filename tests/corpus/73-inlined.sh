#!/usr/bin/env bash
# One-use temporaries written in place (checks/inlined.c): the survey does not call
# an upstream body changed when a release only folded a temporary into the
# statement after it, or split one out (docs/survey.md, "A temporary folded in
# place is not a body change"). The rule decides when that keeps Python's order of
# evaluation, so it is held against an independent reading: on every function of
# every modeling module of the transformers 5.2.0 and 5.24.0 wheels, CPython's ast
# folds the same temporaries (tests/corpus/inlined_oracle.py, written from the
# rule, not from the C) and pgci's rewritten text parses to the tree Python folded
# (tests/tools/inlined_cmp, which also holds the rewrite from the module's tree
# equal to the one from the text alone). Any disagreement fails; a run that folded
# fewer than a thousand definitions would prove nothing and fails too.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
CMP=$repo/${PGCI_BUILD:-build}/tests/tools/inlined_cmp
[ -x "$CMP" ] || { echo "73-inlined: $CMP not built (make corpus-test builds it)" >&2; exit 1; }
rc=0
for v in 5.2.0 5.24.0; do
    tf=$(corpus_wheel transformers $v) || exit 1
    out=$(python3 tests/corpus/inlined_oracle.py "$CMP" "$tf"/transformers/models/*/modeling_*.py) || rc=1
    echo "transformers $v: $out"
    folded=$(printf '%s\n' "$out" | sed -n 's/^[0-9]* definitions, \([0-9]*\) folded.*/\1/p')
    [ "${folded:-0}" -ge 1000 ] || { echo "FAIL: only ${folded:-0} definitions folded at $v"; rc=1; }
done
[ $rc = 0 ] && echo "73-inlined: every fold as CPython's ast folds it"
exit $rc
