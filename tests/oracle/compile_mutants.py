#!/usr/bin/env python3
"""Mutants of the standard library against CPython 3.11's compile(): where pgci's
syntax checks (tests/tools/compile_check) accept what CPython refuses, or refuse
what it compiles. A search, not a test (its mutants that tree-sitter-python reads
loosely are known classes, listed in docs/config_eval.md); run it by hand:

    compile_mutants.py TOOL [SEED [N]]

Each mutant is a module of python3's standard library (2 to 20 KB, not its tests)
with one or two edits: a token, a character or an escape put in, a byte taken out.
Prints the counts, then each kind of disagreement with one example."""
import collections
import os
import random
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_compare import cpython, verdicts  # noqa: E402  (the oracle's own readings)

INSERTS = ["\x0b", "\u200b", "\u00a0", "\t", " ", "\\", "\n", "(", ")", ":", ";", "#", '"',
           "'", "@", "*", "=", "lambda ", "yield ", "await ", "async ", "nonlocal x\n",
           "global x\n", "return ", "del ", 'f"{', "}", "$", "?", "!", "`", "\u00e9", "1", "0",
           "_", ".", "...", "->", ",", "[", "]", "{", "if ", "else ", "not ", "is ", "in ",
           "import ", "from ", "as ", "with ", "for ", ":=", "**", "/", "|", "-", "+", "%",
           "\\x", "\\u", "\\N{", 'r"', 'b"', "print ", "class ", "def ", "pass\n", "    ",
           "\n    "]


def modules():
    root = sysconfig.get_paths()["stdlib"]
    out = []
    for d, _, fs in os.walk(root):
        if "site-packages" in d or "/test" in d or "lib2to3" in d:
            continue
        for f in fs:
            p = os.path.join(d, f)
            if f.endswith(".py") and 2000 < os.path.getsize(p) < 20000:
                out.append(p)
    return sorted(out)


def mutate(rng, s):
    for _ in range(rng.choice([1, 1, 2])):
        k = rng.randrange(len(s))
        op = rng.random()
        if op < 0.6:
            s = s[:k] + rng.choice(INSERTS) + s[k:]
        elif op < 0.8:
            s = s[:k] + s[k + 1:]
        else:
            s = s[:k] + rng.choice(INSERTS) + s[k + 1:]
    return s


def main():
    tool = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 4000
    rng = random.Random(seed)
    mods = modules()
    with tempfile.TemporaryDirectory() as tmp:
        want = {}
        for i in range(n):
            s = open(rng.choice(mods), encoding="utf-8", errors="replace").read()
            if "\r" in s or "\f" in s or "coding" in s[:200]:
                continue
            s = mutate(rng, s)
            if "\r" in s:
                continue
            path = os.path.join(tmp, f"m_{i}.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(s)
            w = cpython(path)
            if w is not None:
                want[path] = w
        n_ = collections.Counter()
        kinds = collections.Counter()
        example = {}
        for _, w, f in verdicts(tool, want):
            if w == "ok" and f[1] == "ok":
                n_["compiled by both"] += 1
            elif w == "ok":
                n_["refused by pgci, compiled by CPython"] += 1
                key = "pgci refuses: " + f[3][:60]
            elif f[1] == "ok":
                n_["compiled by pgci, refused by CPython"] += 1
                key = "CPython refuses: " + w[2][:60]
            else:
                line_, col = (int(x) for x in f[2].split(":"))
                n_["refused by both" + (", at CPython's line" if line_ == w[0] else "")] += 1
                continue
            if not (w == "ok" and f[1] == "ok"):
                kinds[key] += 1
                if key not in example:
                    src = open(f[0], encoding="utf-8").read().split("\n")
                    at = (int(f[2].split(":")[0]) if w == "ok" else w[0]) or 1
                    example[key] = repr(src[at - 1][:100]) if at <= len(src) else ""
        for k, v in sorted(n_.items()):
            print(f"{v:6d}  {k}")
        for k, v in kinds.most_common():
            print(f"{v:6d}  {k}  e.g. {example[k]}")


if __name__ == "__main__":
    main()
