"""The oracle for pgci's module index: CPython's own ast module.

Usage: index_ast.py FILE_LIST PGCI_JSONL

For every file of FILE_LIST, computes with ast what pgci's index must hold and
compares it with the matching JSON Lines record of `pgci index --json`:

- every definition pgci indexes (module-level functions and classes, also under a
  module-level if/try/with, and recursively the methods and nested classes of
  classes), in order: kind, qualified name, def line, first decorator line, end
  line, async, conditional;
- parameters: names and kinds in order; defaults, annotations and return
  annotations by source text: exactly when the source segment is one line, else
  pgci's joined text must parse to the same ast as the original expression;
- decorators and bases (keywords included) by source text when one line;
- docstrings exactly (ast.get_docstring(clean=False));
- `self.X` assignment targets in the first __init__ (sorted, unique);
- module-level and class-level assignments: names, lines, values, annotations;
- every import anywhere (module, name, alias, level, line, enclosing scope, inside
  a try, inside an if).

Prints a summary and the first mismatches; exits 1 on any mismatch.
"""
import ast
import json
import re
import sys

KINDS = {
    "posonly": "positional_only",
    "args": "positional_or_keyword",
    "vararg": "var_positional",
    "kwonly": "keyword_only",
    "kwarg": "var_keyword",
}


class Multi:
    """A multi-line expression: pgci joins its lines and drops its comments, so its
    text must parse back to the same ast (positions aside) as the original node."""

    def __init__(self, node):
        self.node = node

    def __eq__(self, text):
        if not isinstance(text, str):
            return False
        try:
            if isinstance(self.node, (ast.keyword, ast.Starred)):
                call = ast.parse("_(" + text + ")", mode="eval").body
                items = call.keywords if isinstance(self.node, ast.keyword) else call.args
                if len(call.keywords) + len(call.args) != 1:
                    return False
                got = items[0]
            else:
                got = ast.parse("(" + text + ")", mode="eval").body
        except SyntaxError:
            return False
        return ast.dump(got) == ast.dump(self.node)

    def __ne__(self, text):
        return not self.__eq__(text)

    def __repr__(self):
        return f"<multi-line {ast.unparse(self.node)!r}>"


class Ctx:
    def __init__(self, src):
        # ast columns are UTF-8 byte offsets within a line
        self.lines = [line.encode("utf-8") for line in re.split(r"\r\n|\r|\n", src)]

    def seg(self, node):
        """The source text of node when it is on one line, else a Multi."""
        if node is None:
            return None
        if node.end_lineno != node.lineno:
            return Multi(node)
        line = self.lines[node.lineno - 1]
        return line[node.col_offset:node.end_col_offset].decode("utf-8")


def params(fn, ctx):
    a = fn.args
    out = []
    positional = [(p, "posonly") for p in a.posonlyargs] + [(p, "args") for p in a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for (p, k), d in zip(positional, defaults):
        out.append((p.arg, KINDS[k], ctx.seg(d), ctx.seg(p.annotation)))
    if a.vararg:
        out.append((a.vararg.arg, KINDS["vararg"], None, ctx.seg(a.vararg.annotation)))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, KINDS["kwonly"], ctx.seg(d), ctx.seg(p.annotation)))
    if a.kwarg:
        out.append((a.kwarg.arg, KINDS["kwarg"], None, ctx.seg(a.kwarg.annotation)))
    return out


def target_names(t):
    if isinstance(t, ast.Name):
        yield t
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from target_names(e)
    elif isinstance(t, ast.Starred):
        yield from target_names(t.value)


def assigns(body, ctx):
    out = []
    for st in body:
        if isinstance(st, ast.Assign):
            for t in st.targets:
                out.extend((n.id, n.lineno, ctx.seg(st.value), None) for n in target_names(t))
        elif isinstance(st, ast.AnnAssign):
            out.extend((n.id, n.lineno, ctx.seg(st.value), ctx.seg(st.annotation))
                       for n in target_names(st.target))
    return out


def self_attrs(init):
    if not init.args.posonlyargs and not init.args.args:
        return []
    me = (init.args.posonlyargs + init.args.args)[0].arg
    names = set()

    def targets(t):
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
            names.add(t.attr)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)
        elif isinstance(t, ast.Starred):
            targets(t.value)

    def walk(stmts):
        for st in stmts:
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    targets(t)
            elif isinstance(st, ast.AnnAssign):
                targets(st.target)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(st, field, []) or [])
                for h in getattr(st, "handlers", []) or []:
                    walk(h.body)
                for c in getattr(st, "cases", []) or []:
                    walk(c.body)

    walk(init.body)
    return sorted(names)


def defs(body, parent, ctx, conditional, out):
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(one_def(st, parent, ctx, conditional))
        elif parent is None and isinstance(st, (ast.If, ast.Try, ast.With, getattr(ast, "TryStar", ast.Try))):
            defs(st.body, parent, ctx, True, out)
            defs(getattr(st, "orelse", []), parent, ctx, True, out)
            for h in getattr(st, "handlers", []):
                defs(h.body, parent, ctx, True, out)
            defs(getattr(st, "finalbody", []), parent, ctx, True, out)
    return out


