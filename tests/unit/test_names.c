/*
 * Unit tests for checks/names and checks/scope: pyflakes' F821 (undefined name), F811
 * (redefinition of unused name) and F401 (unused import) under Python's scoping rules.
 *
 * Every expectation in the snippet table below was produced by running real ruff
 * 0.13.2 (`build/deps/ruff check --isolated --select F821,F811,F401
 * --output-format json`) on the snippet, and hard-coded as (code, line, column, name).
 * tests/e2e/names.sh keeps them honest: it dumps the same snippets with
 * `test_names --dump DIR` and requires pgci and ruff to agree on them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks/names.h"
#include "core/error.h"
#include "py/scope.h"

typedef struct expect {
    const char *code;
    unsigned line, col;
    const char *name;
} expect;

typedef struct snippet {
    const char *file;
    const char *src;
    expect want[32]; /* terminated by a NULL code */
} snippet;

/* From ruff 0.13.2, one entry per snippet, sorted by line, column and code. */
static const snippet snippets[] = {
    {"all_aug.py",
     "import a1\n"
     "import a2\n"
     "import a3\n"
     "__all__ = [\"a1\"]\n"
     "__all__ += [\"a2\"]\n"
     "__all__.extend([\"a3\"])\n",
     {{"F401", 3, 8, "a3"}, {NULL, 0, 0, NULL}}},
    {"all_exports.py",
     "import os\n"
     "import sys\n"
     "__all__ = [\"os\", \"missing_export\"]\n",
     {{"F401", 2, 8, "sys"}, {NULL, 0, 0, NULL}}},
    {"annotations_plain.py",
     "def f(x: UndefAnn) -> UndefRet:\n"
     "    y: LocalUndef = 1\n"
     "    z: int\n"
     "    print(z)\n"
     "    return y\n"
     "a: ModUndef = 1\n"
     "b: int\n"
     "print(b)\n"
     "class K:\n"
     "    c: ClassUndef\n",
     {{"F821", 1, 10, "UndefAnn"},
      {"F821", 1, 23, "UndefRet"},
      {"F821", 2, 8, "LocalUndef"},
      {"F821", 4, 11, "z"},
      {"F821", 6, 4, "ModUndef"},
      {"F821", 8, 7, "b"},
      {"F821", 10, 8, "ClassUndef"},
      {NULL, 0, 0, NULL}}},
    {"augassign.py",
     "counter += 1\n"
     "def f():\n"
     "    total += 1\n"
     "    return total\n"
     "items = []\n"
     "items += [1]\n",
     {{"F821", 1, 1, "counter"}, {"F821", 3, 5, "total"}, {NULL, 0, 0, NULL}}},
    {"builtin_shadow.py",
     "def print(*a): pass\n"
     "print(1)\n"
     "del print\n"
     "print(2)\n"
     "len = 3\n"
     "del len\n"
     "len([])\n"
     "def f():\n"
     "    del open\n",
     {{"F821", 4, 1, "print"}, {"F821", 7, 1, "len"}, {"F821", 9, 9, "open"}, {NULL, 0, 0, NULL}}},
    {"builtins_dunders.py",
     "print(__name__, __file__, __doc__, __builtins__, __spec__, __loader__, __package__)\n"
     "print(__path__, __annotations__, __cached__, __debug__, __dict__)\n"
     "print(ExceptionGroup, EncodingWarning, anext, aiter, WindowsError, reveal_type)\n",
     {{"F821", 2, 7, "__path__"},
      {"F821", 2, 57, "__dict__"},
      {"F821", 3, 7, "ExceptionGroup"},
      {"F821", 3, 23, "EncodingWarning"},
      {"F821", 3, 40, "anext"},
      {"F821", 3, 47, "aiter"},
      {"F821", 3, 68, "reveal_type"},
      {NULL, 0, 0, NULL}}},
    {"class_attrs.py",
     "class A:\n"
     "    def __init__(self):\n"
     "        self.value = value_undef\n"
     "    @property\n"
     "    def p(self):\n"
     "        return A\n"
     "    @staticmethod\n"
     "    def s():\n"
     "        return B\n"
     "class B(A, metaclass=Meta):\n"
     "    pass\n",
     {{"F821", 3, 22, "value_undef"}, {"F821", 10, 22, "Meta"}, {NULL, 0, 0, NULL}}},
    {"class_scope.py",
     "class A:\n"
     "    a = 1\n"
     "    b = a\n"
     "    def m(self, arg=a):\n"
     "        return a\n"
     "    def n(self) -> a:\n"
     "        return __class__\n"
     "    c = [a for _ in range(3)]\n"
     "    d = [x for x in range(a)]\n"
     "    e = lambda: a\n"
     "    print(__qualname__, __module__)\n"
     "    def o(self):\n"
     "        print(__qualname__)\n",
     {{"F821", 5, 16, "a"},
      {"F821", 8, 10, "a"},
      {"F821", 10, 17, "a"},
      {"F821", 13, 15, "__qualname__"},
      {NULL, 0, 0, NULL}}},
    {"class_walrus.py",
     "class A:\n"
     "    xs = [y := 1]\n"
     "    zs = [(w := i) for i in range(3)]\n"
     "    print(y, w)\n"
     "def f():\n"
     "    [(q := i) for i in range(3)]\n"
     "    return q\n",
     {{NULL, 0, 0, NULL}}},
    {"complex_strings.py",
     "x: \"List\" \"[UndefC]\" = []\n"
     "y: \"Undef\\x41\" = 1\n"
     "z: \"\"\"\n"
     "    UndefTriple\n"
     "\"\"\" = 1\n"
     "w: r\"UndefRaw\" = 1\n"
     "v: \"Undef  # c\" = 1\n",
     {{"F821", 1, 4, "\"List\" \"[UndefC]\""},
      {"F821", 1, 4, "\"List\" \"[UndefC]\""},
      {"F821", 2, 4, "\"Undef\\x41\""},
      {"F821", 4, 5, "UndefTriple"},
      {"F821", 6, 6, "UndefRaw"},
      {"F821", 7, 5, "Undef"},
      {NULL, 0, 0, NULL}}},
    {"comprehensions.py",
     "xs = [i for i in range(3) if i]\n"
     "print(i)\n"
     "ys = [j for j in zs for k in j]\n"
     "zs = []\n"
     "gen = (a for a in b)\n"
     "d = {k: v for k, v in items}\n"
     "s = {w for w in ws if w}\n"
     "nested = [[p for p in q] for q in r]\n",
     {{"F821", 2, 7, "i"},
      {"F821", 3, 18, "zs"},
      {"F821", 5, 19, "b"},
      {"F821", 6, 23, "items"},
      {"F821", 7, 17, "ws"},
      {"F821", 8, 35, "r"},
      {NULL, 0, 0, NULL}}},
    {"cond_expr.py",
     "v = a_undef if (b := 1) else b\n"
     "w = [z for z in range(3)] if v else z\n",
     {{"F821", 1, 5, "a_undef"}, {"F821", 2, 37, "z"}, {NULL, 0, 0, NULL}}},
    {"conditional_redef.py",
     "import os\n"
     "if os.name:\n"
     "    import sys\n"
     "else:\n"
     "    import sys\n"
     "import re\n"
     "import re\n"
     "def f(): pass\n"
     "def f(): pass\n"
     "if True:\n"
     "    def g(): pass\n"
     "def g(): pass\n"
     "class C: pass\n"
     "class C: pass\n"
     "x = 1\n"
     "x = 2\n"
     "import json\n"
     "json = 1\n"
     "with open(\"f\") as fh:\n"
     "    import re\n"
     "import shutil\n"
     "for shutil in []:\n"
     "    pass\n"
     "def h(): pass\n"
     "h = 1\n",
     {{"F401", 5, 12, "sys"},
      {"F811", 7, 8, "re"},
      {"F811", 9, 5, "f"},
      {"F811", 14, 7, "C"},
      {"F811", 18, 1, "json"},
      {"F401", 20, 12, "re"},
      {"F811", 25, 1, "h"},
      {NULL, 0, 0, NULL}}},
    {"cross_scope.py",
     "import os\n"
     "import sys\n"
     "import json\n"
     "def f():\n"
     "    os = 1\n"
     "    return os\n"
     "def g():\n"
     "    sys = 2\n"
     "    return sys\n"
     "print(sys)\n"
     "class K:\n"
     "    json = 3\n"
     "def h():\n"
     "    for json in []:\n"
     "        pass\n",
     {{"F401", 1, 8, "os"},
      {"F401", 3, 8, "json"},
      {"F811", 5, 5, "os"},
      {"F811", 12, 5, "json"},
      {NULL, 0, 0, NULL}}},
    {"decorators_late.py",
     "@later_deco\n"
     "def f(): pass\n"
     "def later_deco(fn): return fn\n"
     "class C:\n"
     "    @staticmethod\n"
     "    def s(): pass\n"
     "    @s.__func__\n"
     "    def t(self): pass\n",
     {{"F821", 1, 2, "later_deco"}, {NULL, 0, 0, NULL}}},
    {"deep_comprehension.py",
     "class A:\n"
     "    T = range(3)\n"
     "    L = [x for x in T for y in T]\n"
     "    M = {x: y for x in T for y in T if y}\n",
     {{"F821", 3, 32, "T"}, {"F821", 4, 35, "T"}, {NULL, 0, 0, NULL}}},
    {"del_loops.py",
     "for i in range(3):\n"
     "    x = i\n"
     "    del x\n"
     "print(x)\n"
     "with ctx() as c:\n"
     "    y = 1\n"
     "    del y\n"
     "print(y)\n"
     "try:\n"
     "    z = 1\n"
     "    del z\n"
     "except Exception:\n"
     "    pass\n"
     "print(z)\n"
     "while True:\n"
     "    w = 1\n"
     "    del w\n"
     "    break\n"
     "print(w)\n",
     {{"F821", 4, 7, "x"},
      {"F821", 5, 6, "ctx"},
      {"F821", 8, 7, "y"},
      {"F821", 14, 7, "z"},
      {NULL, 0, 0, NULL}}},
    {"deletion.py",
     "a = 1\n"
     "del a\n"
     "print(a)\n"
     "b = 1\n"
     "if b:\n"
     "    del b\n"
     "print(b)\n"
     "def f():\n"
     "    c = 1\n"
     "    del c\n"
     "    return c\n"
     "del undefined_del\n"
     "def g():\n"
     "    del a\n",
     {{"F821", 3, 7, "a"},
      {"F821", 11, 12, "c"},
      {"F821", 12, 5, "undefined_del"},
      {"F821", 14, 9, "a"},
      {NULL, 0, 0, NULL}}},
    {"dict_splat.py",
     "f(*args_undef, **kwargs_undef, key=val_undef)\n"
     "d = {**m_undef}\n"
     "print(*[1], sep=sep_undef)\n",
     {{"F821", 1, 1, "f"},
      {"F821", 1, 4, "args_undef"},
      {"F821", 1, 18, "kwargs_undef"},
      {"F821", 1, 36, "val_undef"},
      {"F821", 2, 8, "m_undef"},
      {"F821", 3, 17, "sep_undef"},
      {NULL, 0, 0, NULL}}},
    {"dunder_class.py",
     "class A:\n"
     "    print(__class__)\n"
     "    def f(self):\n"
     "        return __class__\n"
     "def g():\n"
     "    return __class__\n",
     {{"F821", 2, 11, "__class__"}, {"F821", 6, 12, "__class__"}, {NULL, 0, 0, NULL}}},
    {"except_star.py",
     "try:\n"
     "    pass\n"
     "except* ValueError as eg:\n"
     "    print(eg)\n"
     "print(eg)\n",
     {{"F821", 5, 7, "eg"}, {NULL, 0, 0, NULL}}},
    {"except_unbind.py",
     "try:\n"
     "    pass\n"
     "except ValueError as e:\n"
     "    print(e)\n"
     "print(e)\n"
     "x = 1\n"
     "try:\n"
     "    pass\n"
     "except Exception as x:\n"
     "    pass\n"
     "print(x)\n"
     "def f():\n"
     "    try:\n"
     "        pass\n"
     "    except OSError as err:\n"
     "        pass\n"
     "    return err\n",
     {{"F821", 5, 7, "e"}, {"F821", 17, 12, "err"}, {NULL, 0, 0, NULL}}},
    {"f811_more.py",
     "from typing import overload\n"
     "@overload\n"
     "def p(x: int) -> int: ...\n"
     "@overload\n"
     "def p(x: str) -> str: ...\n"
     "def p(x): return x\n"
     "import os\n"
     "def g(os): return os\n"
     "try:\n"
     "    import yaml\n"
     "except ImportError:\n"
     "    pass\n"
     "else:\n"
     "    import yaml\n"
     "import mod1\n"
     "def mod1(): pass\n"
     "_ = 1\n"
     "def _(): pass\n",
     {{"F401", 7, 8, "os"},
      {"F811", 8, 7, "os"},
      {"F401", 14, 12, "yaml"},
      {"F811", 14, 12, "yaml"},
      {"F811", 16, 5, "mod1"},
      {NULL, 0, 0, NULL}}},
    {"fstrings.py",
     "name = \"x\"\n"
     "print(f\"{name} {undef_f} {name!r:>{width}}\")\n"
     "print(f\"{'{'}\", rf\"{name}\\n\")\n",
     {{"F821", 2, 17, "undef_f"}, {"F821", 2, 36, "width"}, {NULL, 0, 0, NULL}}},
    {"function_scope.py",
     "def f(a, b=undefined_default, *args, c: \"Undef1\", **kw) -> Undef2:\n"
     "    print(a, b, args, c, kw, d)\n"
     "    d = 1\n"
     "    def g():\n"
     "        return d + e\n"
     "    e = 2\n"
     "    return g\n"
     "@decorator_undef\n"
     "def h(): pass\n",
     {{"F821", 1, 12, "undefined_default"},
      {"F821", 1, 42, "Undef1"},
      {"F821", 1, 60, "Undef2"},
      {"F821", 2, 30, "d"},
      {"F821", 8, 2, "decorator_undef"},
      {NULL, 0, 0, NULL}}},
    {"future_annotations.py",
     "from __future__ import annotations\n"
     "def f(a: Later) -> Later:\n"
     "    return a\n"
     "class Later:\n"
     "    field: Later\n"
     "    other: Nowhere\n"
     "x: int = Later()\n",
     {{"F821", 6, 12, "Nowhere"}, {NULL, 0, 0, NULL}}},
    {"future_only.py",
     "from __future__ import annotations\n"
     "from __future__ import annotations\n"
     "import typing\n"
     "x: typing.Optional[Undef1] = None\n"
     "def f() -> \"Undef2\": ...\n"
     "class C:\n"
     "    a: C\n"
     "    def m(self) -> C: ...\n",
     {{"F821", 4, 20, "Undef1"}, {"F821", 5, 13, "Undef2"}, {NULL, 0, 0, NULL}}},
    {"global_module.py",
     "global gm\n"
     "print(gm)\n"
     "def f():\n"
     "    global gf\n"
     "    del gf\n"
     "def g():\n"
     "    global print\n"
     "    print = 1\n"
     "class C:\n"
     "    global gc\n"
     "    gc = 1\n"
     "print(gc, gf)\n",
     {{"F821", 2, 7, "gm"}, {NULL, 0, 0, NULL}}},
    {"global_nonlocal.py",
     "def f():\n"
     "    global g1\n"
     "    g1 = 1\n"
     "def h():\n"
     "    return g1\n"
     "def outer():\n"
     "    v = 1\n"
     "    def inner():\n"
     "        nonlocal v\n"
     "        v = 2\n"
     "        return v\n"
     "    return inner\n"
     "def k():\n"
     "    global never\n"
     "    return never\n"
     "print(g1)\n"
     "def m():\n"
     "    nonlocal nothere\n",
     {{NULL, 0, 0, NULL}}},
    {"imports_misc.py",
     "import os.path\n"
     "import os.path\n"
     "import a.b as ab\n"
     "import a.c\n"
     "from . import rel\n"
     "from .mod import thing as other\n"
     "import unused_mod\n"
     "from m import used_name as used_name\n"
     "print(ab, rel)\n"
     "def f():\n"
     "    import inner_unused\n"
     "    import inner_used\n"
     "    return inner_used\n",
     {{"F401", 2, 8, "os.path"},
      {"F811", 2, 8, "os.path"},
      {"F401", 4, 8, "a.c"},
      {"F401", 6, 27, ".mod.thing"},
      {"F401", 7, 8, "unused_mod"},
      {"F401", 11, 12, "inner_unused"},
      {NULL, 0, 0, NULL}}},
    {"lambda_class.py",
     "class A:\n"
     "    x = 1\n"
     "    f = lambda self, y=x: y + x\n",
     {{"F821", 3, 31, "x"}, {NULL, 0, 0, NULL}}},
    {"lambdas.py",
     "f = lambda a, b=c: a + b + d\n"
     "g = lambda: lambda x: x + y\n"
     "y = 1\n",
     {{"F821", 1, 17, "c"}, {"F821", 1, 28, "d"}, {NULL, 0, 0, NULL}}},
    {"late_binding.py",
     "def outer():\n"
     "    def inner():\n"
     "        return late\n"
     "    late = 1\n"
     "    class Local:\n"
     "        attr = late2\n"
     "        def meth(self):\n"
     "            return late3\n"
     "    late2 = 2\n"
     "    late3 = 3\n"
     "    return inner, Local\n",
     {{"F821", 6, 16, "late2"}, {NULL, 0, 0, NULL}}},
    {"locals_call.py",
     "def f():\n"
     "    a = 1\n"
     "    return locals()\n",
     {{NULL, 0, 0, NULL}}},
    {"loops.py",
     "for i, (j, k) in enumerate(pairs):\n"
     "    print(i, j, k)\n"
     "else:\n"
     "    print(i)\n"
     "while cond_undef:\n"
     "    break\n"
     "print(loop_after)\n"
     "loop_after = 1\n",
     {{"F821", 1, 28, "pairs"},
      {"F821", 5, 7, "cond_undef"},
      {"F821", 7, 7, "loop_after"},
      {NULL, 0, 0, NULL}}},
    {"match_redef.py",
     "match v:\n"
     "    case 1:\n"
     "        import m1\n"
     "    case 2:\n"
     "        import m1\n"
     "import m2\n"
     "match v:\n"
     "    case m2:\n"
     "        pass\n",
     {{"F821", 1, 7, "v"},
      {"F401", 5, 16, "m1"},
      {"F821", 7, 7, "v"},
      {"F811", 8, 10, "m2"},
      {NULL, 0, 0, NULL}}},
    {"match_stmt.py",
     "match cmd:\n"
     "    case [a, *rest]:\n"
     "        print(a, rest)\n"
     "    case {\"k\": v, **kw}:\n"
     "        print(v, kw)\n"
     "    case Point(x=0, y=yy) as q:\n"
     "        print(yy, q)\n"
     "    case Color.RED | Undef11.B:\n"
     "        pass\n"
     "    case str() | bytes():\n"
     "        pass\n"
     "    case _:\n"
     "        print(a)\n",
     {{"F821", 1, 7, "cmd"},
      {"F821", 6, 10, "Point"},
      {"F821", 8, 10, "Color"},
      {"F821", 8, 22, "Undef11"},
      {NULL, 0, 0, NULL}}},
    {"module_order.py",
     "print(x)\n"
     "x = 1\n"
     "print(x)\n"
     "def f():\n"
     "    return y\n"
     "y = 2\n",
     {{"F821", 1, 7, "x"}, {NULL, 0, 0, NULL}}},
    {"nameerror_deferred.py",
     "try:\n"
     "    def f():\n"
     "        return undefined_in_def\n"
     "    undefined_here\n"
     "    g = lambda: undefined_in_lambda\n"
     "    h = [undefined_in_comp for _ in range(1)]\n"
     "except NameError:\n"
     "    pass\n",
     {{"F821", 3, 16, "undefined_in_def"},
      {"F821", 5, 17, "undefined_in_lambda"},
      {NULL, 0, 0, NULL}}},
    {"nested_class.py",
     "class Outer:\n"
     "    x = 1\n"
     "    class Inner:\n"
     "        y = x\n"
     "    def m(self):\n"
     "        class Local:\n"
     "            z = self\n"
     "        return Local\n",
     {{"F821", 4, 13, "x"}, {NULL, 0, 0, NULL}}},
    {"nonlocal_class.py",
     "class A:\n"
     "    def f(self):\n"
     "        def g():\n"
     "            nonlocal __class__\n"
     "            return __class__\n"
     "        return g\n"
     "    def h(self):\n"
     "        def k():\n"
     "            return __class__\n"
     "        return k\n",
     {{NULL, 0, 0, NULL}}},
    {"noqa_lines.py",
     "a = undefined1  # noqa: F821\n"
     "b = undefined2  # noqa\n"
     "c = undefined3  # noqa: E501\n"
     "d = undefined4  # NOQA:F821\n"
     "e = undefined5  # some comment # noqa: F821\n"
     "f = (undefined6,\n"
     "     undefined7)  # noqa\n"
     "g = \"\"\"\n"
     "{}\"\"\".format(undefined8)  # noqa: F821\n"
     "h = 1 + \\\n"
     "    undefined9  # noqa: F821\n",
     {{"F821", 3, 5, "undefined3"}, {"F821", 6, 6, "undefined6"}, {NULL, 0, 0, NULL}}},
    /* "noqa" in no comment in lower case: the comments count all the same (the
     * search for one was case-sensitive, and this file gave three findings) */
    {"noqa_upper_only.py",
     "import os  # NOQA\n"
     "import sys  # NoQa: F401\n"
     "print(undefined_x)  # NOQA: F821\n"
     "print(undefined_y)  # Noqa: F401\n",
     {{"F821", 4, 7, "undefined_y"}, {NULL, 0, 0, NULL}}},
    {"pkg/__init__.py",
     "__path__ = __path__ + [\"x\"]\n"
     "print(__path__, undefined_in_init)\n",
     {{"F821", 2, 17, "undefined_in_init"}, {NULL, 0, 0, NULL}}},
    {"redef_imports_used.py",
     "import os\n"
     "os.getcwd()\n"
     "import os\n"
     "import sys\n"
     "def f():\n"
     "    return sys\n"
     "import sys\n"
     "from typing import List\n"
     "from typing import List as List\n",
     {{"F811", 7, 8, "sys"}, {"F811", 9, 28, "List"}, {NULL, 0, 0, NULL}}},
    {"slices.py",
     "a = [1][lo:hi:st]\n"
     "b = c[d, e:f]\n"
     "g[h] = i\n"
     "j.k = l\n"
     "m[n] += o\n",
     {{"F821", 1, 9, "lo"},
      {"F821", 1, 12, "hi"},
      {"F821", 1, 15, "st"},
      {"F821", 2, 5, "c"},
      {"F821", 2, 7, "d"},
      {"F821", 2, 10, "e"},
      {"F821", 2, 12, "f"},
      {"F821", 3, 1, "g"},
      {"F821", 3, 3, "h"},
      {"F821", 3, 8, "i"},
      {"F821", 4, 1, "j"},
      {"F821", 4, 7, "l"},
      {"F821", 5, 1, "m"},
      {"F821", 5, 3, "n"},
      {"F821", 5, 9, "o"},
      {NULL, 0, 0, NULL}}},
    {"star_del.py",
     "from os import *\n"
     "del never_bound\n"
     "x = 1\n"
     "del x\n"
     "print(x, path)\n",
     {{"F821", 2, 5, "never_bound"}, {"F821", 5, 7, "x"}, {NULL, 0, 0, NULL}}},
    {"star_import.py",
     "from os.path import *\n"
     "print(join, undefined_star)\n"
     "def f():\n"
     "    return more_undefined\n",
     {{NULL, 0, 0, NULL}}},
    {"string_annotations.py",
     "from typing import Optional, List, Literal, cast, TypeVar\n"
     "x: \"Optional[int]\" = None\n"
     "y: \"List[Undef3]\" = []\n"
     "z: Literal[\"not_a_name\"] = \"not_a_name\"\n"
     "def f(a: \"Undef4\", b: List[\"Undef5\"]) -> \"Optional[Undef6]\":\n"
     "    return cast(\"Undef7\", a)\n"
     "T = TypeVar(\"T\", bound=\"Undef8\")\n"
     "w: \"Optional['Undef9']\" = None\n"
     "s = Optional[\"Undef10\"]\n"
     "v = \"NotAnAnnotation\"\n"
     "u: \"Forward\" = None\n"
     "class Forward: pass\n",
     {{"F821", 3, 10, "Undef3"},
      {"F821", 5, 11, "Undef4"},
      {"F821", 5, 29, "Undef5"},
      {"F821", 5, 52, "Undef6"},
      {"F821", 6, 18, "Undef7"},
      {"F821", 7, 25, "Undef8"},
      {"F821", 8, 15, "Undef9"},
      {"F821", 9, 15, "Undef10"},
      {NULL, 0, 0, NULL}}},
    {"submodules.py",
     "import a.b\n"
     "import a.b.c\n"
     "import a.b\n"
     "import x.y\n"
     "from x import y\n"
     "import p\n"
     "import p.q\n"
     "import pyarrow as pa\n"
     "import pyarrow.csv\n"
     "print(pa)\n",
     {{"F401", 3, 8, "a.b"},
      {"F401", 4, 8, "x.y"},
      {"F401", 5, 15, "x.y"},
      {"F401", 7, 8, "p.q"},
      {NULL, 0, 0, NULL}}},
    {"try_branches.py",
     "try:\n"
     "    import t1\n"
     "except ImportError:\n"
     "    t1 = None\n"
     "else:\n"
     "    import t1\n"
     "finally:\n"
     "    import t1\n"
     "try:\n"
     "    from q import z\n"
     "    from q import z\n"
     "except Exception:\n"
     "    pass\n",
     {{"F401", 8, 12, "t1"}, {"F401", 11, 19, "q.z"}, {"F811", 11, 19, "z"}, {NULL, 0, 0, NULL}}},
    {"try_import.py",
     "try:\n"
     "    import json\n"
     "except ImportError:\n"
     "    json = None\n"
     "try:\n"
     "    from a import b\n"
     "except ImportError:\n"
     "    from c import b\n"
     "try:\n"
     "    undefined_in_try\n"
     "except NameError:\n"
     "    pass\n"
     "try:\n"
     "    undefined_in_try2\n"
     "except (KeyError, NameError):\n"
     "    pass\n"
     "try:\n"
     "    undefined_in_try3\n"
     "except KeyError:\n"
     "    pass\n"
     "print(json, b)\n",
     {{"F821", 18, 5, "undefined_in_try3"}, {NULL, 0, 0, NULL}}},
    {"type_checking.py",
     "from typing import TYPE_CHECKING\n"
     "if TYPE_CHECKING:\n"
     "    from collections import OrderedDict\n"
     "else:\n"
     "    OrderedDict = dict\n"
     "def f(x: \"OrderedDict\") -> \"Missing\":\n"
     "    return x\n",
     {{"F821", 6, 29, "Missing"}, {NULL, 0, 0, NULL}}},
    {"type_param_scopes.py",
     "class Base: pass\n"
     "class C[T: Base]:\n"
     "    x: T\n"
     "    def m[U](self, a: T, b: U) -> \"T | U | Undef\": return a\n"
     "def f[**P, *Ts](*args: P.args, **kw: P.kwargs) -> tuple[*Ts]: ...\n",
     {{"F821", 4, 44, "Undef"}, {NULL, 0, 0, NULL}}},
    {"type_params.py",
     "def f[T: Bound](x: T) -> T:\n"
     "    return x\n"
     "class C[K]:\n"
     "    def m(self, k: K) -> K:\n"
     "        return k\n"
     "type Alias[V] = list[V] | UndefAlias\n"
     "class Bound: pass\n"
     "print(T)\n",
     {{"F821", 6, 27, "UndefAlias"}, {"F821", 8, 7, "T"}, {NULL, 0, 0, NULL}}},
    {"typealias613.py",
     "from typing import TypeAlias, Annotated, NamedTuple, TypedDict, NewType\n"
     "Alias: TypeAlias = \"UndefTA\"\n"
     "A2: Annotated[\"UndefAnn1\", \"not a name\"] = 1\n"
     "NT = NamedTuple(\"NT\", [(\"a\", \"UndefNT\"), (\"b\", int)])\n"
     "TD = TypedDict(\"TD\", {\"k\": \"UndefTD\"})\n"
     "NTy = NewType(\"NTy\", \"UndefNewType\")\n",
     {{"F821", 2, 21, "UndefTA"},
      {"F821", 3, 16, "UndefAnn1"},
      {"F821", 4, 31, "UndefNT"},
      {"F821", 5, 29, "UndefTD"},
      {"F821", 6, 23, "UndefNewType"},
      {NULL, 0, 0, NULL}}},
    {"unicode_cols.py",
     "é = \"ü\"; print(é, undefined_ü, ñ)\n"
     "s = \"日本語\"; print(s, 未定義)\n"
     "\t# tab\n"
     "x = {\"ключ\": unknown}\n",
     {{"F821", 1, 19, "undefined_ü"},
      {"F821", 1, 32, "ñ"},
      {"F821", 2, 21, "未定義"},
      {"F821", 4, 14, "unknown"},
      {NULL, 0, 0, NULL}}},
    {"walrus.py",
     "if (n := 10) > 5:\n"
     "    print(n)\n"
     "xs = [y := 5, y ** 2]\n"
     "def f(data):\n"
     "    if any((hit := v) for v in data):\n"
     "        return hit\n"
     "    return [last := q for q in data], last\n"
     "print(z := 1, z)\n",
     {{NULL, 0, 0, NULL}}},
    {"with_stmt.py",
     "with open(path_undef) as (fa, fb), ctx() as fc:\n"
     "    print(fa, fb, fc)\n"
     "print(fa)\n"
     "async def f():\n"
     "    async with g() as h:\n"
     "        return h\n"
     "    async for i in h:\n"
     "        print(i)\n",
     {{"F821", 1, 11, "path_undef"},
      {"F821", 1, 36, "ctx"},
      {"F821", 5, 16, "g"},
      {NULL, 0, 0, NULL}}},
};

