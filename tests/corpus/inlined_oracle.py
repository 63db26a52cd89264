"""The oracle for checks/inlined.c: one-use temporaries folded with CPython's ast.

For every function definition of the given modules (top level, methods, nested
functions; decorators included), the same folds as docs/survey.md's rule, made on
Python's own tree of the module, against pgci's (tests/tools/inlined_cmp, which
rewrites the text): both must fold the same number of temporaries, and pgci's text
must parse to the same tree (ast.dump, positions aside) as the folded one.

    inlined_oracle.py INLINED_CMP MODULE...

Prints "N definitions, F folded (T temporaries), M modules" and exits 1 on the
first few differences (printed), 0 otherwise. Written independently of pgci's C:
Python's parser, Python's scopes of names.
"""
import ast
import copy
import json
import subprocess
import sys

MAX_ROUNDS = 16


def names_in(fn):
    """How many times each name occurs in fn as tree-sitter's identifiers do: reads,
    bindings, parameters, definitions' names, imports' parts, `global`, handlers;
    not attributes after a dot nor keywords of a call."""
    counts = {}

    def add(n):
        counts[n] = counts.get(n, 0) + 1

    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            add(n.id)
        elif isinstance(n, ast.arg):
            add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for x in n.names:
                add(x)
        elif isinstance(n, ast.alias):
            for part in n.name.split("."):
                add(part)
            if n.asname:
                add(n.asname)
        elif isinstance(n, ast.ImportFrom) and n.module:
            for part in n.module.split("."):
                add(part)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            add(n.name)
    return counts


def is_constant(n):
    return isinstance(n, ast.Constant) and n.value is not Ellipsis


def is_pure(n):
    if isinstance(n, ast.keyword):
        if n.arg is None:  # `**kw`
            return False
        n = n.value
    return isinstance(n, ast.Name) or is_constant(n)


def is_callee(n):
    while isinstance(n, ast.Attribute):
        n = n.value
    return isinstance(n, ast.Name)


def position(n):
    """Where n stands among its siblings: a folded value where the read it
    replaced stood (fold() notes it), anything else where it was written."""
    return getattr(n, "_at", (n.lineno, n.col_offset))


def parents_of(stmt):
    parent = {}
    for p in ast.walk(stmt):
        for c in ast.iter_child_nodes(p):
            parent[c] = p
    return parent


def read_first(use, stmt):
    """Whether stmt evaluates the read `use` first of all but names, constants and
    callees (the rule of docs/survey.md)."""
    parent = parents_of(stmt)
    c = use
    while c is not stmt:
        p = parent.get(c)
        if p is None:
            return False
        if isinstance(p, ast.Call):
            if c is p.func:
                ok = True
            else:
                before = [a for a in list(p.args) + list(p.keywords) if position(a) < position(c)]
                ok = is_callee(p.func) and all(is_pure(a) and not isinstance(a, ast.Starred)
                                               for a in before)
                ok = ok and not isinstance(c, ast.Starred) and not (
                    isinstance(c, ast.keyword) and c.arg is None)
        elif isinstance(p, ast.keyword):
            ok = p.arg is not None
        elif isinstance(p, (ast.Tuple, ast.List)):
            ok = not isinstance(c, ast.Starred) and all(
                is_pure(e) for e in p.elts if position(e) < position(c))
        elif isinstance(p, ast.Attribute):
            ok = True
        elif isinstance(p, ast.Subscript):
            if c is p.value:
                ok = True
            else:
                ok = is_pure(p.value) and not isinstance(c, ast.Slice)
        elif isinstance(p, ast.BinOp):
            ok = c is p.left or is_pure(p.left)
        elif isinstance(p, ast.BoolOp):
            # `a and b and c` is one BoolOp here, nested to the left in tree-sitter:
            # its first operand is evaluated first either way
            ok = c is p.values[0]
        elif isinstance(p, ast.Compare):
            ok = len(p.comparators) == 1 and (c is p.left or is_pure(p.left))
        elif isinstance(p, ast.UnaryOp):
            ok = True
        elif isinstance(p, (ast.Assign, ast.AnnAssign)):
            ok = c is p.value
        elif isinstance(p, (ast.Expr, ast.Return)):
            ok = p is stmt
        else:
            ok = False
        if not ok:
            return False
        c = p
    return True


class Source:
    def __init__(self, text):
        self.lines = text.split("\n")

    def alone(self, s):
        """s alone on its lines: blanks before it, blanks or a comment after."""
        first = self.lines[s.lineno - 1].encode()
        last = self.lines[s.end_lineno - 1].encode()
        before = first[: s.col_offset]
        after = last[s.end_col_offset:].lstrip(b" \t")
        return not before.strip(b" \t") and (not after or after.startswith(b"#"))


