"""The oracle for pgci's body fingerprints.

Usage:
  index_fingerprint.py same LIST_A JSONL_A LIST_B JSONL_B
      B is A reformatted (ruff format with other settings), files paired in order.
  index_fingerprint.py ast LIST_A JSONL_A LIST_B JSONL_B
      A and B are two releases, files paired by name.

For every definition present on both sides (same qualified name), the fingerprints
must be equal exactly when CPython's ast of the two bodies is equal (ast.dump, a
docstring compared as inspect.cleandoc reads it). After reformatting nearly every
body keeps its ast (ruff may still change a docstring's text, when a line of it
made by an escape sits at column 0); between releases, many change.
"""
import ast
import copy
import inspect
import json
import os
import sys


def flatten(defs, out):
    for d in defs:
        out.setdefault(d["qualname"], d)
        flatten(d.get("members", []), out)
    return out


def ast_bodies(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = {}

    def clean(body):
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body[0] = ast.Expr(ast.Constant(inspect.cleandoc(body[0].value.value)))
        return body

    def norm(body):
        # every docstring in the body, nested defs' too, as inspect.cleandoc reads it
        # `del a, b` and `del (a, b)` delete the same names; ast keeps the tuple
        # (ruff adds the parentheses when it wraps the statement)
        mod = copy.deepcopy(ast.Module(list(body), []))
        for node in ast.walk(mod):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                node.body = clean(node.body)
            if isinstance(node, ast.Delete) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Tuple):
                node.targets = node.targets[0].elts
        mod.body = clean(mod.body)
        return ast.dump(mod)

    def walk(stmts, parent, top):
        for st in stmts:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{parent}.{st.name}" if parent else st.name
                out.setdefault(q, norm(st.body))
                if isinstance(st, ast.ClassDef):
                    walk(st.body, q, False)
            elif top and isinstance(st, (ast.If, ast.Try, ast.With)):
                walk(st.body, parent, True)
                walk(getattr(st, "orelse", []), parent, True)
                for h in getattr(st, "handlers", []):
                    walk(h.body, parent, True)
                walk(getattr(st, "finalbody", []), parent, True)

    walk(tree.body, None, True)
    return out


def load(list_path, jsonl_path):
    files = [line.strip() for line in open(list_path) if line.strip()]
    recs = json_values(open(jsonl_path).read())
    if len(files) != len(recs):
        sys.exit(f"{jsonl_path}: {len(recs)} records for {len(files)} files")
    return files, recs


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
    mode = sys.argv[1]
    fa, ra = load(sys.argv[2], sys.argv[3])
    fb, rb = load(sys.argv[4], sys.argv[5])
    if mode == "same":
        pairs = [(pa, a, pb, b) for pa, a, pb, b in zip(fa, ra, fb, rb)]
    else:
        by_name_b = {os.path.basename(p): (p, r) for p, r in zip(fb, rb)}
        pairs = [(pa, a) + by_name_b[os.path.basename(pa)] for pa, a in zip(fa, ra)
                 if os.path.basename(pa) in by_name_b]
    bad = []
    compared = equal = 0
    for path_a, a, path_b, b in pairs:
        da, db = flatten(a["definitions"], {}), flatten(b["definitions"], {})
        if mode == "same" and list(da) != list(db):
            bad.append(f"{path_a}: definitions differ after reformatting")
            continue
        common = [q for q in da if q in db]
        if not common:
            continue
        xa, xb = ast_bodies(path_a), ast_bodies(path_b)
        for q in common:
            if q not in xa or q not in xb:
                continue
            compared += 1
            same_ast = xa[q] == xb[q]
            same_fp = da[q]["fingerprint"] == db[q]["fingerprint"]
            equal += same_ast
            if same_ast != same_fp:
                bad.append(f"{os.path.basename(path_a)} {q}: ast {'equal' if same_ast else 'differs'}, "
                           f"fingerprint {'equal' if same_fp else 'differs'}")
    what = ("after reformatting with ruff" if mode == "same" else "between releases")
    print(f"fingerprint vs ast {what}: {compared} definitions compared ({equal} with an equal ast, "
          f"{compared - equal} changed), {len(bad)} disagreements")
    for line in bad[:15]:
        print("  " + line)
    sys.exit(1 if bad else 0)


main()
