"""make bench: issue 18's table - pgci against its reference on the same inputs,
side by side, the median of several runs of each, and the ratio against the target.

Every figure is a whole process (start-up included) timed from outside: wall time
with a monotonic clock, CPU time (user + system, the children it waited for
included) and peak resident memory from wait4(). Runs of the two sides alternate,
so a machine whose speed drifts moves both. Never fails on time: it prints.

Inputs (the corpus cache, as tests/corpus/ fetches them): the veomni 0.1.12 source
distribution's 29 configs and generated files, transformers 5.9.0 and 5.16.1,
ruff 0.13.2, griffe (for the survey's reference; the row is skipped without it).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PGCI, RUFF, TF, TF16, WS, GRIFFE_PY, RUNS, PATCHGEN = sys.argv[1:9]
RUNS = int(RUNS)
TMP = tempfile.mkdtemp(prefix="pgci-bench-")
ENV = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "xdg"))


def run_once(cmd, env=None, prep=None):
    if prep:
        prep()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=env or ENV)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, p.returncode


def median_pair(a, b, env_a=None, env_b=None, prep_a=None, prep_b=None):
    """Runs a and b in turn RUNS times (after one warm-up each): medians."""
    ra, rb = [], []
    if a:
        run_once(a, env_a, prep_a)
    if b:
        run_once(b, env_b, prep_b)
    for _ in range(RUNS):
        if a:
            ra.append(run_once(a, env_a, prep_a))
        if b:
            rb.append(run_once(b, env_b, prep_b))

    def med(rs):
        if not rs:
            return None
        return tuple(statistics.median(r[i] for r in rs) for i in range(3)) + (rs[-1][3],)
    return med(ra), med(rb)


def fmt(m):
    return "—" if m is None else f"{m[0]:.2f} s wall, {m[1]:.2f} s CPU"


rows = []


def row(name, a, b, ref_name, target, met, faster=False):
    if a is None or b is None:
        ratio = "—"
    elif faster:
        ratio = f"{b[0] / a[0]:.1f}× faster (CPU {b[1] / a[1]:.1f}×)"
    else:
        ratio = f"{a[0] / b[0]:.2f}× (CPU {a[1] / b[1]:.2f}×)"
    rows.append((name, fmt(a), f"{ref_name}: {fmt(b)}" if b else ref_name, ratio, target,
                 met))


common = ["-C", WS, "--tag", "v5.9.0", "--source", "dir:" + TF]

# the inputs of a regeneration: the configs and the upstream modules they name
out = subprocess.run([PGCI, "regen", *common, "--no-ruff", "--no-cache", "--format", "json"],
                     capture_output=True, text=True, env=ENV).stdout
cfg = json.loads(out)["configs"]
inputs = sorted({os.path.join(WS, c["config"]) for c in cfg} |
                {os.path.join(TF, *c["source_module"].split(".")) + ".py" for c in cfg})
with open(os.path.join(TMP, "inputs"), "w") as f:
    f.write("\n".join(inputs))
size = sum(os.path.getsize(p) for p in inputs)
astpy = os.path.join(TMP, "parse.py")
with open(astpy, "w") as f:
    f.write("import ast, sys\nfor p in open(sys.argv[1]).read().split():\n"
            "    ast.parse(open(p, 'rb').read(), p)\n")

# 1. raw codegen against CPython parsing the same inputs once
raw = [PGCI, "regen", *common, "--no-ruff", "--no-cache", "-j", "1", "-q", "-o",
       os.path.join(TMP, "raw")]
a, b = median_pair(raw, [sys.executable, astpy, os.path.join(TMP, "inputs")])
row("`regen --no-ruff -j 1` (raw codegen)", a, b,
    f"CPython `ast.parse` of the same {len(inputs)} inputs ({size / 1e6:.1f} MB) once",
    "≤ 0.3×", a[0] / b[0] <= 0.3)
regen_raw = a

# 2. raw codegen against the real patchgen (veomni 0.1.11's generator, the configs
# loaded with their heavy imports stubbed), when it can run here
if PATCHGEN != "-":
    pg = [sys.executable, PATCHGEN, WS, TF, os.path.join(TMP, "pg-out")]
    ok = subprocess.run(pg, capture_output=True, env=ENV).returncode == 0
    if ok:
        _, b = median_pair(None, pg)
        row("same", regen_raw, b, "the real Python patchgen, raw codegen only",
            "≥ 15× faster", b[0] / regen_raw[0] >= 15, faster=True)

# 3. the gate with ruff against ruff alone, file by file, as patchgen runs it
gen = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(WS, "veomni"))
             for f in fs if f.endswith(".py") and os.path.basename(d) == "generated")
loop = os.path.join(TMP, "ruff_each.sh")
with open(loop, "w") as f:
    f.write(f"""set -e
