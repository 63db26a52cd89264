#!/usr/bin/env bash
# pgci verify and survey --verify on a copy of the demo workspace whose
# [tool.pgci.verify] suites are small hand-written scripts (tests/e2e/verify/
# suite.py) that end each way a real suite can: pass (with a skip), test failures,
# a crash after writing XML, a timeout with a grandchild (the process group must
# die), a pass that leaves a process holding its output (done at its exit, the
# process killed), no XML, malformed XML, a GPU suite on a machine without one
# (CUDA_VISIBLE_DEVICES=""), cwd and env. Then:
#  - run.json holds each outcome with its reason, validates against the schema,
#    and the report's Verification section, summary, comment and job summary show it;
#    SARIF is the same with or without the verification;
#  - --tag v1.1.0 runs in a scratch copy regenerated there (the qwen3 configs fail
#    to regenerate and keep their v1.0.0 files), in a plain copy and in a git
#    repository (working-tree changes included), and survey --verify does the
#    same: the workspace's files and its .git are byte-identical afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUDA_VISIBLE_DEVICES=

cp -r fixtures/workspace "$T/ws"
cp -r fixtures/upstream "$T/upstream"
rm -rf "$T/upstream"/*/__pycache__
mkdir "$T/ws/suites"
cp tests/e2e/verify/suite.py "$T/ws/suites/"
cat >> "$T/ws/pyproject.toml" <<TOML

[tool.pgci.verify]
pass = { argv = ["{python}", "suites/suite.py", "pass", "{junit}"] }
fail = { argv = ["{python}", "suites/suite.py", "fail", "{junit}"] }
crash = { argv = ["{python}", "suites/suite.py", "crash", "{junit}"] }
timeout = { argv = ["{python}", "suites/suite.py", "timeout", "{junit}"], timeout = 2, env = { PGCI_TEST_PIDFILE = "$T/pid" } }
daemon = { argv = ["{python}", "suites/suite.py", "daemon", "{junit}"], timeout = 600, env = { PGCI_TEST_PIDFILE = "$T/daemon-pid" } }
noxml = { argv = ["{python}", "suites/suite.py", "noxml", "{junit}"] }
malformed = { argv = ["{python}", "suites/suite.py", "malformed", "{junit}"] }
empty = { argv = ["{python}", "suites/suite.py", "empty", "{junit}"] }
exit-nonzero = { argv = ["{python}", "suites/suite.py", "exit-nonzero", "{junit}"] }
gpu = { argv = ["{python}", "suites/suite.py", "pass", "{junit}"], gpu = true }
env = { argv = ["{python}", "suite.py", "env", "{junit}"], cwd = "suites", env = { PGCI_SUITE_ENV = "x-{junit}" } }
based-on = { argv = ["{python}", "suites/suite.py", "based-on", "{junit}"] }
TOML
W=$T/ws
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# --- one suite at a time: exit codes -------------------------------------------------
"$PGCI" verify -C "$W" pass > "$T/pass.txt"
expect_grep '^passed  pass: 2/3 passed \(1 skipped\)$' "$T/pass.txt"
rc=0; "$PGCI" verify -C "$W" fail > "$T/fail.txt" || rc=$?
[ "$rc" = 1 ] || { echo "a failing suite should exit 1, got $rc" >&2; exit 1; }
expect_grep 'failed tests.test_models::test_qwen3_logits: AssertionError: logits differ' "$T/fail.txt"
rc=0; "$PGCI" verify -C "$W" gpu > "$T/gpu.txt" || rc=$?
[ "$rc" = 1 ] || { echo "a suite that did not run must not pass, got $rc" >&2; exit 1; }
"$PGCI" verify -C "$W" gpu --allow-skip gpu > /dev/null
# a relative --python is the caller's, kept a link (a venv's python is one), though
# the suite runs in another directory
python3 -m venv --without-pip "$T/venv"
(cd "$T" && "$PGCI" verify -C ws env --python venv/bin/python --run-json "$T/relpy.json" > /dev/null)
python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["verification"]["suites"][0]["argv"][0]; assert a == sys.argv[2], a' \
    "$T/relpy.json" "$(cd "$T" && pwd -P)/venv/bin/python"
# the tag of a pin written with its "v" is the pin as it is (workspace_pin_tag; it
# used to be "vv1.0.0" here)
cp -r "$W" "$T/wsv"
sed -i 's/"transformers==1.0.0"/"transformers==v1.0.0"/' "$T/wsv/pyproject.toml"
"$PGCI" verify -C "$T/wsv" pass --run-json "$T/vpin.json" > /dev/null
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["verification"]["tag"]; assert t == "v1.0.0", t' \
    "$T/vpin.json"
expect_fail 2 "no suite 'nope' in \[tool.pgci.verify\] \(known: pass, fail, crash" \
    "$PGCI" verify -C "$W" nope
expect_fail 2 "no \[tool.pgci.verify\] suites" "$PGCI" verify -C fixtures/workspace

# --- every outcome in one run ----------------------------------------------------------
rc=0
"$PGCI" verify -C "$W" --python python3 --run-json "$T/run.json" > "$T/all.txt" 2> "$T/all.err" || rc=$?
[ "$rc" = 1 ] || { echo "verify with failures should exit 1, got $rc" >&2; cat "$T/all.err" >&2; exit 1; }
python3 tests/tools/validate_json.py docs/run.schema.json "$T/run.json" > /dev/null
python3 - "$T/run.json" "$T/pid" "$T/daemon-pid" <<'PY'
import json, os, sys
run = json.load(open(sys.argv[1]))
assert run["command"] == "verify"
v = run["verification"]
assert v["tree"] == "checked-in" and v["tag"] == "v1.0.0" and v["python"] == "python3", v
assert v["gpu"] is False
s = {x["name"]: x for x in v["suites"]}
want = {
    "pass": ("passed", None), "fail": ("failed", None), "daemon": ("passed", None),
    "crash": ("not-run", "crashed: killed by signal 11 (Segmentation fault)"),
    "timeout": ("not-run", "timed out after 2 s; its process group was killed"),
    "noxml": ("not-run", "exited with status 0 without writing its JUnit XML"),
    "malformed": ("not-run", "its JUnit XML is unreadable: malformed.xml:1: malformed XML: "
                  "Premature end of data in tag testcase line 1 (exit status 0)"),
    "empty": ("not-run", "its JUnit XML lists no test case (exit status 0)"),
    "exit-nonzero": ("failed", "exited with status 3 although no case failed"),
    "gpu": ("not-run", "needs a GPU and this machine shows none"),
    "env": ("passed", None), "based-on": ("passed", None),
}
for name, (status, reason) in want.items():
    assert (s[name]["status"], s[name]["reason"]) == (status, reason), (name, s[name])
    if status == "not-run":
        assert s[name]["passed"] == 0 and s[name]["tests"] == 0, s[name]
p = s["pass"]
assert (p["tests"], p["passed"], p["failed"], p["errors"], p["skipped"]) == (3, 2, 0, 0, 1), p
assert p["seconds"] == 0.25 + 1.5, p["seconds"]
skip = [c for c in p["cases"] if c["status"] == "skipped"][0]
assert skip["message"] == "needs an NPU" and skip["name"] == "test_qwen3_npu", skip
f = s["fail"]
assert (f["tests"], f["passed"], f["failed"], f["errors"], f["exit_status"]) == (3, 1, 1, 1, 1), f
bad = [c for c in f["cases"] if c["status"] == "failed"][0]
assert bad["classname"] == "tests.test_models" and bad["name"] == "test_qwen3_logits"
assert bad["message"] == "AssertionError: logits differ (max |diff| 0.5)", bad["message"]
lines = bad["trace"].split("\n")
assert len(lines) == 20 and lines[0] == "tests/test_models.py:1: in frame_1", lines[:2]
err = [c for c in f["cases"] if c["status"] == "error"][0]
assert err["message"] == 'failed on setup with "OSError"', err
assert s["crash"]["exit_status"] is None and s["timeout"]["exit_status"] is None
assert s["noxml"]["output_tail"] == "collected 0 items; no XML written", s["noxml"]["output_tail"]
assert s["gpu"]["argv"][1] == "suites/suite.py"
assert s["env"]["cwd"] == "suites" and s["env"]["argv"][0] == "python3"
# the grandchildren of the suite that timed out and of the one that exited died
# with their process groups
import time
for pidfile in sys.argv[2:4]:
    pid = int(open(pidfile).read())
    for _ in range(100):
        try:
            st = open(f"/proc/{pid}/stat").read()
        except FileNotFoundError:
            break
        if st[st.rindex(")") + 2] in "ZX":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"grandchild {pid} ({pidfile}) survived: {st}")
PY
expect_grep '^not run gpu: needs a GPU and this machine shows none$' "$T/all.txt"
expect_grep '^not run timeout: timed out after 2 s; its process group was killed$' "$T/all.txt"

# --- the report ------------------------------------------------------------------------
"$PGCI" report --in "$T/run.json" --format md,html,sarif,comment -o "$T/r"
md=$T/r/report.md
expect_grep '^# Verification report$' "$md"
expect_grep '^\*\*Verification\*\* at transformers v1.0.0 \(the checked-in files\): `pass` 2/3 passed, 1 skipped; `fail` 1/3 passed, \*\*2 failed\*\*; `crash` \*\*not run\*\*' "$md"
expect_grep '<tr><td><code>fail</code></td><td>1/3 passed</td><td>1</td><td>1</td><td>1</td><td>0</td></tr>' "$md"
expect_grep '<tr><td><code>gpu</code></td><td><strong>not run</strong>: needs a GPU and this machine shows none</td>' "$md"
expect_grep '^<details><summary><code>fail</code> <code>tests.test_models::test_qwen3_logits</code>: AssertionError: logits differ \(max \|diff\| 0.5\)</summary>$' "$md"
expect_grep '^- `pass` `tests.test_models::test_qwen3_npu`: needs an NPU$' "$md"
expect_grep '^- Suite `crash` did not run: crashed: killed by signal 11 \(Segmentation fault\). It is not counted as passed' "$md"
expect_grep 'tests/test_models.py:20: in frame_20' "$md"
expect_grep '`pass` 2/3 passed, 1 skipped; `fail` 1/3 passed, \*\*2 failed\*\*' "$T/r/comment.md"
# the job summary carries the counts
GITHUB_STEP_SUMMARY=$T/summary.md "$PGCI" report --in "$T/run.json" --format github > /dev/null
expect_grep '`pass` 2/3 passed, 1 skipped' "$T/summary.md"
# SARIF: the same document without its verification gives the same bytes
python3 - "$T/run.json" "$T/noverify.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["verification"]
json.dump(r, open(sys.argv[2], "w"))
PY
"$PGCI" report --in "$T/noverify.json" --format sarif > "$T/noverify.sarif"
cmp "$T/r/report.sarif" "$T/noverify.sarif"
# a damaged verification is refused on load, with where
python3 - "$T/run.json" "$T/bad.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["verification"]["suites"][1]["status"] = "green"
json.dump(r, open(sys.argv[2], "w"))
PY
expect_fail 2 "bad.json: verification suite 1: status 'green' is not passed, failed or not-run" \
    "$PGCI" report --in "$T/bad.json"

# --- --tag: a scratch copy regenerated at v1.1.0 (no repository: a plain copy) ------------
snapshot "$W" > "$T/before"
"$PGCI" verify -C "$W" based-on --tag v1.1.0 --ruff "$RUFF" --run-json "$T/tag.json" > "$T/tag.txt"
snapshot "$W" > "$T/after"
diff -u "$T/before" "$T/after"
expect_grep '^kept old files: demo.models.qwen3.qwen3_gpu_patch_gen_config failed to regenerate at v1.1.0: .*F821 Undefined name `Optional`$' "$T/tag.txt"
python3 tests/tools/validate_json.py docs/run.schema.json "$T/tag.json" > /dev/null
python3 - "$T/tag.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
v = run["verification"]
assert (v["tag"], v["tree"], v["copy"]) == ("v1.1.0", "scratch", "copy"), v
regen = {r["config"].split(".")[-1]: r["status"] for r in v["regen"]}
assert regen == {"llama_gpu_patch_gen_config": "written", "qwen3_gpu_patch_gen_config": "failed",
                 "qwen3_npu_patch_gen_config": "failed",
                 "qwen3_moe_gpu_patch_gen_config": "written"}, regen
# the suite saw llama regenerated at 1.1.0 and qwen3's old 1.0.0 file
names = [c["name"] for c in v["suites"][0]["cases"]]
assert names == ["test_llama[1.1.0]", "test_qwen3[1.0.0]"], names
assert {c["module"].split(".")[-1]: c["status"] for c in run["configs"]}["qwen3_gpu_patch_gen_config"] == "failed"
PY
"$PGCI" report --in "$T/tag.json" > "$T/tag.md"
expect_grep 'at transformers v1.1.0 \(a scratch copy with the files regenerated there\)' "$T/tag.md"
expect_grep '^- `demo.models.qwen3.qwen3_npu_patch_gen_config` failed to regenerate at v1.1.0 and kept its old files' "$T/tag.md"

# a relative --source is the workspace's, wherever pgci runs from (it was the current
# directory's: from / the upstream was not found)
(cd / && "$PGCI" verify -C "$W" based-on --tag v1.1.0 --source "dir:../upstream/{tag}" \
    --ruff "$RUFF" --run-json "$T/tag-rel.json" > "$T/tag-rel.txt")
python3 - "$T/tag.json" "$T/tag-rel.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["verification"] for p in sys.argv[1:])
status = lambda v: {r["config"]: r["status"] for r in v["regen"]}
assert status(a) == status(b), (status(a), status(b))
PY

# --- --tag in a git repository: HEAD plus the working tree's changes; .git untouched ------
G=$T/repo
mkdir "$G"
cp -r "$W" "$G/ws"
cp -r "$T/upstream" "$G/upstream"
git -C "$G" init -q
git -C "$G" -c user.name=t -c user.email=t@t.invalid add -A
git -C "$G" -c user.name=t -c user.email=t@t.invalid commit -qm fixture
echo marker > "$G/ws/UNTRACKED_MARKER"        # untracked: in the copy
echo ignored > "$G/ws/IGNORED_MARKER"
echo IGNORED_MARKER > "$G/.gitignore"          # ignored: not in the copy
snapshot "$G" > "$T/gbefore"
"$PGCI" verify -C "$G/ws" based-on --tag v1.1.0 --ruff "$RUFF" --keep --run-json "$T/git.json" > "$T/git.txt"
snapshot "$G" > "$T/gafter"
diff -u "$T/gbefore" "$T/gafter"
[ -z "$(git -C "$G" worktree list --porcelain | grep -c '^worktree' | grep -v '^1$')" ]
scratch=$(sed -n 's/^scratch copy: //p' "$T/git.txt")
# the whole repository (files beside the workspace too), without its .git
[ -f "$scratch/UNTRACKED_MARKER" ] && [ ! -e "$scratch/IGNORED_MARKER" ] && [ ! -e "$scratch/../.git" ]
[ -f "$scratch/../upstream/v1.0.0/transformers/__init__.py" ]
rm -rf "$(dirname "$scratch")"
python3 - "$T/git.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["verification"]
assert v["copy"] == "git", v
names = [c["name"] for c in v["suites"][0]["cases"]]
assert names == ["test_llama[1.1.0]", "test_qwen3[1.0.0]", "test_untracked_marker_seen"], names
PY

# --- survey --verify: the suites at the new tag, in the survey's run.json ---------------------
snapshot "$W" > "$T/before"
rc=0
"$PGCI" survey -C "$W" --verify --ruff "$RUFF" --run-json "$T/survey.json" > "$T/survey.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "survey --verify with failures should exit 1, got $rc" >&2; exit 1; }
snapshot "$W" > "$T/after"
diff -u "$T/before" "$T/after"
expect_grep '^Verification at v1.1.0:$' "$T/survey.txt"
python3 tests/tools/validate_json.py docs/run.schema.json "$T/survey.json" > /dev/null
python3 - "$T/survey.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["command"] == "survey" and run["findings"], run["command"]
v = run["verification"]
assert (v["tag"], v["tree"]) == ("v1.1.0", "scratch"), v
s = {x["name"]: x for x in v["suites"]}
assert [c["name"] for c in s["based-on"]["cases"]] == ["test_llama[1.1.0]", "test_qwen3[1.0.0]"]
assert s["gpu"]["status"] == "not-run" and s["pass"]["status"] == "passed"
PY
# merging: verify runs are split by suite, so the parts of one run are runs of other
# suites at the same tag on the same tree; their merge is the run of all of them
"$PGCI" verify -C "$W" pass --tag v1.1.0 --ruff "$RUFF" --run-json "$T/tag2.json" > /dev/null
"$PGCI" verify -C "$W" based-on pass --tag v1.1.0 --ruff "$RUFF" --run-json "$T/tagall.json" > /dev/null
"$PGCI" report --merge "$T/tag.json" "$T/tag2.json" -o "$T/merged"
python3 - "$T/merged/run.json" "$T/tagall.json" <<'PY'
import json, re, sys
junit = lambda run: json.loads(re.sub(r'/pgci-junit-[^/"]*/', "/JUNIT/", json.dumps(run)))
merged, whole = (junit(json.load(open(p))) for p in sys.argv[1:])
assert merged == whole, [k for k in whole if merged.get(k) != whole[k]]
assert [s["name"] for s in merged["verification"]["suites"]] == ["based-on", "pass"]
PY
# and runs that are not parts of one run are refused with one line, exit 2: the same
# run twice (no config to tell on the checked-in tree), another tag, another tree
expect_fail 2 "^pgci: error: cannot merge $T/run.json and $T/run.json: both ran suite pass \(the same run twice, or overlapping runs\)$" \
    "$PGCI" report --merge "$T/run.json" "$T/run.json"
expect_fail 2 "both ran suite based-on" "$PGCI" report --merge "$T/tag.json" "$T/tagall.json"
expect_fail 2 "^pgci: error: cannot merge $T/tag.json and $T/run.json: they ran with different inputs.tag \(v1.1.0, v1.0.0\)$" \
    "$PGCI" report --merge "$T/tag.json" "$T/run.json"
"$PGCI" verify -C "$W" based-on --tag v1.0.0 --ruff "$RUFF" --run-json "$T/tagpin.json" > /dev/null
expect_fail 2 "different verification.tree \(scratch, checked-in\)" \
    "$PGCI" report --merge "$T/tagpin.json" "$T/run.json"
echo "verify: every suite outcome, the report, --tag (copy and git), survey --verify: ok"