#define NSNIPPETS (sizeof(snippets) / sizeof(snippets[0]))

static int cmp_finding_pos(const void *a, const void *b)
{
    const finding *x = *(finding *const *)a, *y = *(finding *const *)b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return strcmp(json_string_value(json_object_get(x->data, "code")),
                  json_string_value(json_object_get(y->data, "code")));
}

static void run(const char *path, const char *src, const names_opts *o, findings *out)
{
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), path), 0);
    int r = check_names_tree(out, &t, NULL, path, o);
    if (r != 0)
        fail_msg("%s: %s", path, pgci_error_last());
    py_tree_free(&t);
    if (out->len > 1)
        qsort(out->items, out->len, sizeof(*out->items), cmp_finding_pos);
}

/* Every snippet yields exactly ruff's findings, in position order. */
static void test_ruff_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSNIPPETS; i++) {
        const snippet *s = &snippets[i];
        findings fs = FINDINGS_INIT;
        run(s->file, s->src, NULL, &fs);
        size_t n = 0;
        while (s->want[n].code)
            n++;
        for (size_t k = 0; k < fs.len || k < n; k++) {
            const finding *f = k < fs.len ? fs.items[k] : NULL;
            const expect *w = k < n ? &s->want[k] : NULL;
            const char *code = f ? json_string_value(json_object_get(f->data, "code")) : "-";
            const char *name = f ? json_string_value(json_object_get(f->data, "name")) : "-";
            if (!f || !w || strcmp(code, w->code) || f->line != w->line || f->col != w->col ||
                strcmp(name, w->name))
                fail_msg("%s: finding %zu: got %s %u:%u '%s', ruff has %s %u:%u '%s'", s->file, k,
                         code, f ? f->line : 0, f ? f->col : 0, name, w ? w->code : "-",
                         w ? w->line : 0, w ? w->col : 0, w ? w->name : "-");
        }
        findings_free(&fs);
    }
}

