"""The oracle for pgci's body fingerprints.

Usage:
  index_fingerprint.py same LIST_A JSONL_A LIST_B JSONL_B
      B is A reformatted (ruff format with other settings): every definition must
      keep its fingerprint.
  index_fingerprint.py ast LIST_A JSONL_A LIST_B JSONL_B
      A and B are two releases: for every definition present in both (same file
      name, same qualified name), the fingerprints must be equal exactly when
      CPython's ast of the bodies is equal (ast.dump, the docstring compared as
      inspect.cleandoc reads it).
"""
import ast
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

    def norm(body):
        body = list(body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body[0] = ast.Expr(ast.Constant(inspect.cleandoc(body[0].value.value)))
        return ast.dump(ast.Module(body, []))

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
    recs = [json.loads(line) for line in open(jsonl_path)]
    if len(files) != len(recs):
        sys.exit(f"{jsonl_path}: {len(recs)} records for {len(files)} files")
    return files, recs


def main():
    mode = sys.argv[1]
    fa, ra = load(sys.argv[2], sys.argv[3])
    fb, rb = load(sys.argv[4], sys.argv[5])
    bad = []
    compared = equal = 0
    if mode == "same":
        for path, a, b in zip(fa, ra, rb):
            da, db = flatten(a["definitions"], {}), flatten(b["definitions"], {})
            if set(da) != set(db):
                bad.append(f"{path}: definitions differ after reformatting")
                continue
            for q in da:
                compared += 1
                if da[q]["fingerprint"] != db[q]["fingerprint"]:
                    bad.append(f"{path} {q}: fingerprint changed by reformatting")
        print(f"fingerprint vs formatting: {compared} definitions, {len(bad)} changed")
    else:
        by_name_b = {os.path.basename(p): (p, r) for p, r in zip(fb, rb)}
        for path_a, a in zip(fa, ra):
            name = os.path.basename(path_a)
            if name not in by_name_b:
                continue
            path_b, b = by_name_b[name]
            da, db = flatten(a["definitions"], {}), flatten(b["definitions"], {})
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
                    bad.append(f"{name} {q}: ast {'equal' if same_ast else 'differs'}, "
                               f"fingerprint {'equal' if same_fp else 'differs'}")
        print(f"fingerprint vs ast between releases: {compared} definitions in both "
              f"({equal} unchanged, {compared - equal} changed), {len(bad)} disagreements")
    for line in bad[:15]:
        print("  " + line)
    sys.exit(1 if bad else 0)


main()
