#!/usr/bin/env bash
# Oracle: pgci's Python string-literal decoder against CPython itself. A generator
# builds thousands of literals (every prefix and case, all quote styles, every
# escape, octal/hex/unicode edge cases, line continuations, CRLF, f-string braces,
# implicit concatenation, malformed ones) and asks ast.parse for each value; pgci's
# decoder must produce the same bytes, fail where CPython fails, and refuse (not
# guess) f-strings with fields and \N{...} escapes. Runs both entry points: the
# literal text and the tree-sitter node.
set -eu
cd "$(dirname "$0")/../.."
build=${PGCI_BUILD:-build}
helper=$build/tools/pystr_decode
[ -x "$helper" ] || { echo "missing $helper (built by make test / make unit)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=${PYSTR_ORACLE_COUNT:-4000}
for seed in 1 2; do
    python3 tests/oracle/pystr_gen.py "$count" "$seed" "$tmp/lits" "$tmp/verdicts"
    for mode in --text --node; do
        "$helper" "$mode" <"$tmp/lits" >"$tmp/out"
        python3 tests/oracle/pystr_compare.py "$tmp/verdicts" "seed $seed $mode" "$tmp/out"
    done
done
