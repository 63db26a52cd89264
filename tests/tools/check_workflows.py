#!/usr/bin/env python3
"""Checks .github/workflows/*.yml against the built pgci.

Each workflow must parse as YAML, and every `bin/pgci <command> ...` it runs must
name a command that exists and only options that `pgci <command> --help` lists, so
that renaming a flag breaks this test instead of a night's survey.

Files under an examples/ directory are workflows other repositories copy (the
VeOmni PR gate); they must also be safe to copy (check_example).

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


WRITE_SCOPES = ("contents", "pull-requests", "security-events", "issues", "actions", "checks")


def job_writes(doc, job):
    perms = job.get("permissions", doc.get("permissions", {}))
    if perms == "write-all":
        return True
    return isinstance(perms, dict) and any(perms.get(s) == "write" for s in WRITE_SCOPES)


def check_example(path, doc):
    """The properties a copied PR-gate workflow must keep."""
    errors = []
    on = doc.get("on") or doc.get(True) or {}
    if "pull_request_target" in on:
        errors.append(f"{path}: pull_request_target runs fork code with a write token")
    paths = " ".join((on.get("pull_request") or {}).get("paths", []))
    for want in ("_patch_gen_config.py", "generated/", "__init__.py", "pyproject.toml", "uv.lock",
                 "patchgen-pkg"):
        if want not in paths:
            errors.append(f"{path}: pull_request paths miss {want}")
    if not re.fullmatch(r"v\d+(\.\d+)*|[0-9a-f]{40}", str((doc.get("env") or {}).get("PGCI_REF", ""))):
        errors.append(f"{path}: PGCI_REF must pin a release tag or a commit")
    text = open(path).read()
    for name, job in (doc.get("jobs") or {}).items():
        steps = job.get("steps") or []
        for step in steps:
            if "${{" in (step.get("run") or ""):
                errors.append(f"{path}: job {name}: step '{step.get('name')}' expands an expression "
                              "in its script (pass it through env:)")
            uses = step.get("uses") or ""
            if job_writes(doc, job) and uses.startswith("actions/checkout"):
                errors.append(f"{path}: job {name} has a write token and checks code out")
            if uses.startswith("actions/checkout") and (step.get("with") or {}).get("persist-credentials") is not False:
                errors.append(f"{path}: job {name}: checkout keeps the token (persist-credentials: false)")
        if any("pgci check" in (s.get("run") or "") for s in steps) and job_writes(doc, job):
            errors.append(f"{path}: job {name} runs pgci check (the PR's code) with a write token")
    if "upload-sarif" not in text:
        errors.append(f"{path}: no SARIF upload to code scanning")
    if "GITHUB_STEP_SUMMARY" not in text and "--format github" not in text:
        errors.append(f"{path}: no job summary")
    if not re.search(r"includes\(marker\).*\n?.*user\.login === 'github-actions\[bot\]'", text):
        errors.append(f"{path}: the comment is not found by its marker and its author")
    if "uv.lock" not in text.split("paths:", 1)[1] or "ruff_version" not in text:
        errors.append(f"{path}: ruff is not the workspace's locked version")
    return errors


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
        if "/examples/" in path:
            errors.extend(check_example(path, doc))
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
