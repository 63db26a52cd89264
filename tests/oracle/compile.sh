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
# reads a name (`x.None`), `__debug__` bound, f-strings, bytes and str literals
# concatenated, `f(a for a in b, c)`, an assignment expression where the grammar
# takes none (`return y := 1`) or on an operand that is no name (`(a.b := 1)`)
# (config_parse.c, config_debug.c, config_target.c), characters no name may hold
# (a zero-width space tree-sitter skips as blank, `€`: pytok.c), a string's escape
# its codec refuses (`'\x1'`, a docstring's `C:\users`, the 70th of a run of
# literals: config_parse.c), an annotated assignment as another's value, Python
# 2's `raise E, v` and a call's comma with no argument `f(,)` (config_compile.c).
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
__debug__ = 1
del __debug__
def f(__debug__): pass
f(__debug__=1)
for __debug__ in x: pass
a.__debug__ = 1
import __debug__
from x import y as __debug__
class C: __debug__ = 1
with a as __debug__: pass
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
__debug__ += 1
__debug__: int = 1
__debug__: int
x.__debug__: int = 1
(__debug__ := 1)
[__debug__ := 1 for x in y]
[x for __debug__ in y]
def __debug__(): pass
class __debug__: pass
async def __debug__(): pass
lambda __debug__: 1
lambda *__debug__: 1
lambda **__debug__: 1
lambda *, __debug__: 1
lambda a=1, __debug__=2: 1
def f(*, __debug__): pass
def f(**__debug__): pass
def f(*__debug__): pass
def f(a, /, __debug__): pass
def f(__debug__: int = 1): pass
import x as __debug__
import __debug__.a
from x import __debug__
from x import (a, __debug__)
try:\n  pass\nexcept E as __debug__: pass
match x:\n  case __debug__: pass
match x:\n  case [__debug__]: pass
match x:\n  case {**__debug__}: pass
match x:\n  case [*__debug__]: pass
match x:\n  case C(a=__debug__): pass
match x:\n  case C(__debug__=1): pass
match x:\n  case a as __debug__: pass
del (__debug__)
del [a, __debug__]
a, __debug__ = 1, 2
[a, *__debug__] = x
(a, b.__debug__) = x
x = __debug__ = 1
with a as (b, __debug__): pass
with a as b.__debug__: pass
for x.__debug__ in y: pass
f(x, __debug__=1)
f(a=1, __debug__=2)
class C(__debug__=1): pass
class C(metaclass=1, __debug__=2): pass
def f():\n  __debug__ = 1
class C:\n  def f(self):\n    self.__debug__ = 1
x = 1\n__debug__ = 1
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
__debug__ = 1\nx.None
x.None\n__debug__ = 1
f(__debug__=1, a=2, a=3)
@d\ndef f(__debug__): pass
@d\ndef __debug__(): pass
@d(a=1, a=1)\ndef f(__debug__): pass
def __debug__():\n  return\n  x = 1\n  __debug__ = 1
class __debug__:\n  x = 1\n  __debug__ = 1
async def f():\n  async for __debug__ in x: pass
x.__debug__: int
(__debug__): int
(__debug__): int = 1
(a\n .__debug__) = 1
(a.\n __debug__) = 1
a.f(__debug__=1)
a.f(\n__debug__=1)
import a\na.f(__debug__=1)
f(\n__debug__=1)
lambda: lambda __debug__: 1
x = [lambda __debug__: 1 for y in z]
[x for x in __debug__.f(__debug__=1)]
[__debug__ for x in y for __debug__ in z]
{__debug__: 1 for __debug__ in z}
(__debug__ for x in y if (__debug__ := 2))
try:\n  pass\nexcept* E as __debug__: pass
match x:\n  case {"a": 1, **__debug__}: pass
match x:\n  case C(a, b=__debug__): pass
match x:\n  case (1 | __debug__): pass
match x:\n  case C(__debug__=1, __debug__=2): pass
match x:\n  case __debug__ if __debug__: pass
with a as __debug__, b as c: pass
with (a as __debug__): pass
__debug__ = __debug__ = 1
del a, __debug__
del a.b, (c, [__debug__])
for [a, (b, __debug__)] in c: pass
a.f(g(b=1,b=1), x=1, x=2)
f(g(b=1,b=1), x=1, x=2)
a.f(g(b=1,b=1), __debug__=1)
f(g(b=1,b=1), __debug__=1)
(a\n.f)(__debug__=1)
[f(a=1,a=1) for __debug__ in x]
def f(a=g(b=1,b=1), __debug__=1): pass
lambda a=g(b=1,b=1), __debug__=1: 1
for __debug__ in x: f(a=1, a=1)
def f():\n  import __debug__
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
(x.__debug__): int
(x\n.__debug__): int
y = 1; (x.__debug__): int
x.y.__debug__: int
(x\n.__debug__): int = 1
(__debug__) += 1
__debug__ += 1; y = 1
try:\n  pass\nexcept E as __debug__:\n  x = 1\n  y = 2
@d\nclass __debug__: pass
class C:\n  @d\n  def __debug__(self): pass
def f():\n  class __debug__: pass
with a as b, c as __debug__: pass
async def f():\n  async with a as __debug__: pass
import a, b as __debug__, c
from a import (b,\n __debug__)
def f(a, /, __debug__, *, b): pass
x = lambda: 1\n__debug__ = 1
match x:\n  case {"a": [b, c], **__debug__}: pass
match x:\n  case [1] as __debug__: pass
match x:\n  case C(a, __debug__): pass
match x:\n  case 1 | 2:\n    pass\n  case __debug__: pass
for x in y:\n  pass\nelse:\n  __debug__ = 1
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
match x:\n  case [a, a]: pass
match x:\n  case [a, *a]: pass
match x:\n  case {"k": a, **a}: pass
match x:\n  case C(a, b=a): pass
match x:\n  case [a] as a: pass
match x:\n  case C(a=1, a=2): pass
match x:\n  case C(a=1, b=2, a=3): pass
match x:\n  case C(a=b, a=b): pass
match x:\n  case [a, __debug__, a]: pass
match x:\n  case {"k": [a, b], **a}: pass
match x:\n  case [a, [b, a]]: pass
x = "\\x4g"
x = "ab\\x4"
x = "é\\x4"
x = "\\u12"
x = "\\U1234"
x = "\\U00110000"
x = "\\N"
x = "\\N{"
x = "\\Nx"
x = b"\\x4g"
x = b"ab\\x"
x = "\\x4" "a"
x = f"a\\x4{b}"
x = f"{b}\\x4"
x = "\\x4" b"a"
x = b"é" "a"
x = "\\x"
x = f"{x:{y}\\x4}"
x = f"{{}}\\x4"
x.None\n  y = 1
f"{a!z}"\n  y = 1
x.None\n\ty = 1\n        z = 2
def f():\n  x.None\n y = 1
x := 1
a = b := 1
return y := 1
def f():\n  return y := 1
def f():\n  return (y := 1)
f(a=b := 1)
[x for x in y if a := 1]
{a: b := 1}
{a := 1: b}
{x: 1, a := 1: b}
{a := 1: b for x in y}
lambda: x := 1
assert x := 1
assert x, y := 1
with x := 1: pass
with (x := 1): pass
with (x := 1, b): pass
with (x := 1) as c: pass
for x in y := z: pass
def f():\n  yield x := 1
def f():\n  x = yield y := 1
a[1:b := 2]
a[b := 2]
a[b := 2, c]
a[b := 1:2]
a[c, b := 1:2]
f(*a := 1)
f(**a := 1)
print(a, b := 1)
if a := 1: pass
while a := 1: pass
if not a := 1: pass
while lambda: a := 1: pass
x = 1 if a := 2 else 3
x = (1 if a := 2 else 3)
x = 1 if c else a := 2
[1 if c else a := 2]
[a if b := c else d]
not a := 1
x = not a := 1
x = a or b := 1
[a or b := 1]
(a or b := 1)
f(not a := 1)
f(lambda: a := 1)
(not a := 1 for x in y)
[not a := 1 for x in y]
a := b := 1
raise x := 1
del x := 1
x: int = y := 1
x += y := 1
a, b := 1
a, not b := 1
lambda: a := 1, 2
(a, b := 1)
[a, b := 1]
f(x for x in y := z)
[x for x in y := z]
[x := 1 for y in z]
match x := 1:\n  case 1: pass
match x:\n  case 1 if a := 1: pass
match x:\n  case 1 if not a := 1: pass
match not x := 1:\n  case 1: pass
x = {a := 1, b}
def f(a=b := 1): pass
def f(a=(b := 1)): pass
def f() -> a := 1: pass
@a := b\ndef f(): pass
@not a := b\ndef f(): pass
x = lambda: (y := 1)
f"{[a := 1]}"
f"{f(a=b := 1)}"
f"{[not a := 1]}"
x = f"{(not a := 1)}"
(a := 1 if c else d)
[a := 1 if c else d]
f(a := 1 if c else d)
if a := 1 if c else d: pass
(a := 1 if b else c if d else e)
(not a := 1 if b else c)
(lambda: a := 1 if b else c)
x = 1 if (a := 2 if b else c) else 3
(x := 1 if a else 2 for y in z)
f(x := 1 if a else 2 for y in z)
x[a := 1 if b else c]
x[a := 1 if b else c:2]
{a := 1 if b else c}
{a := 1 if b else c: 2}
{1: 2, a := 1 if b else c: 2}
return a := 1 if b else c
x = a := 1 if b else c
with (not a := 1, b): pass
with (not a := 1) as c: pass
with (a := 1 if b else c, d): pass
x[not a := 2:]
x[not a := 2:1, 3]
a[lambda: b := 1:2]
(None := 1)
(a.b := 1)
(a[0] := 1)
[x.y := 1 for x in y]
x = (1 := 2)
if a.b := 1: pass
(f() := 1)
((a) := 1)
f(a.b := 1)
(a := 1 := 2)
f(a=1 for x in y)
(True := 1)
(False := 1)
(... := 1)
(1.5 := 1)
("x" "y" := 1)
(f"x" := 1)
(-a := 1)
(a ** b := 1)
(a < b := 1)
(await a := 1)
((a, b) := 1)
([a, b] := 1)
((x for x in y) := 1)
({a: b} := 1)
({a} := 1)
([x for x in y] := 1)
(((a)) := 1)
((a.b) := 1)
(a[0].b := 1)
(a.b \\\n := 1)
(a # c\n .b := 1)
(a.b\n := 1)
a.b := 1
x = a.b := 1
x = (a.b := 1)
return a.b := 1
def f():\n  return (a.b := 1)
lambda: a.b := 1
(lambda: a.b := 1)
x = 1 if a.b := 2 else 3
(1 if a.b := 2 else 3)
(a.b := 1 if c else d)
(a.b := 1, 2)
(1, a.b := 1)
[1, a.b := 1]
{1, a.b := 1}
{a.b := 1: 2}
{1: 2, a.b := 1: 2}
{1: a.b := 2}
{a.b := 1 for x in y}
f(x, a.b := 1)
f(a.b := 1, x)
f(*a.b := 1)
f((a.b := 1))
print(a.b := 1)
f(x for x in y if a.b := 1)
f(x for x in a.b := 1)
f(a.b := 1 for x in y)
g(f(a.b := 1))
f[a.b := 1]
f(a)[b.c := 1]
x[1:a.b := 2]
x[a.b := 2:1]
x[a.b := 2:]
x[-a := 2:1]
x[a.b := 1, 2]
while a.b := 1: pass
while (a.b) := 1: pass
if (a.b) := 1: pass
if x: pass\nelif f() := 1: pass
(a.b := c := 1)
(a := b.c := 1)
(a := 1 := 2 := 3)
(a.b := 1 := 2)
f(a := 1 := 2)
(a := 1 if b else c := 2)
[a := 1 if b else c := 2]
f(a := 1 if b else c := 2)
(a := 1 if b else c.d := 2)
(a := 1 if b else not c := 2)
(a := 1 if b else (c := 2))
with (a.b := 1): pass
with (a.b := 1, c): pass
with (a.b := 1) as c: pass
with (a, b.c := 1): pass
with a, (b.c := 1): pass
with (-a := 1, b): pass
match a.b := 1:\n  case 1: pass
match (a.b := 1):\n  case 1: pass
match x:\n  case 1 if a.b := 1: pass
@a.b := c\ndef f(): pass
@(a.b := c)\ndef f(): pass
assert (a.b := 1)
assert a.b := 1
del (a.b := 1)
for x in (a.b := 1): pass
(x for x in (a.b := 1))
[x for x in y if (a.b := 1)]
[x for x in y if a.b := 1]
(a.b := 1)\nx.None
(a.b := 1)\nx = 1 +
x = 1; (a.b := 1)
(a.b, c := 1)
(match := 1)
f(a=1 for x in y, b)
f(x, a=1 for x in y)
f(a=1 for x in y if z)
f(a = 1 for x in y)
f(a=1\n  for x in y)
f(a=1 if b else c for x in y)
f(a=lambda: 1 for x in y)
f(a=b for x in y for z in w)
f(a=1 async for x in y)
f(*a, b=1 for x in y)
f(**k, a=1 for x in y)
f(a=1, b=2 for x in y)
class C(a=1 for x in y): pass
g(f(a=1 for x in y))
f(x for x in y, a=1 for z in w)
f(a=1 for x in y)(b=2)
f(a=(1 for x in y))
f(a=[1 for x in y])
f(a.b=1 for x in y)
f(None=1 for x in y)
f(a, *b, c := 1)
class C(a := 1): pass
class C(x=a := 1): pass
x = [a := 1]
print(x, y := 2, z=3)
x = yield a := 1
def f():\n  x = yield a := 1
lambda a=b := 1: 0
x = lambda: a := 1
a[lambda: b := 1]
{**a := 1}
{a: 1, **b := 1}
f(a)(b := 1)
x = [y for y in z if (a := 1)]
f(not a := 1 for x in y)
{x: 1, **y, a := 1: b}
{x: 1, not a := 1: b}
{x: 1, lambda: a := 1: b}
{not a := 1: b}
{not a := 1: b for x in y}
def f() -> not a := 1: pass
del a, x := 1
del (x := 1)
x: a := 1
f(x for x in y)(not a := 1 for z in w)
return y := 1\ndef f(a, a): pass
y := 1\nx.None
[f(a=1,a=1) for x in y for __debug__ in z]
[f(a=1,a=1) for __debug__ in y]
[f(a=1,a=1) for x in y if g(b=1,b=1)]
[x for x in f(a=1,a=1) for __debug__ in z]
[x for x in f(a=1,a=1) if g(b=1,b=1)]
[x for __debug__ in f(a=1,a=1)]
{f(a=1,a=1): g(b=1,b=1) for x in y}
class C(B(a=1, a=1)):\n  __debug__ = 1
class C(B(a=1, a=1), __debug__=1):\n  pass
class C(B(a=1, a=1)):\n  x = f(b=1, b=1)
@d(a=1, a=1)\nclass C:\n  __debug__ = 1
@d(a=1, a=1)\nclass C(B(b=1,b=1)):\n  pass
class __debug__(B(a=1, a=1)):\n  pass
class C(B(a=1, a=1)):\n  def __debug__(self): pass
def f(a=g(b=1,b=1)):\n  __debug__ = 1
class C(__debug__=1):\n  x = f(a=1,a=1)
class C(a=1, a=1):\n  x = f(b=1,b=1)
class C(x=f(a=1, a=1), __debug__=1):\n  pass
class C(x=f(a=1, a=1), y=1, y=2):\n  pass
class __debug__:\n  x = f(b=1,b=1)
class __debug__(f(a=1,a=1)): pass
[x for x in f(a=1,a=1) for y in g(b=1, b=1)]
[f(a=1,a=1) for x in y if g(b=1, b=1)]
[f(a=1,a=1) for x in g(b=1,b=1)]
{f(a=1,a=1): 1 for x in g(b=1,b=1)}
(f(a=1,a=1) for x in g(b=1,b=1))
[[f(a=1,a=1) for y in x] for x in g(b=1,b=1)]
[f(c=1,c=1) for x in [g(a=1,a=1) for y in z for __debug__ in w]]
[x for x in y for z in f(a=1,a=1) if g(b=1,b=1)]
[x for x in y if g(b=1,b=1) for z in f(a=1,a=1)]
[f(a=1,a=1) for x in y]\nclass C(B(b=1,b=1)):\n  __debug__ = 1
class C(B(b=1,b=1)):\n  __debug__ = 1\ny = f(a=1,a=1)
class C([f(a=1,a=1) for x in y for __debug__ in z]):\n  pass
[f(g(b=1,b=1), a=1, a=1) for x in y]
[(__debug__ := f(a=1,a=1)) for x in y]
[lambda __debug__: f(a=1,a=1) for x in y]
[x for x in (lambda: f(a=1,a=1))() for __debug__ in z]
x = [f(a=1,a=1) for y in z]; __debug__ = 1
[f(a=1,a=1) for x in y for z in [g(b=1,b=1) for w in v for __debug__ in u]]
[[g(b=1,b=1) for w in v for __debug__ in u] for x in f(a=1,a=1)]
class C(B([f(a=1,a=1) for x in g(b=1,b=1)])):\n  pass
f"{}"
x = f"{ }" + 1
f"{a!}"
f"{=}"
f"{!r}"
f"{:x}"
f"{ = }"
f"{a)}"
f"{a b}"
f"{a +}"
f"x" f"{}"
f"{a:{}}"
x = f"{}"\ny = 1 +
f"{a!z} {}"
f"{} {a!z}"
b"x" f"{}"
f"{x.None} {}"
f"{a.}"
f"{a[}"
f"{a(}"
f"""{\n}"""
f"{a +\n}"
f'{"a" "b" 1}'
f"{a = }"
f"{yield}"
def f():\n  return f"{}"
f"{{}}{}"
f"{a:{b}} {}"
x = (f"{}"\n)
f"{*}"
f"{a if b}"
f"{not}"
f"{1 +}" "x"
f"{a b c}"
f"{a if b else}"
f"{a, b c}"
f"{[a b]}"
f"{a(b c)}"
x = f"{a b}"
f"{a!r} {b c}"
f"{a:{b c}}"
f"{a} {b if c}"
f"{a b!r}"
f"{a b:x}"
f"{1 2}"
f"{a + b c}"
f"{(a b)}"
f(None=1)
f(True=1)
f(False=1)
f(a=1, None=2)
f(x for x in y)(None=1)
f(a.b=1)
f(a[0]=1)
f(1=2)
f("a"=1)
f(a + b=1)
f(a, b.c=1, d)
class C(None=1): pass
class C(a.b=1): pass
x = f(\n  None=1)
f(g(None=1))
None: int = 1
True: int = 1
f(): int = 1
1: int = 1
"a": int
a + b: int
(None): int = 1
a.b: int = 1
x = 1; None: int
lambda None=1: 0
print(None=1)
f(if=1)
f(a, None=1, b)
f(a=1, b.c=2)
f(x, (a)=1)
f(*a, None=1)
f(**k, a.b=1)
x[f(None=1)]
f(None=1)\nx.None
x.None\nf(None=1)
[a]: int
(a, b): int
a, b: int
(a): int
((a, b)): int
(a,): int
((a)): int = 1
[a, b]: int = 1
*a: int
(*a): int
(): int
[]: int
x = 1; [a]: int
def f():\n    (a, b): int = 1
[a]: int\n(__debug__) = 1
__debug__ = 1\n[a]: int
(a, *b): int
a, : int
class C:\n    [x]: int
a[0]: int = 1
(a.b): int
lambda: 1: int
for x in y: [a]: int
if a=1: pass
elif_x = 1\nif x: pass\nelif a=1: pass
while a = 1:\n    pass
if a.b=1: pass
if f()=1: pass
if (a)=1: pass
if a=1 and b: pass
if not a=1: pass
if a+b=1: pass
if [a]=1: pass
if None=1: pass
if a=b=1: pass
if a==b=1: pass
if a=(b := 1): pass
if a = b if c else d: pass
if a=1:\n    pass\nx = (
if x: y = 1\nif a=1: pass
if True=1: pass
if lambda: a=1: pass
if a = not b: pass
if a = lambda: 1: pass
if x:\n    y = 1\nelif z: w = 2
while (a)[0] = 1: pass
if a=*b: pass
if -a=1: pass
if a[0]=1: pass
if a.b=c=1: pass
if x: pass\nelse: y = 1
if f(a=1): pass
if a = yield: pass
if a = 1, 2: pass
if a=1 if b: pass
if a = b := 1: pass
if a = -b ** 2 in c: pass
if a = await b: pass
if a = 1 if b else c = 2: pass
while a=\\\n  1: pass
if a.b = c: pass\nelse:\n    pass
def f():\n    while x.y = 1:\n        pass
[a=1]
(a=1)
{a=1}
x = [1, a=1]
x = (1, a.b=2)
[a=1 for x in y]
{a=1: 2}
x[a=1]
(a=b=1)
[not a=1]
(a, b=1)
print((a=1))
x = [f()=1]
[a = 1, 2]
(yield a=1)
def f(a=1): pass
class C(a=1): pass
x = [lambda a=1: a]
if (a=1): pass
return (a=1)
x = f"{a=}"
x[0](a=1)
x = (a = 1)
f(x)[a=1]
[(a)=1]
x = [\n  a=1,\n]
[*a=1]
lambda a=(b=1): 0
def f(a=(b=1)): pass
async def f(a=1): pass
f(a, b=(c=1))
@d(a=1)\ndef f(): pass
x = [a for a in b if (c=1)]
if lambda a=1: a: pass
if lambda a=1: a=2: pass
while lambda a=1: a.b = 2:\n    pass
x = lambda a=1: a; if b=1: pass
[lambda a=1: a=2]
x = (lambda a=1: a, b=2)
[lambda a=1, b=2: a]
x =\x0b1
x = 1\n\xe2\x80\x8by = 2
x =\xe2\x81\xa01
x = 1\n\xef\xbb\xbfy = 2
x =\xc2\xa01
x =\x011
x = 1\x7f
ab\xe2\x80\x8bc = 1
x = f(a,\x0b b)
x = '\x0b' # \xe2\x80\x8b
if x:\n    y = 1\n    \xe2\x80\x8bz = 2
x = 1 \xe2\x82\xac 2
x\xe2\x86\x92 = 1
y = 1\xe2\x80\x8b
y = 0x1\xe2\x80\x8b
a\xc2\xb7b = 1
\xe2\x84\x98 = 1
x = a\xcd\xb5
x = 1\n  y = 2
if x:\ny = 2
if x:\n    y = 1\n  z = 2
if x:\n\ty = 1\n        z = 2
if x:\n        y = 1\n\tz = 2
def f():\n    pass\n      x = 1
class A:\n    x = 1\n   y = 2
if x:\n    y = 1\n  # c\n  z = (1,\n 2)
x = (1,\n    2)\n  y = 3
for a in b:\n\n# c\nz = 1
def f():\n  if y:\n  z = 1
@d\ndef f():\nx = 1
async def f():\n    async with a:\n    pass
async def f():\n    async for a in b:\n    pass
try:\n    x\nexcept* E:\ny
try:\n    x\nexcept E:\ny
try:\n    x\nfinally:\ny
while x:\ny
if x:\n    y\nelif z:\nw
match x:\n    case 1:\n    pass
if x:\n    y = 1\n  z = 2  # c
with a:\n\tx\n        y
class A:
if x:  # c
if x:\n# c
def f():\n    if y:
if x:\n
class A:\n    def f(self):\n        pass\n    def g(self):
x = '\\x1'
x = 'ab\\x1z' + y
x = b'ab\\x1'
x = rb'\\x1' + b'\\u12'
x = '''a\nb\\x1'''
def f():\n    '''doc\n    C:\\users'''
x = f'a{y}b{{c\\x1'
x = ('\\x1'  # c\n)
x = '\\N{abc'
x = '\\N{}'
x = '\\U00110000'
x = '\xc3\xa9\\u1'
x = 'a' '\\x1' 'b'
x = f"{a!z}" "\\x4" + '\\x5'
x = ('a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     'a'\n     '\\x1')
x = s:elf.c(0)
x = y = z: int
x += y: int
x = a:b = c
raise E,t(1)
def f():\n    raise E , t(1) from z
x: int = 3
raise (a, b)
f(,)
x = f(\n  ,\n)
class A(,): pass
f(# c\n,)
f(# c\na,)
CASES
echo "$i modules of a few lines"
python3 tests/oracle/compile_compare.py --exact "$tool" "$tmp/cases"
