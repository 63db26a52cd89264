"""The argument docs pgci reads from a docstring against transformers' own reader.

usage: docstring_args.py INDEX_JSONL KNOWN

INDEX_JSONL is `pgci index --json` over Python files; this runs under the Python of
a venv with transformers installed, and for every function with a docstring asks
transformers.utils.auto_docstring.parse_docstring - what @auto_docstring reads as
documented arguments - and compares it with pgci's `doc_args`. A name transformers
reads and pgci does not would make the survey's auto-docstring check report an
argument as undocumented when it is documented: each such function must be in
KNOWN (one `file<TAB>qualname` a line, the reviewed exceptions). pgci reading more
names (Google-style `name: text` entries, which parse_docstring skips) only makes
that check say less, and is counted. Exits 1 on an unknown miss or a known one gone.
"""
import ast
import json
import os
import sys

from transformers.utils.auto_docstring import parse_docstring

index, known_path = sys.argv[1:3]
known = {tuple(line.rstrip("\n").split("\t")) for line in open(known_path)
         if line.strip() and not line.startswith("#")}
total = agree = more = 0
misses = set()
for line in open(index):
    m = json.loads(line)
    tree = ast.parse(open(m["path"], "rb").read())
    docs = {node.lineno: ast.get_docstring(node, clean=False) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    stack = list(m["definitions"])
    while stack:
        d = stack.pop()
        stack.extend(d.get("members") or [])
        doc = docs.get(d["line"]) if d["kind"] == "function" else None
        if not doc:
            continue
        total += 1
        real = set(parse_docstring(doc)[0])
        got = set(d["doc_args"])
        if real - got:
            misses.add((os.path.basename(m["path"]), d["qualname"]))
            print(f"pgci misses {sorted(real - got)} in {m['path']}:{d['line']} {d['qualname']}")
        elif got - real:
            more += 1
        else:
            agree += 1
print(f"{total} docstrings: {agree} read alike, {more} where pgci reads more names, "
      f"{len(misses)} where it misses one transformers reads ({len(misses & known)} known)")
gone = known - misses
for k in sorted(gone):
    print(f"known miss no longer missed (update {known_path}): {k[0]} {k[1]}")
sys.exit(1 if misses - known or gone or total == 0 else 0)
