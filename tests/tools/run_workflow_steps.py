#!/usr/bin/env python3
"""Runs the shell steps of one job of a GitHub workflow, without act or Docker.

Each `run:` step runs in bash (-eo pipefail, as GitHub's default shell) in WORKDIR
with the workflow's, the job's and the step's env, `${{ ... }}` in env values
expanded from earlier steps' outputs, the workflow env and --expr KEY=VALUE;
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are files as on a runner. `uses:` steps
and the steps named with --skip do not run (the caller prepares what they would).
A step's `if:` understands always(), success(), failure() and comparisons of
steps.ID.outputs.NAME with a quoted string, joined by &&.

usage: run_workflow_steps.py WORKFLOW JOB WORKDIR [--skip NAME]... [--expr K=V]...
prints one line per step; exits 1 when the job fails.
"""
import argparse
import os
import re
import subprocess
import sys

import yaml


def expand(value, ctx):
    def one(m):
        key = m.group(1).strip()
        if key not in ctx:
            raise SystemExit(f"run_workflow_steps: no value for ${{{{ {key} }}}}")
        return ctx[key]
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", one, str(value))


def condition(expr, ctx, failed):
    if expr is None:
        return not failed
    expr = str(expr).strip()
    if expr.startswith("${{"):
        expr = expr[3:-2].strip()
    ok, has_status = True, False
    for term in (t.strip() for t in expr.split("&&")):
        if term == "always()":
            has_status = True
        elif term == "success()":
            has_status, ok = True, ok and not failed
        elif term == "failure()":
            has_status, ok = True, ok and failed
        else:
            m = re.fullmatch(r"([\w.\-]+)\s*(==|!=)\s*'([^']*)'", term)
            if not m:
                raise SystemExit(f"run_workflow_steps: cannot evaluate if: {term}")
            have = ctx.get(m.group(1), "")
            ok = ok and ((have == m.group(3)) == (m.group(2) == "=="))
    return ok and (has_status or not failed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workflow")
    ap.add_argument("job")
    ap.add_argument("workdir")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--expr", action="append", default=[])
    a = ap.parse_args()
    doc = yaml.safe_load(open(a.workflow))
    job = doc["jobs"][a.job]
    ctx = dict(e.split("=", 1) for e in a.expr)
    for k, v in (doc.get("env") or {}).items():
        ctx[f"env.{k}"] = str(v)
    base_env = dict(os.environ)
    base_env.update({k: str(v) for k, v in (doc.get("env") or {}).items()})
    base_env.update({k: expand(v, ctx) for k, v in (job.get("env") or {}).items()})
    summary = os.path.join(a.workdir, ".github_step_summary")
    open(summary, "w").close()
    failed = False
    for i, step in enumerate(job.get("steps") or []):
        name = step.get("name") or step.get("uses") or f"step {i}"
        if "run" not in step or name in a.skip:
            print(f"skip  {name}")
            continue
        if not condition(step.get("if"), ctx, failed):
            print(f"not   {name} (if: {step.get('if')})")
            continue
        env = dict(base_env)
        env.update({k: expand(v, ctx) for k, v in (step.get("env") or {}).items()})
        out_file = os.path.join(a.workdir, f".github_output_{i}")
        open(out_file, "w").close()
        env.update(GITHUB_OUTPUT=out_file, GITHUB_STEP_SUMMARY=summary, GITHUB_ACTIONS="true")
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                           cwd=a.workdir, env=env, capture_output=True, text=True)
        sys.stdout.write("".join(f"      | {l}\n" for l in (p.stdout + p.stderr).splitlines()))
        print(f"{'ok' if p.returncode == 0 else 'FAIL':5} {name} (exit {p.returncode})")
        if step.get("id"):
            for line in open(out_file):
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    ctx[f"steps.{step['id']}.outputs.{k}"] = v
        failed = failed or p.returncode != 0
    print("job", "failed" if failed else "succeeded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
