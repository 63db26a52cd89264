#!/usr/bin/env python3
"""The directory-level include graph of pgci, checked against docs/architecture.md.

Usage: include_graph.py ROOT [DOC]

Reads every #include "..." of the C sources and headers under src/*/, checks/,
reports/ and kernels/ of ROOT; each include names a directory (its first path
component: "core/error.h" is src/core, "checks/check.h" is checks). Fails (exit 1,
one line per problem) when
  - a library directory (any but src/cmd and src/main.c) includes src/cmd/,
  - a directory includes one that the "may include" column of DOC's table does not
    list (the table is the documented layering; "anything" allows all),
  - an include names no directory of the tree,
  - the graph between directories has a cycle (printed as a path).
Prints the edges it found, with counts, on success.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LIB_TOPS = ("checks", "reports", "kernels")


def directories(root):
    dirs = {}
    for d in sorted(os.listdir(os.path.join(root, "src"))):
        if os.path.isdir(os.path.join(root, "src", d)):
            dirs[d] = "src/" + d
    for d in LIB_TOPS:
        if os.path.isdir(os.path.join(root, d)):
            dirs[d] = d
    return dirs


def sources(root, dirs):
    for short, rel in dirs.items():
        for name in sorted(os.listdir(os.path.join(root, rel))):
            if name.endswith((".c", ".h")):
                yield short, os.path.join(rel, name)
    if os.path.isfile(os.path.join(root, "src/main.c")):
        yield "main", "src/main.c"


def allowed_from_doc(doc):
    """The table rows "| `src/core` | ... | core, py |" -> {"core": {...}}."""
    allowed = {}
    for line in open(doc, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        short = cells[0].strip("`").split("/")[-1]
        may = cells[-1]
        if may == "anything":
            allowed[short] = None
        else:
            allowed[short] = {m.strip() for m in may.split(",") if m.strip() not in ("", "-")}
    return allowed


def find_cycle(graph):
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    doc = argv[2] if len(argv) > 2 else os.path.join(root, "docs/architecture.md")
    dirs = directories(root)
    allowed = allowed_from_doc(doc)
    allowed["main"] = None
    problems = []
    edges = {}
    for short, path in sources(root, dirs):
        text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        for inc in INCLUDE.findall(text):
            top = inc.split("/")[0]
            if "/" not in inc:
                continue  # a private header next to the file: same directory
            if top not in dirs:
                problems.append(f"{path}: #include \"{inc}\" names no directory of the tree")
                continue
            if top == short:
                continue
            edges[(short, top)] = edges.get((short, top), 0) + 1
            if top == "cmd" and short not in ("cmd", "main"):
                problems.append(f"{path}: #include \"{inc}\": a library directory includes src/cmd/")
            elif short not in allowed:
                problems.append(f"{path}: {dirs.get(short, short)} is not in {doc}'s table")
            elif allowed[short] is not None and top not in allowed[short]:
                problems.append(f"{path}: #include \"{inc}\": {dirs.get(short, short)} may not "
                                f"include {dirs[top]} (docs/architecture.md)")
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    cycle = find_cycle(graph)
    if cycle:
        problems.append("directory include cycle: " + " -> ".join(cycle))
    for p in sorted(set(problems)):
        print(p)
    if problems:
        return 1
    for (a, b), n in sorted(edges.items()):
        print(f"{a} -> {b} ({n})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