def one_def(node, parent, ctx, conditional):
    q = f"{parent}.{node.name}" if parent else node.name
    d = {
        "kind": "class" if isinstance(node, ast.ClassDef) else "function",
        "qualname": q,
        "line": node.lineno,
        "start_line": node.decorator_list[0].lineno if node.decorator_list else node.lineno,
        "end_line": node.end_lineno,
        "conditional": conditional,
        "decorators": [ctx.seg(x) for x in node.decorator_list],
        "docstring": ast.get_docstring(node, clean=False),
    }
    if isinstance(node, ast.ClassDef):
        d["bases"] = [ctx.seg(b) for b in node.bases] + [ctx.seg(k) for k in node.keywords]
        members = defs(node.body, q, ctx, False, [])
        d["members"] = members
        d["attributes"] = assigns(node.body, ctx)
        inits = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == "__init__"]
        d["init_attributes"] = self_attrs(inits[0]) if inits else []
    else:
        d["async"] = isinstance(node, ast.AsyncFunctionDef)
        d["parameters"] = params(node, ctx)
        d["returns"] = ctx.seg(node.returns)
    return d


def imports(tree):
    out = []

    def walk(node, scope, in_try, in_if):
        for child in ast.iter_child_nodes(node):
            s, t, i = scope, in_try, in_if
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for a in child.names:
                    if isinstance(child, ast.Import):
                        out.append((a.lineno, a.name, None, a.asname, 0, scope, in_try, in_if))
                    else:
                        out.append((a.lineno, child.module or "", a.name, a.asname, child.level, scope, in_try, in_if))
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                s = f"{scope}.{child.name}" if scope else child.name
            if isinstance(child, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                t = True
            if isinstance(child, ast.If):
                i = True
            if isinstance(child, ast.stmt) or isinstance(child, (ast.excepthandler, ast.match_case)):
                walk(child, s, t, i)

    walk(tree, None, False, False)
    return sorted(out, key=repr)


def compare_def(exp, got, where, problems):
    def check(field, e, g):
        if e != g:
            problems.append(f"{where} {exp['qualname']}: {field}: ast {e!r}, pgci {g!r}")

    for f in ("kind", "qualname", "line", "start_line", "end_line", "conditional", "docstring"):
        check(f, exp[f], got[f])
    check("decorators", exp["decorators"], got["decorators"])
    if exp["kind"] == "class":
        check("bases", exp["bases"], got["bases"])
        check("init_attributes", exp["init_attributes"], got["init_attributes"])
        check("attributes", exp["attributes"],
              [(a["name"], a["line"], a["value"], a["annotation"]) for a in got["attributes"]])
        em, gm = exp["members"], got["members"]
        check("members", [m["qualname"] for m in em], [m["qualname"] for m in gm])
        if len(em) == len(gm):
            for e, g in zip(em, gm):
                compare_def(e, g, where, problems)
    else:
        check("async", exp["async"], got["async"])
        ep = exp["parameters"]
        gp = [(p["name"], p["kind"], p["default"], p["annotation"]) for p in got["parameters"]]
        check("parameters", ep, gp)
        check("returns", exp["returns"], got["returns"])


def json_values(text):
    """The JSON values in text, one after another: pgci index --json prints JSON Lines
    for several files and one pretty object for a single one."""
    dec, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        value, i = dec.raw_decode(text, i)
        out.append(value)


def main():
    files = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    records = json_values(open(sys.argv[2]).read())
    if len(records) != len(files):
        sys.exit(f"index oracle: {len(records)} pgci records for {len(files)} files")
    problems = []
    n_defs = n_params = n_imports = 0
    for path, rec in zip(files, records):
        src = open(path, encoding="utf-8").read()
        tree = ast.parse(src)
        ctx = Ctx(src)
        if rec["path"] != path:
            problems.append(f"{path}: record is for {rec['path']}")
            continue
        expect = defs(tree.body, None, ctx, False, [])
        got = rec["definitions"]
        if [d["qualname"] for d in expect] != [d["qualname"] for d in got]:
            problems.append(f"{path}: definitions: ast {[d['qualname'] for d in expect]}, "
                            f"pgci {[d['qualname'] for d in got]}")
            continue
        for e, g in zip(expect, got):
            compare_def(e, g, path, problems)

        def count(ds):
            nonlocal n_defs, n_params
            for d in ds:
                n_defs += 1
                n_params += len(d.get("parameters", []))
                count(d.get("members", []))

        count(expect)
        ei = imports(tree)
        gi = sorted(((i["line"], i["module"], i["name"], i["alias"], i["level"], i["scope"],
                      i["in_try"], i["in_if"]) for i in rec["imports"]), key=repr)
        n_imports += len(ei)
        if ei != gi:
            missing = [x for x in ei if x not in gi][:3]
            extra = [x for x in gi if x not in ei][:3]
            problems.append(f"{path}: imports differ: ast only {missing}, pgci only {extra}")
        ea = assigns(tree.body, ctx)
        ga = [(a["name"], a["line"], a["value"], a["annotation"]) for a in rec["assignments"]]
        if ea != ga:
            problems.append(f"{path}: module assignments: ast {ea[:5]}..., pgci {ga[:5]}...")
        ed = ast.get_docstring(tree, clean=False)
        if ed != rec["docstring"]:
            problems.append(f"{path}: module docstring differs")
    print(f"ast oracle: {len(files)} files, {n_defs} definitions, {n_params} parameters, "
          f"{n_imports} imports compared; {len(problems)} mismatches")
    for p in problems[:20]:
        print("  " + p)
    sys.exit(1 if problems else 0)


main()
