"""Differential test of pgci's difflib against Python's difflib.

Generates cases (random and adversarial), writes them into one batch file, lets
pgci's difftool diff them all in one process while Python computes the expected
bytes, then compares every case byte for byte: the unified diff
("".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), fromfile,
tofile, n=n))) and the patchgen .diff form (every line of that right-stripped,
joined with "\\n", plus one final newline). Any mismatch is printed with its case
and the inputs are saved for replay; the exit status is 1.

    difflib_oracle.py --tool DIFFTOOL [--cases N] [--seed S]
                      [--pairs DIR_A DIR_B [--match GLOB] [--one-way]] [--keep DIR]

--pairs diffs every file whose name matches GLOB under either directory against
the file at the same relative path under the other (the empty text when it is
missing there), in both directions unless --one-way, instead of generated cases.
"""

import argparse
import difflib
import fnmatch
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

# Line terminators of str.splitlines, and the whitespace str.rstrip removes.
EOLS = ["\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
SPACES = [" ", "\t", "\x1f", "\xa0", "\u1680", "\u2000", "\u2007", "\u200a", "\u202f",
          "\u205f", "\u3000"]
NOT_SPACES = ["\u200b", "\u180e", "\ufeff", "x"]  # look blank, are not str.isspace()

WORDS = ["self", "hidden_states", "attention_mask", "return", "def", "class", "import",
         "torch", "nn.Linear", "config", "None", "if", "else:", "for", "in", "range",
         "(", ")", ":", "=", "+", "*", "é", "中文", "🙂", "x", "y", "0", "1", "\x00"]

CODE = ["\n", "\n", "\n", "    pass\n", "        return hidden_states\n", ")\n", "]\n",
        "    }\n", "        )\n", "# comment\n", "import torch\n", "from torch import nn\n",
        "    def forward(self, x):\n", "class Model(nn.Module):\n", "        x = x + 1\n",
        "    @property\n", "        super().__init__()\n", '    """Docstring."""\n']


def rand_line(rng, eol="\n"):
    kind = rng.random()
    if kind < 0.08:
        body = ""
    elif kind < 0.5:
        body = rng.choice(CODE).rstrip("\n")
    else:
        body = " " * rng.choice([0, 4, 8]) + " ".join(
            rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
    if rng.random() < 0.1:
        body += "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.03:
        body += rng.choice(NOT_SPACES)
    return body + eol


def rand_eol(rng, mix):
    if mix < 0.7:
        return "\n"
    if mix < 0.85:
        return "\r\n" if rng.random() < 0.8 else "\n"
    return rng.choice(EOLS)


def vocab_lines(rng, n, vocab, mix):
    return [vocab[rng.randrange(len(vocab))] if rng.random() < 0.6
            else rand_line(rng, rand_eol(rng, mix)) for _ in range(n)]


def mutate(rng, lines, edits, vocab, mix):
    b = list(lines)
    for _ in range(edits):
        op = rng.random()
        pos = rng.randint(0, len(b))
        if op < 0.3:
            b[pos:pos] = vocab_lines(rng, rng.randint(1, 6), vocab, mix)
        elif op < 0.55 and b:
            del b[pos:pos + rng.randint(1, 6)]
        elif op < 0.8 and b:
            b[pos:pos + rng.randint(1, 4)] = vocab_lines(rng, rng.randint(1, 4), vocab, mix)
        elif op < 0.9 and b:
            lo = rng.randrange(len(b))
            b[pos:pos] = b[lo:lo + rng.randint(1, 10)]  # duplicate a block
        elif b:
            lo = rng.randrange(len(b))
            blk = b[lo:lo + rng.randint(1, 10)]
            del b[lo:lo + len(blk)]
            pos = rng.randint(0, len(b))
            b[pos:pos] = blk  # move a block
    return b


def join(rng, lines, strip_final):
    s = "".join(lines)
    if strip_final and s and rng.random() < 0.8:
        # Drop the final terminator (all of "\r\n", or just the "\n" of it).
        for e in sorted(EOLS, key=len, reverse=True):
            if s.endswith(e):
                s = s[:-len(e)] if rng.random() < 0.8 else s[:-1]
                break
    return s


def junk_case(rng):
    """Sizes around the autojunk threshold with lines just over and under it."""
    n = rng.choice([rng.randint(195, 205), rng.randint(199, 420), rng.randint(600, 1500)])
    limit = 1 + n // 100
    popular = ["\n", "    pass\n", ")\n"][: rng.randint(1, 3)]
    base = []
    for p in popular:
        base += [p] * (limit + rng.choice([-1, 0, 1, 2, 5, 30]))
    base += [rand_line(rng) for _ in range(max(0, n - len(base)))]
    rng.shuffle(base)
    a = mutate(rng, base, rng.randint(1, 12), popular, 0)
    b = mutate(rng, base, rng.randint(0, 12), popular, 0)
    return a, b


def gen_case(rng, i):
    """Returns (category, a, b, n, fromfile, tofile)."""
    cat = i % 12
    n = 3 if rng.random() < 0.8 else rng.choice([0, 1, 2, 4, 5, 10, 100])
    mix = rng.random()
    strip_final = rng.random() < 0.25
    if cat == 0:  # tiny alphabets: heavy repetition, many equal-length ties
        vocab = [c + "\n" for c in "abcde"[: rng.randint(1, 5)]]
        a = [rng.choice(vocab) for _ in range(rng.randint(0, 30))]
        b = [rng.choice(vocab) for _ in range(rng.randint(0, 30))]
        name = "tiny"
    elif cat == 1:  # empty sides
        lines = vocab_lines(rng, rng.randint(0, 40), CODE, mix)
        side = rng.randrange(3)
        a, b = ([], lines) if side == 0 else (lines, []) if side == 1 else ([], [])
        name = "empty"
    elif cat in (2, 3):
        a, b = junk_case(rng)
        name = "junk"
    elif cat == 4:  # every terminator and trailing Unicode whitespace
        vocab = [rand_line(rng, rng.choice(EOLS)) for _ in range(rng.randint(3, 30))]
        a = vocab_lines(rng, rng.randint(0, 80), vocab, 1.0)
        b = mutate(rng, a, rng.randint(1, 8), vocab, 1.0)
        name = "eol"
    elif cat == 5 and i % 60 == 5:  # long files, small edits
        size = rng.randint(1000, 5000) if i % 1200 != 5 else rng.randint(10000, 16000)
        a = vocab_lines(rng, size, CODE, mix)
        b = mutate(rng, a, rng.randint(1, 10), CODE, mix)
        name = "long"
    elif cat == 6:  # identical inputs: the diff is empty
        a = vocab_lines(rng, rng.randint(0, 50), CODE, mix)
        b = list(a)
        name = "same"
    elif cat == 7:  # unrelated inputs
        a = vocab_lines(rng, rng.randint(0, 60), CODE, mix)
        b = vocab_lines(rng, rng.randint(0, 60), CODE, mix)
        name = "random"
    else:  # a file and its edited copy
        vocab = [rand_line(rng, rand_eol(rng, mix)) for _ in range(rng.randint(2, 60))]
        a = vocab_lines(rng, rng.randint(0, 400), vocab + CODE, mix)
        b = mutate(rng, a, rng.randint(1, 15), vocab + CODE, mix)
        name = "edit"
    fromfile, tofile = "a/src/module.py", "b/out/module.py"
    if rng.random() < 0.1:
        fromfile, tofile = rng.choice([("", ""), ("a b ", "c\td\t"), ("é/中.py", "b/x\u3000"),
                                       ("x\ry", "z\x85w"), ("a/m.py", "b/m.py  ")])
    return (name, join(rng, a, strip_final), join(rng, b, strip_final), n, fromfile, tofile)


def expected(case):
    _, a, b, n, fromfile, tofile = case
    al, bl = a.splitlines(True), b.splitlines(True)
    text = "".join(difflib.unified_diff(al, bl, fromfile, tofile, n=n))
    if n != 3:
        text3 = "".join(difflib.unified_diff(al, bl, fromfile, tofile, n=3))
    else:
        text3 = text
    pg = "\n".join(line.rstrip() for line in text3.splitlines()) + "\n" if text3 else text3
    return text.encode("utf-8"), pg.encode("utf-8")


def pair_cases(dir_a, dir_b, pattern, both_ways):
    """Every file matching pattern under either directory, diffed from dir_a to
    dir_b (and back with both_ways); a file missing on one side is diffed against
    the empty text."""

    def listing(top):
        found = {}
        for root, _, files in os.walk(top):
            for f in files:
                if fnmatch.fnmatch(f, pattern):
                    path = os.path.join(root, f)
                    with open(path, "rb") as fh:
                        found[os.path.relpath(path, top)] = fh.read().decode("utf-8")
        return found

    old, new = listing(dir_a), listing(dir_b)
    cases = []
    for rel in sorted(set(old) | set(new)):
        kind = "pair" if rel in old and rel in new else "one-sided"
        a, b = old.get(rel, ""), new.get(rel, "")
        cases.append((kind, a, b, 3, "a/" + rel, "b/" + rel))
        if both_ways:
            cases.append((kind + "-reversed", b, a, 3, "a/" + rel, "b/" + rel))
    return cases


def write_batch(path, cases):
    with open(path, "wb") as f:
        for _, a, b, n, fromfile, tofile in cases:
            parts = [s.encode("utf-8") for s in (a, b, fromfile, tofile)]
            f.write(("%d %d %d %d %d\n" % (n, *map(len, parts))).encode())
            for p in parts:
                f.write(p)


def read_results(path, count):
    out = []
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    for _ in range(count):
        nl = data.index(b"\n", pos)
        lu, lp = map(int, data[pos:nl].split())
        pos = nl + 1
        out.append((data[pos:pos + lu], data[pos + lu:pos + lu + lp]))
        pos += lu + lp
    if pos != len(data):
        raise SystemExit("difftool wrote %d bytes past the last case" % (len(data) - pos))
    return out


def first_diff(x, y):
    xl, yl = x.splitlines(True), y.splitlines(True)
    for k, (p, q) in enumerate(zip(xl, yl)):
        if p != q:
            return "line %d: python %r, pgci %r" % (k + 1, p, q)
    return "python %d lines, pgci %d lines" % (len(xl), len(yl))


def save(keep, idx, case):
    os.makedirs(keep, exist_ok=True)
    name, a, b, n, fromfile, tofile = case
    for suffix, text in (("a", a), ("b", b)):
        with open(os.path.join(keep, "case%d.%s" % (idx, suffix)), "wb") as f:
            f.write(text.encode("utf-8"))
    with open(os.path.join(keep, "case%d.args" % idx), "w", encoding="utf-8") as f:
        f.write("%r\n" % ((name, n, fromfile, tofile),))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--cases", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=20260101)
    ap.add_argument("--pairs", nargs=2)
    ap.add_argument("--match", default="*", help="file name pattern for --pairs")
    ap.add_argument("--one-way", action="store_true", help="--pairs only from DIR_A to DIR_B")
    ap.add_argument("--keep", default="")
    ap.add_argument("--bench", action="store_true",
                    help="time pgci and Python one after the other (wall clock)")
    args = ap.parse_args()

    t0 = time.time()
    if args.pairs:
        cases = pair_cases(*args.pairs, args.match, not args.one_way)
        if not cases:
            raise SystemExit("no file exists under both %s and %s" % tuple(args.pairs))
    else:
        rng = random.Random(args.seed)
        cases = [gen_case(rng, i) for i in range(args.cases)]
    with tempfile.TemporaryDirectory(prefix="pgci-difflib-") as tmp:
        inp, outp = os.path.join(tmp, "cases.bin"), os.path.join(tmp, "results.bin")
        write_batch(inp, cases)
        if args.bench:
            # One after the other, so each side has the machine to itself.
            timesp = os.path.join(tmp, "times")
            t1 = time.time()
            rc = subprocess.call([args.tool, "batch", inp, outp, timesp])
            t_c = time.time() - t1
            with open(timesp) as f:
                in_c = float(f.read())
            t1 = time.time()
            want = [expected(c) for c in cases]
            t_py = time.time() - t1
        else:
            # pgci diffs while Python computes the expected bytes.
            proc = subprocess.Popen([args.tool, "batch", inp, outp])
            t1 = time.time()
            want = [expected(c) for c in cases]
            t_py = time.time() - t1
            rc = proc.wait()
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)
            t_c = ru.ru_utime + ru.ru_stime
        if rc != 0:
            raise SystemExit("difftool batch failed with status %d" % rc)
        got = read_results(outp, len(cases))

    bad = 0
    kinds = {}
    for idx, (case, (wu, wp), (gu, gp)) in enumerate(zip(cases, want, got)):
        kinds[case[0]] = kinds.get(case[0], 0) + 1
        for form, w, g in (("unified", wu, gu), ("patchgen", wp, gp)):
            if w != g:
                bad += 1
                if bad <= 10:
                    print("MISMATCH case %d (%s, n=%d) %s: %s"
                          % (idx, case[0], case[3], form, first_diff(w, g)))
                    if args.keep:
                        save(args.keep, idx, case)
    total_lines = sum(len(c[1].splitlines()) + len(c[2].splitlines()) for c in cases)
    changed = sum(1 for wu, _ in want if wu)
    print("python %s: %d cases (%s), %d input lines, %d with a non-empty diff; "
          "%d outputs compared byte for byte (unified + patchgen form)"
          % (sys.version.split()[0], len(cases),
             ", ".join("%s %d" % kv for kv in sorted(kinds.items())), total_lines, changed,
             2 * len(cases)))
    if args.bench:
        print("bench: diffing only: python difflib %.3fs, pgci %.3fs, %.1fx faster; "
              "pgci whole process incl. reading/writing the batch: %.3fs"
              % (t_py, in_c, t_py / max(in_c, 1e-6), t_c))
    else:
        print("time: python difflib %.2fs, pgci %.2fs (cpu), wall total %.2fs"
              % (t_py, t_c, time.time() - t0))
    if bad:
        print("FAIL: %d of %d outputs differ" % (bad, 2 * len(cases)))
        if args.keep:
            print("inputs saved under %s" % args.keep)
        return 1
    print("OK: all %d outputs byte-identical" % (2 * len(cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