def blocks(fn):
    for n in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            b = getattr(n, field, None)
            if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
                yield b
        if isinstance(n, ast.Try) or (hasattr(ast, "TryStar") and isinstance(n, ast.TryStar)):
            for h in n.handlers:
                yield h.body
        if isinstance(n, ast.Match):
            for case in n.cases:
                yield case.body


def fold_of(src, counts, s, nxt):
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
        return None
    if not isinstance(nxt, (ast.Expr, ast.Return, ast.Assign, ast.AnnAssign)):
        return None
    if isinstance(nxt, ast.AnnAssign) and nxt.value is None:
        return None
    x = s.targets[0].id
    if counts.get(x) != 2:
        return None
    uses = [n for n in ast.walk(nxt) if isinstance(n, ast.Name) and n.id == x]
    if len(uses) != 1 or not isinstance(uses[0].ctx, ast.Load) or not read_first(uses[0], nxt):
        return None
    if not src.alone(s) or s.end_lineno >= nxt.lineno:
        return None
    return uses[0]


def fold(fn, src):
    """fn with its temporaries folded in rounds (the C rule); the number folded."""
    total = 0
    for _ in range(MAX_ROUNDS):
        counts = names_in(fn)
        todo = []
        for b in list(blocks(fn)):
            i = 0
            while i + 1 < len(b):
                use = fold_of(src, counts, b[i], b[i + 1])
                if use is not None:
                    todo.append((b, b[i], b[i + 1], use))
                    i += 2
                else:
                    i += 1
        if not todo:
            break
        for b, s, nxt, use in todo:
            value = s.value
            value._at = position(use)
            for p in ast.walk(nxt):
                for field, v in ast.iter_fields(p):
                    if v is use:
                        setattr(p, field, value)
                    elif isinstance(v, list):
                        for k, e in enumerate(v):
                            if e is use:
                                v[k] = value
            b.remove(s)
        total += len(todo)
    return total


def defs_of(tree):
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield n


def span(lines_b, n):
    """The byte span of n, its decorators included, in the module's bytes."""
    first = n.decorator_list[0] if n.decorator_list else n
    line, col = first.lineno, first.col_offset - (1 if n.decorator_list else 0)
    if n.decorator_list:
        # the `@` before the first decorator's expression, blanks allowed between
        text = lines_b[line - 1]
        col = text.rindex(b"@", 0, first.col_offset + 0)
    start = sum(len(x) + 1 for x in lines_b[: line - 1]) + col
    end = sum(len(x) + 1 for x in lines_b[: n.end_lineno - 1]) + n.end_col_offset
    return start, end, col


def parse_def(text, col):
    """pgci's text of a definition that stood at column col, as a tree."""
    if col:
        text = "class _W:\n" + " " * col + text
        return ast.parse(text).body[0].body[0]
    return ast.parse(text).body[0]


def bare(n):
    return ast.dump(n, annotate_fields=True, include_attributes=False)


def main():
    tool, modules = sys.argv[1], sys.argv[2:]
    ndefs = nfolded = ntemps = 0
    bad = []
    for path in modules:
        raw = open(path, "rb").read()
        text = raw.decode()
        tree = ast.parse(text)
        lines_b = raw.split(b"\n")
        src = Source(text)
        defs = list(defs_of(tree))
        spans = [span(lines_b, d) for d in defs]
        inp = "".join(f"{s} {e}\n" for s, e, _ in spans)
        out = subprocess.run([tool, path], input=inp, capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr.strip())
            return 1
        got = [json.loads(line) for line in out.stdout.splitlines()]
        if len(got) != len(defs):
            print(f"{path}: {len(defs)} definitions, {len(got)} answers")
            return 1
        for d, (s, e, col), g in zip(defs, spans, got):
            ndefs += 1
            want = copy.deepcopy(d)
            n = fold(want, src)
            if g["n"] < 0:
                bad.append(f"{path}:{d.lineno} {d.name}: pgci did not read it")
                continue
            mine = parse_def(g["text"], col) if g["n"] else None
            if n != g["n"] or (n and bare(mine) != bare(want)):
                bad.append(f"{path}:{d.lineno} {d.name}: CPython folds {n}, pgci {g['n']}")
                continue
            nfolded += n > 0
            ntemps += n
    print(f"{ndefs} definitions, {nfolded} folded ({ntemps} temporaries), {len(modules)} modules")
    for b in bad[:20]:
        print("DIFF", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