cd "{WS}"
for src in "$@"; do
    d=$(mktemp -d)
    cp "$src" "$d/"
    "{RUFF}" check --fix --quiet --exit-zero --ignore E402,B007 "$d/$(basename "$src")" >/dev/null
    "{RUFF}" format --quiet "$d/$(basename "$src")" >/dev/null
    rm -rf "$d"
done
""")
check = [PGCI, "check", *common, "--ruff", RUFF, "--no-diff", "-q"]
a, b = median_pair(check + ["--no-cache"], ["bash", loop, *gen])
row("`check` (ruff, byte mode)", a, b,
    f"ruff alone, file by file as patchgen runs it ({len(gen)} files)", "≤ 1.0×",
    a[0] / b[0] <= 1.0)
check_cold_nocache = a

# 4. the gate without ruff
a, _ = median_pair([PGCI, "check", *common, "--no-ruff", "--no-diff", "-q", "--no-cache"], None)
row("`check --no-ruff`", a, None, "—", "≤ 0.5 s on 2 cores", a[0] <= 0.5)

# 5. the gate again with nothing changed: a warm cache against a cold one
cache = os.path.join(TMP, "xdg")
a, b = median_pair(check, check, prep_b=lambda: shutil.rmtree(cache, ignore_errors=True))
rows.append(("`check` again, nothing changed", fmt(a), f"the first run (cold cache): {fmt(b)}",
             f"{a[0] / b[0]:.2f}× (CPU {a[1] / b[1]:.2f}×)", "≤ 0.3×", a[0] / b[0] <= 0.3))

# 6. the survey against griffe's breaking-change check on the same modules
tags = os.path.join(TMP, "tags")
os.makedirs(tags)
os.symlink(TF, os.path.join(tags, "v5.9.0"))
os.symlink(TF16, os.path.join(tags, "v5.16.1"))
survey = [PGCI, "survey", "-C", WS, "--from", "v5.9.0", "--to", "v5.16.1", "--source",
          "dir:" + tags + "/{tag}", "--ruff", RUFF, "-q"]
mods = sorted({c["source_module"] for c in cfg})
gr = os.path.join(TMP, "griffe_check.py")
with open(gr, "w") as f:
    f.write("""import sys
from pathlib import Path
import griffe
a, b, mods = sys.argv[1], sys.argv[2], sys.argv[3:]
n = 0
for m in mods:
    rel = Path(*m.split(".")).with_suffix(".py")
    pa, pb = Path(a) / rel, Path(b) / rel
    if not pb.exists():
        continue
    old = griffe.visit(m, filepath=pa, code=pa.read_text())
    new = griffe.visit(m, filepath=pb, code=pb.read_text())
    n += sum(1 for _ in griffe.find_breaking_changes(old, new))
print(n)
""")
# as a maintainer reruns it (the result cache holds the regenerations), and cold
if GRIFFE_PY != "-":
    griffe = [GRIFFE_PY, gr, TF, TF16, *mods]
    for label, cmd in (("result cache warm", survey), ("cold, `--no-cache`", survey + ["--no-cache"])):
        a, b = median_pair(cmd, griffe)
        row(f"`survey 5.9.0 → 5.16.1` (ruff, {label})", a, b,
            f"`griffe` breaking-change check on the same {len(mods)} modules", "≤ 1.0×",
            a[0] / b[0] <= 1.0)
else:
    a, _ = median_pair(survey, None)
    row("`survey 5.9.0 → 5.16.1` (ruff, result cache warm)", a, None, "griffe not installed",
        "≤ 1.0×", None)

peak = max(run_once(check + ["--no-cache"])[2], run_once(survey)[2])

print(f"issue 18 targets, median of {RUNS} runs each (whole processes, side by side,"
      f" {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end):")
print()
print("| run | pgci | reference, same run | ratio | target | met |")
print("|---|---|---|---|---|---|")
for name, p, r, ratio, target, met in rows:
    print(f"| {name} | {p} | {r} | {ratio} | {target} | "
          f"{'—' if met is None else 'yes' if met else 'no'} |")
print()
print(f"peak memory of one pgci process (check, survey): {peak:.0f} MiB (target < 200 MiB)")
shutil.rmtree(TMP, ignore_errors=True)
