#!/usr/bin/env python3
"""Checks .github/workflows/*.yml against the built pgci.

Each workflow must parse as YAML, and every `bin/pgci <command> ...` it runs must
name a command that exists and only options that `pgci <command> --help` lists, so
that renaming a flag breaks this test instead of a night's survey.

usage: check_workflows.py PGCI WORKFLOW.yml...
"""
import re
import shlex
import subprocess
import sys

import yaml


def run_lines(doc):
    for job in (doc.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            script = step.get("run")
            if script:
                yield from script.splitlines()


def main():
    pgci, files = sys.argv[1], sys.argv[2:]
    helps = {}
    checked = 0
    errors = []
    for path in files:
        with open(path) as f:
            doc = yaml.safe_load(f)
        if not isinstance(doc, dict) or "jobs" not in doc:
            errors.append(f"{path}: not a workflow (no jobs)")
            continue
        for line in run_lines(doc):
            m = re.search(r"bin/pgci\s+(.*)", line)
            if not m:
                continue
            words = shlex.split(m.group(1).replace("${{", "X").replace("}}", "X"), posix=True)
            cmd = words[0]
            if cmd not in helps:
                p = subprocess.run([pgci, cmd, "--help"], capture_output=True, text=True)
                if p.returncode != 0:
                    errors.append(f"{path}: pgci {cmd}: no such command ({p.stderr.strip()})")
                    helps[cmd] = None
                    continue
                helps[cmd] = p.stdout
            text = helps[cmd]
            if text is None:
                continue
            for w in words[1:]:
                if w.startswith("--"):
                    flag = w.split("=", 1)[0]
                    if not re.search(r"(^|[\s,])" + re.escape(flag) + r"(\s|$|=)", text, re.M):
                        errors.append(f"{path}: pgci {cmd} has no option {flag}")
                    checked += 1
    for e in errors:
        print(e)
    print(f"{len(files)} workflows, {checked} options checked, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
