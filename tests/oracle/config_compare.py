#!/usr/bin/env python3
"""Compares the real patchgen's view of configs (config_dump.py) with pgci's
(tests/tools/config_dump), one JSON line per config in the same order.

    config_compare.py same PY.jsonl PGCI.jsonl      every config evaluates, identically
    config_compare.py fail PY.jsonl PGCI.jsonl      every config fails on both sides

Prints one line per config and the first difference of each mismatch; exits 1 on any.
"""
import json
import sys


def first_difference(a, b, path="config"):
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present on one side only"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"


def main():
    mode, py_path, pg_path = sys.argv[1:4]
    py = [json.loads(line) for line in open(py_path)]
    pg = [json.loads(line) for line in open(pg_path)]
    if len(py) != len(pg) or not py:
        print(f"different or no results: {len(py)} from patchgen, {len(pg)} from pgci")
        return 1
    bad = 0
    for a, b in zip(py, pg):
        name = a["file"]
        if mode == "fail":
            ok = "error" in a and "error" in b
            why = "" if ok else f"patchgen: {a.get('error', 'evaluated')}; pgci: {b.get('error', 'evaluated')}"
        elif "error" in a or "error" in b:
            ok, why = False, f"patchgen: {a.get('error', 'ok')}; pgci: {b.get('error', 'ok')}"
        else:
            why = first_difference(a["config"], b["config"])
            ok = why is None
        patches = len(a["config"]["patches"]) if "config" in a else 0
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f" ({patches} patches)" if mode == "same" else ""))
        if not ok:
            print(f"     {why}")
            bad += 1
    verdict = "identical" if mode == "same" else "refused by both"
    print(f"{len(py) - bad}/{len(py)} configs {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