/* The finding model: check id, severity per code, pyflakes-like titles, data. */
static void test_finding_fields(void **state)
{
    (void)state;
    const char *src = "import os\nimport sys\nimport sys\nprint(Optional)\n";
    py_tree t;
    findings fs = FINDINGS_INIT;
    assert_int_equal(py_parse(&t, src, strlen(src), "gen.py"), 0);
    assert_int_equal(check_names_tree(&fs, &t, "llama_gpu_patch_gen_config", "gen.py", NULL), 0);
    py_tree_free(&t);
    findings_sort(&fs);
    assert_int_equal(fs.len, 4);
    /* 1:8 F401 os, 3:8 F401 sys (the redefinition is itself unused), 3:8 F811, 4:7 F821 */
    assert_string_equal(fs.items[0]->check, "names");
    assert_int_equal(fs.items[0]->sev, SEV_INFO);
    assert_string_equal(fs.items[0]->title, "'os' imported but unused");
    assert_string_equal(fs.items[0]->config, "llama_gpu_patch_gen_config");
    assert_string_equal(fs.items[0]->path, "gen.py");
    assert_int_equal(fs.items[2]->sev, SEV_ERROR);
    assert_string_equal(fs.items[2]->title, "redefinition of unused 'sys' from line 2");
    assert_int_equal(json_integer_value(json_object_get(fs.items[2]->data, "previous_line")), 2);
    assert_int_equal(fs.items[3]->sev, SEV_ERROR);
    assert_int_equal(fs.items[3]->line, 4);
    assert_int_equal(fs.items[3]->col, 7);
    assert_string_equal(fs.items[3]->title, "undefined name 'Optional'");
    assert_string_equal(json_string_value(json_object_get(fs.items[3]->data, "code")), "F821");
    assert_string_equal(json_string_value(json_object_get(fs.items[3]->data, "name")), "Optional");
    assert_int_equal(findings_count_at_least(&fs, SEV_ERROR), 2);
    findings_free(&fs);
}

