#!/usr/bin/env python3
"""Compares pgci's syntax checks of Python files (tests/tools/compile_check) with
CPython's compile() of the same files, for tests/oracle/compile.sh.

    compile_compare.py [--exact] TOOL LIST     the files named in LIST, one a line

A file CPython compiles must not be refused by what pgci checks after its parse
(config_compile.c: the compiler's, the symbol table's and the parser's rules a tree
that parsed can break) nor for a target it cannot assign to (config_target.c):
either is a failure. A refusal of tree-sitter-python's parse of a file CPython
compiles is counted and listed (the grammar's own gaps). Of the files CPython
refuses, it counts those refused at CPython's line, with its column and message.
Exits 1 on a failure."""
import collections
import subprocess
import sys
import warnings

# the refusals of a target in a tree with an error (config_target.c)
TARGET = ("cannot assign to", "cannot delete", "assignment to yield expression",
          "is an illegal expression for augmented assignment", "invalid syntax. Maybe you meant")


def cpython(path):
    """'ok', None when the file is not one to compare, or (line, col, msg)."""
    try:
        src = open(path, "rb").read()
        src.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if b"\r" in src or b"\0" in src or b"\f" in src:
        return None  # pgci reads only \n line breaks; \f columns differ
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(src, path, "exec", dont_inherit=True)
            return "ok"
        except SyntaxError as e:
            return (e.lineno, e.offset, e.msg)
        except (ValueError, RecursionError, MemoryError):
            return None


def verdicts(tool, want):
    """(path, CPython's verdict, compile_check's tab-separated fields) of each file
    of want (path -> verdict) that compile_check could read."""
    out = subprocess.run([tool, "--files-from", "-"], input="\n".join(want) + "\n",
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split("\t")
        if f[1] != "unreadable":
            yield f[0], want[f[0]], f


def main():
    exact = sys.argv[1] == "--exact"
    tool, listfile = sys.argv[1 + exact], sys.argv[2 + exact]
    want = {}
    for line in open(listfile):
        path = line.strip()
        got = cpython(path) if path else None
        if got is not None:
            want[path] = got
    n = collections.Counter()
    failures = 0
    for _, w, f in verdicts(tool, want):
        if w == "ok" and f[1] == "ok":
            n["compiled by both"] += 1
        elif w == "ok":
            stage, why = f[1], f[3]
            if stage == "compile" or any(t in why for t in TARGET):
                failures += 1
                print(f"FAIL: {f[0]}: CPython compiles it, pgci refused it ({stage}): "
                      f"{f[2]}: {why}")
            else:
                n["compiled by CPython, refused by tree-sitter's parse"] += 1
                print(f"note: {f[0]}: CPython compiles it, tree-sitter-python does not: "
                      f"{f[2]}: {why}")
        elif f[1] == "ok":
            n["refused by CPython, not by pgci"] += 1
            if exact:
                failures += 1
                print(f"FAIL: {f[0]}: CPython: {w[0]}:{w[1]}: {w[2]}; pgci compiles it")
        else:
            line_, col = (int(x) for x in f[2].split(":"))
            if line_ == w[0] and f[3] == w[2] and w[1] in (None, col):
                n["refused at CPython's line and column, its message"] += 1
            elif exact:
                failures += 1
                print(f"FAIL: {f[0]}: CPython: {w[0]}:{w[1]}: {w[2]}; pgci: {f[2]}: {f[3]}")
            elif line_ == w[0]:
                n["refused at CPython's line"] += 1
            else:
                n["refused at another line"] += 1
    for k, v in sorted(n.items()):
        print(f"{v:6d}  {k}")
    if failures:
        print(f"{failures} files CPython compiles refused by pgci's checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
