#!/usr/bin/env bash
# The layering of docs/architecture.md holds in the tree: no library directory
# includes src/cmd/, every directory includes only those its row of the table lists,
# and the directory-level include graph has no cycle (tests/tools/include_graph.py).
# No function in src/, checks/, reports/ is over 120 lines (the house rule; kernels/
# are exempt). Then the checker itself, on copies of the tree with one include
# added: a report that includes cmd/cmd.h, a check that includes the pipeline, and a
# cycle the table would allow (core <-> py) must each fail with a line naming the file.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgci-e2e-arch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
graph=tests/tools/include_graph.py

python3 "$graph" . > "$tmp/out" || { cat "$tmp/out" >&2; fail "the tree breaks docs/architecture.md"; }
grep -q '^reports -> pipeline' "$tmp/out" || fail "reports should render the pipeline's run record"
! grep -q -- '-> cmd ' <(grep -v '^main ' "$tmp/out") || fail "a library includes src/cmd/"

# function length: from the opening brace in column 0 to the closing one
long=$(for f in src/*/*.c src/*.c checks/*.c reports/*.c; do
    awk -v F="$f" '/^[A-Za-z].*\(/ { name = $0 } /^\{/ { s = NR } /^\}/ { if (s && NR - s > 120) print F ": " NR - s " lines: " name; s = 0 }' "$f"
done)
[ -z "$long" ] || fail "functions over 120 lines:"$'\n'"$long"

# a copy of the sources and the document, to break on purpose
copy() {
    rm -rf "$tmp/t"
    mkdir -p "$tmp/t/docs"
    cp -r src checks reports kernels "$tmp/t/"
    cp docs/architecture.md "$tmp/t/docs/"
}
expect_fail() { # what, expected line
    if python3 "$graph" "$tmp/t" > "$tmp/bad"; then
        fail "$1: the checker passed"
    fi
    grep -qF -- "$2" "$tmp/bad" || { cat "$tmp/bad" >&2; fail "$1: no line '$2'"; }
}

copy
printf '#include "cmd/cmd.h"\n' >> "$tmp/t/reports/sarif.c"
expect_fail "reports includes cmd" 'reports/sarif.c: #include "cmd/cmd.h": a library directory includes src/cmd/'

copy
printf '#include "pipeline/gate.h"\n' >> "$tmp/t/checks/drift.c"
expect_fail "checks includes pipeline" 'checks/drift.c: #include "pipeline/gate.h": checks may not include src/pipeline'
expect_fail "checks includes pipeline" 'directory include cycle: checks -> pipeline -> checks'

copy
sed -i 's/^| `src\/core` *|\(.*\)| - *|$/| `src\/core` |\1| py |/' "$tmp/t/docs/architecture.md"
grep -q '^| `src/core` .*| py |$' "$tmp/t/docs/architecture.md" || fail "the table row of src/core not found"
printf '#include "py/py.h"\n' >> "$tmp/t/src/core/vec.h"
expect_fail "core <-> py" 'directory include cycle: core -> py -> core'
if grep -q 'may not include' "$tmp/bad"; then fail "core -> py was allowed by the table"; fi

echo "architecture: ok"
