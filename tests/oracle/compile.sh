#!/usr/bin/env bash
# Oracle: pgci refuses a config CPython would not compile, and only those: its
# syntax checks (tests/tools/compile_check: the tokenizer and parser weighing of
# config_syntax.c, the compile-stage rules of config_compile.c, config_symtab.c and
# config_target.c) against CPython 3.11's compile() on every module of python3's
# standard library, its tests included (nonlocal, global, assignment expressions in
# comprehensions, async comprehensions, starred targets, match statements...). A
# module CPython compiles that a compile-stage rule or a target rule refuses fails
# the test (tests/oracle/compile_compare.py says what else it counts). Then modules
# of a few lines, each with what CPython refuses from its first byte on (where a
# scope and the module begin together): each refused at CPython's line and column
# with its message, or compiled by both.
set -eu
cd "$(dirname "$0")/../.."
build=${PGCI_BUILD:-build}
tool=$build/tests/tools/compile_check
[ -x "$tool" ] || { echo "missing $tool (built by make test)" >&2; exit 1; }
if ! python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    echo "skipped: the oracle is CPython 3.11 (python3 is $(python3 --version 2>&1))"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
find "$stdlib" -name '*.py' -not -path '*/site-packages/*' | sort >"$tmp/files"
echo "oracle: $(python3 --version), $(wc -l <"$tmp/files") modules under $stdlib"
python3 tests/oracle/compile_compare.py "$tool" "$tmp/files"

# one module a line (printf escapes)
i=0
while IFS= read -r text; do
    i=$((i + 1))
    printf -- "$text\\n" >"$tmp/case_$i.py"
    echo "$tmp/case_$i.py"
done >"$tmp/cases" <<'CASES'
def f():\n    nonlocal y\nnonlocal x
def f():\n    def g():\n        nonlocal x\n    nonlocal y
nonlocal x\ndef f(a, a):\n    pass
return 1\ndef f(a, a):\n    pass
f(a=1, a=2)\nf(a=1, 2)
def f(a, a):\n    pass\nx = [y := 1 for y in z]
del f()\nf(a=1, 2)
f() = 1
for f() in y:\n    pass
for (a, 1) in y:\n    pass
with a as f():\n    pass
def f[T]():\n    pass
from __future__ import annotations; import os; from __future__ import division
import os; from __future__ import annotations
"""doc"""\nfrom __future__ import annotations
b"doc"\nfrom __future__ import annotations
from __future__ import braces
from __future__ import nope
*a = *b
async def f():\n    return 2\n    yield 1
def f():\n    [[await x for x in y] for z in w]
CASES
echo "$i modules of a few lines"
python3 tests/oracle/compile_compare.py --exact "$tool" "$tmp/cases"
