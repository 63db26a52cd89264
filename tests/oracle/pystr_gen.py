"""Generates Python string literals and what CPython makes of them.

Writes two files: the literals (NUL-separated, for pgci's decoder) and, per literal,
CPython's verdict as one JSON object per line: {"ok": hex} with the value's bytes
(UTF-8 with surrogatepass for str, the bytes for bytes), {"unsupported": true} for
f-strings with replacement fields and \\N{...} escapes (which pgci refuses), or
{"error": "..."} for a SyntaxError. The verdict comes from ast.parse, never from a
reimplementation of the rules.
"""
import ast
import json
import random
import sys
import warnings

warnings.simplefilter("ignore")

PREFIXES = ["", "r", "u", "b", "f", "br", "rb", "fr", "rf"]
BAD_PREFIXES = ["ub", "bu", "ur", "bf", "fb", "rr", "bb", "uf"]
QUOTES = ["'", '"', "'''", '"""']

PIECES = [
    "abc", "hello world", " ", "x" * 40, "é", "中文", "😀", "\u00a0", "'", '"', "`",
    "\\n", "\\t", "\\\\", "\\'", '\\"', "\\a", "\\b", "\\f", "\\v", "\\r",
    "\\0", "\\7", "\\07", "\\101", "\\777", "\\400", "\\1234", "\\08", "\\8", "\\9",
    "\\x41", "\\xff", "\\x7b", "\\xA", "\\xg1", "\\x",
    "\\u00e9", "\\u4e2d", "\\ud800", "\\udfff", "\\u12", "\\uZZZZ",
    "\\U0001F600", "\\U00110000", "\\U000000e9", "\\U0001f60",
    "\\q", "\\z", "\\ ", "\\é", "\\{", "\\}",
    "\\\n", "\\\r\n", "\n", "\r\n", "\r",
    "{{", "}}", "{", "}", "{x}", "{x!r}", "{{x}}",
    "\\N{DASH}", "\\N{LATIN SMALL LETTER E WITH ACUTE}", "\\N",
    "\t", "#not a comment", "\\\\\\",
]


def one_literal(rng):
    if rng.random() < 0.04:
        prefix = rng.choice(BAD_PREFIXES)
    else:
        prefix = "".join(c.upper() if rng.random() < 0.3 else c for c in rng.choice(PREFIXES))
        if len(prefix) == 2 and rng.random() < 0.5:
            prefix = prefix[::-1]
    quote = rng.choice(QUOTES)
    body = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
    return prefix + quote + body + quote


def one_expr(rng):
    n = 1 if rng.random() < 0.6 else rng.randint(2, 3)
    parts = [one_literal(rng) for _ in range(n)]
    seps = [" ", "", "  ", " \\\n"]
    out = parts[0]
    for p in parts[1:]:
        out += rng.choice(seps) + p
    if n > 1 and rng.random() < 0.3:
        out = "(" + out.replace(" \\\n", "\n") + ")"
    return out, n


def verdict(src):
    try:
        node = ast.parse(src, mode="eval").body
    except SyntaxError as e:
        return {"error": str(e)}
    except ValueError as e:  # e.g. source with a NUL byte
        return {"error": str(e)}
    if isinstance(node, ast.JoinedStr):
        if any(not isinstance(v, ast.Constant) for v in node.values):
            return {"unsupported": True}
        value = "".join(v.value for v in node.values)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        value = node.value
    else:
        return {"error": "not a string: " + type(node).__name__}
    # pgci refuses \N{...} in str literals even when Python knows the name. Python
    # tells which were real escapes: they are gone from the value, while a raw
    # literal's or an escaped backslash's "N{...}" is still there.
    named = "N{LATIN SMALL LETTER E WITH ACUTE}"
    if isinstance(value, str) and value.count(named) < src.count("\\" + named):
        return {"unsupported": True}
    data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return {"ok": data.hex()}


def main():
    count, seed, lits_path, verdicts_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = random.Random(seed)
    with open(lits_path, "wb") as lits, open(verdicts_path, "w") as out:
        for _ in range(count):
            src, n_parts = one_expr(rng)
            lits.write(src.encode("utf-8") + b"\0")
            v = verdict(src)
            v["src"] = src
            v["single"] = n_parts == 1
            out.write(json.dumps(v) + "\n")


main()