/* --select keeps only the chosen codes. */
static void test_select(void **state)
{
    (void)state;
    names_opts o = NAMES_OPTS_INIT;
    assert_int_equal(names_select_parse("f401", &o.select), 0);
    assert_int_equal(o.select, NAMES_F401);
    findings fs = FINDINGS_INIT;
    run("m.py", "import os\nx\n", &o, &fs);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title, "'os' imported but unused");
    findings_free(&fs);

    unsigned m;
    assert_int_equal(names_select_parse("F821, F811", &m), 0);
    assert_int_equal(m, NAMES_F821 | NAMES_F811);
    assert_int_equal(names_select_parse("ALL", &m), 0);
    assert_int_equal(m, NAMES_ALL);
    assert_int_equal(names_select_parse("F821,E501", &m), PGCI_EUSAGE);
    assert_non_null(strstr(pgci_error_last(), "E501"));
    assert_int_equal(names_select_parse("", &m), PGCI_EUSAGE);
}

/* Builtins depend on the target Python: ExceptionGroup is 3.11+. */
static void test_python_version(void **state)
{
    (void)state;
    const char *src = "print(ExceptionGroup, aiter, PythonFinalizationError)\n";
    names_opts o = NAMES_OPTS_INIT;
    findings fs = FINDINGS_INIT;
    run("m.py", src, &o, &fs);
    assert_int_equal(fs.len, 3); /* ruff --isolated targets 3.9 */
    findings_free(&fs);
    assert_int_equal(names_python_parse("3.11", &o.py_minor), 0);
    assert_int_equal(o.py_minor, 11);
    run("m.py", src, &o, &fs);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title, "undefined name 'PythonFinalizationError'");
    findings_free(&fs);
    int minor;
    assert_int_equal(names_python_parse("py313", &minor), 0);
    assert_int_equal(minor, 13);
    assert_int_equal(names_python_parse("312", &minor), 0);
    assert_int_equal(minor, 12);
    assert_int_equal(names_python_parse("2.7", &minor), PGCI_EUSAGE);
    assert_int_equal(names_python_parse("3.x", &minor), PGCI_EUSAGE);
}

