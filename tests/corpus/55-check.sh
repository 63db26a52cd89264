#!/usr/bin/env bash
# Issue 4, proof 3: `pgci check` on the real VeOmni tree (the veomni 0.1.12
# distribution's configs and generated files, pinned to transformers 5.9.0, both
# from the Python package registry) reports no drift and no false error. Prints
# the findings per check and severity, and every error in full.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
tf=$(corpus_wheel transformers 5.9.0) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the veomni 0.1.12 source distribution: its configs, generated files and its own
# pyproject.toml ([tool.patchgen], [tool.ruff], the pin); read only
ws=$(veomni_sdist 0.1.12) || exit 1
t0=$(date +%s.%N)
# the distribution ships the generated .py files but not their .diff: --no-diff
"$PGCI" check -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --format json --no-diff \
    --run-json "$tmp/run.json" > "$tmp/findings.json" 2> "$tmp/err"
rc=$?
t1=$(date +%s.%N)
echo "pgci check on veomni 0.1.12 at transformers 5.9.0: exit $rc in $(echo "$t1 - $t0" | bc)s"
python3 - "$tmp/findings.json" "$tmp/run.json" <<'PY'
import collections, json, sys
fs = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
by = collections.Counter((f["check"], f["severity"]) for f in fs)
print("configs:", len(run["configs"]), collections.Counter(c["status"] for c in run["configs"]))
for (check, sev), n in sorted(by.items()):
    print(f"  {check:18} {sev:8} {n}")
for c in run["checks"]:
    if c["status"] != "ran":
        print(f"  {c['status']}:", c["id"], c["reason"])
errors = [f for f in fs if f["severity"] == "error"]
for f in errors:
    print("ERROR", f["check"], f["path"], f["line"], f["title"])
drift = [f for f in errors if f["check"] in ("drift", "diff-consistency", "ruff-equivalence", "regen")]
sys.exit(1 if drift else 0)
PY
status=$?
cat "$tmp/err" | head -5
# the same run rendered as the maintainers read it
"$PGCI" report --in "$tmp/run.json" --format md,html -o "$tmp/report" || status=1
sed -n 3p "$tmp/report/report.md"
exit $status
