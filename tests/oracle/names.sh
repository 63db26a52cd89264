#!/usr/bin/env bash
# Differential test of `pgci names` against real ruff 0.13.2 on generated programs.
#
# A small generator writes random but valid Python modules (checked with compile())
# from a handful of names and every construct the scoping rules care about: imports
# and aliases, assignments, annotations (plain, quoted, Optional[...]), del, defs with
# defaults, annotations and decorators, classes with bases, if/else, try/except
# (ImportError, NameError, tuples, except*), for, while, with, global, nonlocal,
# match, lambdas, comprehensions, walrus, f-strings, cast('X', ...), __all__,
# `from __future__ import annotations`, type parameters and aliases, TYPE_CHECKING
# blocks, star imports, __class__/__qualname__. Seeds are fixed, so the test is
# deterministic. pgci and ruff must report the same F821, F811 and F401 findings
# (file, line, column, code, name).
set -euo pipefail
PGCI=${PGCI:?PGCI must point at the built binary}
RUFF=${PGCI_RUFF:-${PGCI_BUILD:-build}/deps/ruff}
[ -x "$RUFF" ] || { echo "oracle/names.sh: ruff not found at $RUFF (run make deps)" >&2; exit 1; }
RUFF=$(cd "$(dirname "$RUFF")" && pwd)/$(basename "$RUFF")
N=${PGCI_NAMES_PROGRAMS:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/gen"
python3 - "$tmp/gen" "$N" <<'PY'
import os, random, sys, warnings
warnings.filterwarnings("ignore")
NAMES = ["a", "b", "c", "os", "sys", "f", "C", "x", "_p", "T", "TYPE_CHECKING", "__class__"]
MODS = ["os", "sys", "a.b", "typing"]
def name(): return random.choice(NAMES)
def expr(d=0):
    r = random.random()
    if d > 2 or r < 0.35: return name()
    if r < 0.45: return f"{expr(d+1)} + {expr(d+1)}"
    if r < 0.52: return f"[{name()} for {name()} in {expr(d+1)} if {expr(d+1)}]"
    if r < 0.57: return f"({name()} := {expr(d+1)})"
    if r < 0.62: return f"(lambda {name()}, {name()}={expr(d+1)}: {expr(d+1)})"
    if r < 0.67: return f"{expr(d+1)}.{name()}"
    if r < 0.72: return f"{expr(d+1)}({expr(d+1)}, k={expr(d+1)})"
    if r < 0.76: return f"{{{name()}: {expr(d+1)} for {name()}, {name()} in {expr(d+1)}}}"
    if r < 0.80: return f"({expr(d+1)} if {expr(d+1)} else {expr(d+1)})"
    if r < 0.84: return f"f'{{{expr(d+1)}}}'"
    if r < 0.88: return f"typing.Optional['{name()}']"
    if r < 0.92: return f"cast('{name()}', {expr(d+1)})"
    return "1"
def ann():
    r = random.random()
    if r < 0.4: return name()
    if r < 0.7: return f"'{name()}'"
    if r < 0.85: return f"Optional[{name()}]"
    return f"'list[{name()}]'"
def ind(lines): return ["    " + l for l in lines]
def block(d, infunc, inclass, nested):
    return [l for _ in range(random.randint(1, 4)) for l in stmt(d, infunc, inclass, nested)]
def stmt(d, infunc=False, inclass=False, nested=False):
    r = random.random() * (0.4 if d > 3 else 1)
    sub = lambda: ind(block(d + 1, infunc, inclass, nested))
    if r < 0.10: return [f"import {random.choice(MODS)}" + (f" as {name()}" if random.random() < 0.3 else "")]
    if r < 0.16: return [f"from {random.choice(['m', 'typing', '.', '..k'])} import {name()}" + (f" as {name()}" if random.random() < 0.3 else "")]
    if r < 0.26: return [f"{name()} = {expr()}"]
    if r < 0.30: return [f"{name()}: {ann()}" + (f" = {expr()}" if random.random() < 0.5 else "")]
    if r < 0.36: return [f"print({expr()})"]
    if r < 0.40: return [f"del {name()}"]
    if r < 0.48:
        deco = [f"@{name()}"] if random.random() < 0.3 else []
        params = ", ".join(random.sample(["a", "b: " + ann(), "c=" + expr(), "*x", "**_p"], random.randint(0, 3)))
        ret = f" -> {ann()}" if random.random() < 0.3 else ""
        return deco + [f"def {name()}({params}){ret}:"] + ind(block(d + 1, True, False, infunc))
    if r < 0.54: return [f"class {name()}({name()}):" if random.random() < 0.4 else f"class {name()}:"] + ind(block(d + 1, False, True, False))
    if r < 0.62:
        out = [f"if {expr()}:"] + sub()
        return out + (["else:"] + sub() if random.random() < 0.5 else [])
    if r < 0.70:
        exc = random.choice(["ImportError", "NameError", "Exception", "(KeyError, NameError)", name()])
        out = ["try:"] + sub() + [f"except {exc}" + (f" as {name()}:" if random.random() < 0.4 else ":")] + sub()
        if random.random() < 0.3: out += ["else:"] + sub()
        if random.random() < 0.2: out += ["finally:"] + sub()
        return out
    if r < 0.75: return [f"for {name()}, {name()} in {expr()}:"] + sub()
    if r < 0.78: return [f"while {expr()}:"] + sub()
    if r < 0.82: return [f"with {expr()} as {name()}:"] + sub()
    if r < 0.86 and infunc: return [f"global {name()}"]
    if r < 0.89 and nested: return [f"nonlocal {name()}"]
    if r < 0.92: return [f"match {expr()}:", f"    case [{name()}, *{name()}] if {expr()}:"] + ind(sub()) + ["    case _:"] + ind(sub())
    if r < 0.95 and infunc: return [f"return {expr()}"]
    if r < 0.97: return [f"{name()} += {expr()}"]
    if r < 0.975: return [f"__all__ = ['{name()}', '{name()}']"]
    if r < 0.98: return [f"type {name()}[{name()}] = list[{expr()}]"]
    if r < 0.985: return [f"def {name()}[T: {name()}](a: T) -> T:"] + ind(block(d + 1, True, False, infunc))
    if r < 0.99: return ["if TYPE_CHECKING:", f"    from m import {name()}", "else:", f"    {name()} = None"]
    if r < 0.993: return ["try:", "    pass", f"except* ValueError as {name()}:", "    pass"]
    if r < 0.996: return [f"print(__class__, __qualname__, __module__, {expr()})"]
    return [f"from {random.choice(MODS)} import *"] if d == 0 else [f"{name()} = locals()"]
out, n = sys.argv[1], int(sys.argv[2])
random.seed(20261129)
made = 0
while made < n:
    lines = []
    if random.random() < 0.2: lines.append("from __future__ import annotations")
    if random.random() < 0.5: lines.append("from typing import Optional, cast")
    for _ in range(random.randint(2, 8)): lines += stmt(0)
    src = "\n".join(lines) + "\n"
    try:
        compile(src, "x", "exec")
    except SyntaxError:
        continue
    open(os.path.join(out, f"g{made:04d}.py"), "w").write(src)
    made += 1
PY
cd "$tmp/gen"
set +e
"$PGCI" names --select F821,F811,F401 -- *.py > ../pgci.txt
prc=$?
"$RUFF" check --isolated --no-cache --select F821,F811,F401 --output-format concise -- *.py > ../ruff.txt 2>/dev/null
rrc=$?
set -e
[ $prc -le 1 ] && [ $rrc -le 1 ] || { echo "oracle/names.sh: pgci exit $prc, ruff exit $rrc" >&2; exit 1; }
python3 - ../pgci.txt ../ruff.txt "$N" <<'PY'
import re, sys
def parse(path, pat):
    out = []
    for line in open(path, encoding="utf-8"):
        m = re.match(pat, line.rstrip("\n"))
        if m:
            out.append(m.groups())
    return sorted(out)
pg = parse(sys.argv[1], r"(.*?):(\d+):(\d+): (F\d+) (?:undefined name '(.*)'|redefinition of unused '(.*)' from line \d+|'(.*)' imported but unused)$")
pg = sorted((p, l, c, code, next(x for x in names if x is not None)) for p, l, c, code, *names in pg)
ruff = parse(sys.argv[2], r"(.*?):(\d+):(\d+): (F\d+) (?:\[\*\] )?[^`]*`([^`]*)`")
print(f"names random oracle: {sys.argv[3]} programs, pgci {len(pg)} findings, ruff {len(ruff)}, "
      f"common {len(set(pg) & set(ruff))}")
for x in sorted(set(ruff) - set(pg))[:20]: print("  only ruff:", x)
for x in sorted(set(pg) - set(ruff))[:20]: print("  only pgci:", x)
sys.exit(0 if pg == ruff and len(ruff) > 1000 else 1)
PY