/* `# noqa` suppresses unless the caller asks to see everything. */
static void test_noqa(void **state)
{
    (void)state;
    const char *src = "a = u1  # noqa\nb = u2  # noqa: F811\nc = u3  # ruff: noqa: F401\n";
    findings fs = FINDINGS_INIT;
    run("m.py", src, NULL, &fs);
    assert_int_equal(fs.len, 2);
    assert_string_equal(fs.items[0]->title, "undefined name 'u2'");
    assert_string_equal(fs.items[1]->title, "undefined name 'u3'");
    findings_free(&fs);
    names_opts o = NAMES_OPTS_INIT;
    o.ignore_noqa = 1;
    run("m.py", src, &o, &fs);
    assert_int_equal(fs.len, 3);
    findings_free(&fs);
    run("m.py", "# flake8: noqa\nx = undefined\n", NULL, &fs);
    assert_int_equal(fs.len, 0);
    findings_free(&fs);
    /* file-wide only on a line of its own (ruff ignores it after code) */
    run("m.py", "x = undefined  # ruff: noqa\n  # ruff: noqa: F401\nimport os\n", NULL, &fs);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title, "undefined name 'undefined'");
    findings_free(&fs);
}

/* Input that is not Python is refused with the position of the error. */
static void test_syntax_error(void **state)
{
    (void)state;
    const char *src = "def f(:\n    pass\n";
    py_tree t;
    findings fs = FINDINGS_INIT;
    assert_int_equal(py_parse(&t, src, strlen(src), "bad.py"), 0);
    assert_int_equal(check_names_tree(&fs, &t, NULL, "bad.py", NULL), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "bad.py:1:"));
    assert_int_equal(fs.len, 0);
    py_tree_free(&t);
}

