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
# with its message, or compiled by both: among them a keyword where tree-sitter
# reads a name (`x.None`), f-strings, bytes and str literals concatenated, `f(a for
# a in b, c)` (config_parse.c).
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
x.None = 1
x.True = 1
x = a.None
def f(None): pass
lambda None: 1
def f(*, None): pass
f"{a!z}"
b'\\xff' 'a'
b'x' 'a'
'a' b'x'
f'a' b'x'
f(a for a in b, c)
import a as f()
import None
import a.None
import None.a
import a as None
from x import None
from None import x
from x import y as None
from x import (None)
from . import None
class None: pass
def None(): pass
global None
nonlocal None
match x:\n  case a.None: pass
def f(None=1): pass
x.None
x.None.y
x.if = 1
def f(if): pass
import if
x.await
x.async
def f(await): pass
print(x.None)
x = a.True.b
for x.None in y: pass
def f(a, None=1): pass
def f(a, *, b, None): pass
global a, None
x.None\ny.True
x.None\ny = 1 +
x.None\nf(a=1, 2)
x.None\nreturn 1
return 1\nx.None
x.None = 1; return
return; x.None = 1
lambda: (yield)\nx.None
f"{a!r }"
f"{a!z:>10}"
f"{a!z}" + 1
x = (f"{a!z}"\n)
f"{a!z}" f"x"
f"x" f"{a!z}"
f"{a:{b!z}}"
f"{a=!z}"
f"{a:{b:{c:{d}}}}"
f"{lambda x: 1}"
f"{*a}"
f"{b'a' 'b'}"
f"{a!z}"\nx.None
x.None\nf"{a!z}"
rf"{a!z}"
F"{a!z}"
f'''{a!z}'''
f"{a}" b"x"
b"x" f"{a}"
u"x" b"x"
b"x" u"y" b"z"
b"x" "y" + 1
(b"x"\n "y"\n)
f(b"x"\n "y", z)
x = b"x" "y" if c else d
b"x" "y"\nx.None
x = f"{*a}"
x = f"  {*a}"
x = f"{a!z}"  # c
b"x" "y"  # c
b"x" "y" \\\n + 1
b"x" "y";
x = 1; f"{a!z}"
x = f"{b'a' 'b'}"
x = f"  {b'a' 'b'}"
x = f"""\n  {*a}"""
x = f"{a!r }"
x = f"{a!z }"
x = f"{a!r  :x}"
x = f"{a!z:{b!z}}"
x = f"{a:{b:{c:{d}}}}" + f"{a!z}"
x = f"{x:{a:{b}}}"
def f():\n  return b"" ""
'''a\nb''' b''
f(a for a in b, c, d)
f(a for a in b for c in d, e)
f(a for a in b, c for c in d)
[a for a in b, c]
(a for a in b, c)
{a for a in b, c}
{a: 1 for a in b, c}
f(a for a in b,)
[a for a in b, c]\nx.None
x.None\n[a for a in b, c]
f(a for a in b, *c)
f(a for a in b, c=1)
f(a for a in b, **c)
f(a for a in b, c)\nx = 1 +
f(a async for a in b, c)
import a as f[0]
import a as f, b as g()
from a import b as f()
import a as f()\nx = 1
x = b"é"
x = "a" b"é"
x = f"{a!z}" "\\x4"
x = f"{'\\\\n'}"
x = f"{"a"}"
x = f'{x.None}'
x = f'{f"{a!z}"}'
x = f'{a["b" b"c"]}'
x = f"{d["k"]}"
x = f"{d['k']}" + f"{"a"}"
x = f"{x:{"a"}}"
x = f"a{"b"}c{d}"
x = f'''{'''a'''}'''
x = f"{x!r:{"a"}}"
f(f"{d["k"]}")
x = f"{d["k"]} {e}"
x = f"{a}{"b"}"
async = False
async.x = 1
x = async
await = 1
x = await
print(await)
class C:\n    async = False
f(async=1)
def f(async): pass
import async
x = nonlocal
CASES
echo "$i modules of a few lines"
python3 tests/oracle/compile_compare.py --exact "$tool" "$tmp/cases"