/* Deep nesting is refused, never a crash or a partial answer; long operator chains
 * (flat in Python's AST, deep in tree-sitter's) are fine. */
static void test_depth(void **state)
{
    (void)state;
    size_t n = 5000;
    char *src = malloc(n * 4 + 16);
    char *p = src + sprintf(src, "x = a");
    for (size_t i = 1; i < n; i++)
        p += sprintf(p, " + a");
    strcpy(p, "\n");
    findings fs = FINDINGS_INIT;
    run("chain.py", src, NULL, &fs);
    assert_int_equal(fs.len, n);
    findings_free(&fs);
    strcpy(src, "x = ");
    for (size_t i = 0; i < 1200; i++)
        src[4 + i] = '[';
    for (size_t i = 0; i < 1200; i++)
        src[1204 + i] = ']';
    src[2404] = '\n';
    src[2405] = '\0';
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "deep.py"), 0);
    assert_int_equal(check_names_tree(&fs, &t, NULL, "deep.py", NULL), PGCI_ELIMIT);
    assert_non_null(strstr(pgci_error_last(), "deep.py"));
    py_tree_free(&t);
    free(src);
}

/* test_names --dump DIR writes the snippets as files for the ruff oracle. */
static int dump(const char *dir)
{
    char path[4096];
    for (size_t i = 0; i < NSNIPPETS; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, snippets[i].file);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return perror(path), 1;
        *slash = '/';
        FILE *f = fopen(path, "w");
        if (!f || fputs(snippets[i].src, f) < 0 || fclose(f) != 0)
            return perror(path), 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump"))
        return dump(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ruff_table), cmocka_unit_test(test_finding_fields),
        cmocka_unit_test(test_select),     cmocka_unit_test(test_python_version),
        cmocka_unit_test(test_noqa),       cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
