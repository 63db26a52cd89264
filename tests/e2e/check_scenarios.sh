#!/usr/bin/env bash
# pgci check on copies of the demo workspace, one defect each, with the exact
# findings expected, with ruff (byte mode) and without (structural mode); --fix;
# and the bad inputs that stop the gate with one line and exit 2.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LLAMA=demo/models/llama
LPY=$LLAMA/generated/patched_modeling_llama_gpu.py
LDIFF=$LLAMA/generated/patched_modeling_llama_gpu.diff
LCFG=$LLAMA/llama_gpu_patch_gen_config.py

# fresh NAME: a copy of the demo workspace and its upstream at $T/NAME/workspace
fresh() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1"
    cp -r fixtures/workspace "$T/$1/workspace"
    cp -r fixtures/upstream "$T/$1/upstream"
    W=$T/$1/workspace
}

# errors FILE.json: "check<TAB>path:line<TAB>title" of every error, sorted
errors() {
    python3 -c '
import json, sys
for f in json.load(open(sys.argv[1])):
    if f["severity"] in ("error", "warning"):
        print("%s\t%s\t%s:%d\t%s" % (f["severity"], f["check"], f["path"], f["line"], f["title"]))
' "$1" | sort
}

# run_check NAME EXPECTED_EXIT ARGS...: runs pgci check --format json in $W
run_check() {
    local name=$1 want=$2 rc=0
    shift 2
    "$PGCI" check -C "$W" --format json "$@" > "$T/$name.json" 2> "$T/$name.err" || rc=$?
    if [ "$rc" != "$want" ]; then
        echo "$name: expected exit $want, got $rc" >&2
        cat "$T/$name.err" >&2
        exit 1
    fi
    errors "$T/$name.json" > "$T/$name.found"
}

# expect_found NAME <<EOF lines EOF: the errors and warnings are exactly these
expect_found() {
    local name=$1
    cat > "$T/$name.want"
    if ! diff -u "$T/$name.want" "$T/$name.found"; then
        echo "$name: findings differ from the expectation above" >&2
        exit 1
    fi
}

# --- a clean workspace: nothing at warning or above, both modes ---------------------
fresh clean
run_check clean 0 --ruff "$RUFF"
expect_found clean < /dev/null
# every command names the upstream source --source (regen also takes --upstream)
[ "$("$PGCI" regen -C "$W" --ruff "$RUFF" --source "dir:$T/clean/upstream/{tag}" | grep -c '^up to date')" = 4 ]
run_check clean-source 0 --ruff "$RUFF" --source "dir:$T/clean/upstream/{tag}"
run_check clean-structural 0 --no-ruff
expect_found clean-structural < /dev/null
# --no-ruff is a choice, not a skipped check (issue 15): drift is "not configured",
# listed once, and the gate passes when the structure agrees
"$PGCI" check -C "$W" --no-ruff > "$T/skip.out" 2> "$T/skip.err" || { echo "--no-ruff on a clean tree failed the gate" >&2; exit 1; }
expect_grep "^not configured: drift: --no-ruff" "$T/skip.out"
[ "$(grep -c 'drift:' "$T/skip.out")" = 1 ] || { echo "drift listed more than once" >&2; exit 1; }
[ ! -s "$T/skip.err" ] || { echo "--no-ruff printed on stderr" >&2; cat "$T/skip.err" >&2; exit 1; }
# an unknown --allow-skip id is a usage error, not silently accepted
rc=0; "$PGCI" check -C "$W" --ruff "$RUFF" --allow-skip drfit > /dev/null 2> "$T/skip2.err" || rc=$?
[ "$rc" = 2 ] || { echo "--allow-skip drfit: exit $rc" >&2; exit 1; }
expect_grep "^pgci: error: check: --allow-skip: no check 'drfit' .the checks: drift, " "$T/skip2.err"

# --- a workspace that keeps no .diff files (as the veomni distribution ships) ---------
# each missing .diff is drift, and the one line on diff-consistency says how to tell
# pgci the workspace keeps none; with --no-diff the gate passes
fresh nodiff
find "$W" -name '*.diff' -delete
rc=0; "$PGCI" check -C "$W" --ruff "$RUFF" > "$T/nodiff.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "no .diff files: exit $rc" >&2; cat "$T/nodiff.out" >&2; exit 1; }
expect_grep "^not run: diff-consistency: no config has its \\.diff checked in \\(--no-diff: the workspace keeps none\\)$" "$T/nodiff.out"
expect_grep "generated file $LDIFF is missing \\(run pgci check --fix\\) \\[drift\\]" "$T/nodiff.out"
"$PGCI" check -C "$W" --ruff "$RUFF" --no-diff > "$T/nodiff2.out" 2>&1 || { echo "--no-diff without .diff files failed the gate" >&2; cat "$T/nodiff2.out" >&2; exit 1; }
expect_grep "^not configured: diff-consistency: --no-diff" "$T/nodiff2.out"

# --- a hand-edited generated file ----------------------------------------------------
fresh edited
python3 - "$W/$LPY" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))\n"
assert s.count(old) == 1, "fixture changed: update the scenario"
open(p, "w").write(s.replace(old, "        return self.down_proj(self.act_fn(self.up_proj(x)) * self.gate_proj(x))\n"))
PY
line=$(grep -n 'self.act_fn(self.up_proj(x))' "$W/$LPY" | cut -d: -f1)
run_check edited 1 --ruff "$RUFF"
expect_found edited <<EOF
error	diff-consistency	$LDIFF:0	$LDIFF is not the diff of upstream against $LPY (stale after a hand edit?)
error	drift	$LPY:$line	$LPY differs from a fresh regeneration
EOF
run_check edited-structural 1 --no-ruff --allow-skip drift
expect_found edited-structural <<EOF
error	diff-consistency	$LDIFF:0	$LDIFF is not the diff of upstream against $LPY (stale after a hand edit?)
error	ruff-equivalence	$LPY:$line	$LPY is not the regenerated file up to formatting (structural mode)
EOF
# the drift finding carries the unified diff
python3 - "$T/edited.json" <<'PY'
import json, sys
f = [f for f in json.load(open(sys.argv[1])) if f["check"] == "drift"][0]
assert "-        return self.down_proj(self.act_fn(self.up_proj(x)) * self.gate_proj(x))" in f["data"]["diff"]
assert "+        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))" in f["data"]["diff"]
PY

# --- a stale .diff (the .py was regenerated, the .diff not) ---------------------------
fresh stale
python3 - "$W/$LDIFF" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines(keepends=True)
# drop the last hunk: what an old .diff looks like after a later patch was added
last = max(i for i, l in enumerate(lines) if l.startswith("@@"))
open(p, "w").write("".join(lines[:last]))
PY
run_check stale 1 --ruff "$RUFF"
expect_found stale <<EOF
error	diff-consistency	$LDIFF:0	$LDIFF is not the diff of upstream against $LPY (stale after a hand edit?)
error	drift	$LDIFF:$(($(wc -l < "$W/$LDIFF") + 1))	$LDIFF differs from a fresh regeneration
EOF

# --- a re-formatted generated file (same code, other layout) ----------------------------
fresh reformatted
python3 - "$W/$LPY" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))\n"
new = "        return self.down_proj(\n            (self.act_fn(self.gate_proj(x)) * self.up_proj(x))\n        )\n"
assert s.count(old) == 1
open(p, "w").write(s.replace(old, new))
PY
line=$(grep -n '            (self.act_fn(self.gate_proj(x)) \* self.up_proj(x))' "$W/$LPY" | cut -d: -f1)
run_check reformatted 1 --ruff "$RUFF"
expect_found reformatted <<EOF
error	diff-consistency	$LDIFF:0	$LDIFF is not the diff of upstream against $LPY (stale after a hand edit?)
error	drift	$LPY:$((line - 1))	$LPY differs from a fresh regeneration
error	ruff-equivalence	$LPY:0	$LPY is not a ruff fixed point: ruff would still change it (hand formatted or edited?) (ruff mode)
EOF
grep -q 'drifted only in formatting' "$T/reformatted.json"
# structurally it is the same code: only the stale .diff remains
run_check reformatted-structural 1 --no-ruff --allow-skip drift
expect_found reformatted-structural <<EOF
error	diff-consistency	$LDIFF:0	$LDIFF is not the diff of upstream against $LPY (stale after a hand edit?)
EOF

# --- a patch body still using a name upstream stopped importing (qwen3 at v1.1.0 dropped
# `Optional`): caught natively, with or without ruff -----------------------------------
fresh removed-name
run_check removed-name 1 --no-ruff --allow-skip drift --tag v1.1.0 demo.models.qwen3.qwen3_gpu_patch_gen_config
# the finding is on the config line that wrote the name (issue 15), the generated
# file's line in its detail
QCFG=demo/models/qwen3/qwen3_gpu_patch_gen_config.py
n=$(grep -cP "^error\tnames\t$QCFG:[0-9]+\tundefined name 'Optional'$" "$T/removed-name.found")
[ "$n" -ge 6 ] || { cat "$T/removed-name.found"; exit 1; }
python3 - "$T/removed-name.json" "$W" <<'PY'
import json, sys
ws = sys.argv[2]
names = [f for f in json.load(open(sys.argv[1])) if f["check"] == "names"]
for f in names:
    cfg_line = open(f"{ws}/{f['path']}").read().split("\n")[f["line"] - 1]
    assert cfg_line[f["col"] - 1:].startswith("Optional"), (f, cfg_line)
    gen = f["detail"].split("\n")[0]
    assert gen.startswith("generated: demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py:"), gen
    assert "Optional" in gen.split(": ", 2)[2], gen  # the generated line's text
# two functions with the same parameter line: each finding on its own function's line
assert len({(f["line"], f["col"]) for f in names}) == len(names), names
PY
run_check removed-name-ruff 1 --ruff "$RUFF" --tag v1.1.0 demo.models.qwen3.qwen3_gpu_patch_gen_config
grep -qP "^error\tregen\t.*F821 Undefined name .Optional.$" "$T/removed-name-ruff.found"
[ "$(grep -cP "^error\tnames\t.*undefined name 'Optional'$" "$T/removed-name-ruff.found")" = "$n" ]

# --- a patch target that does not exist upstream (renamed, or a typo) ---------------------
fresh renamed
sed -i 's/"LlamaRMSNorm.forward",/"LlamaRMSNormX.forward",/' "$W/$LCFG"
grep -q '"LlamaRMSNormX.forward"' "$W/$LCFG"
reg=$(grep -n '@config.override_method($' "$W/$LCFG" | head -1 | cut -d: -f1)
run_check renamed 1 --ruff "$RUFF"
grep -P "^error\ttargets\t$LCFG:$reg\tpatch target \`LlamaRMSNormX.forward\` is not in transformers.models.llama.modeling_llama: patchgen drops the patch without a word$" "$T/renamed.found" > /dev/null || { cat "$T/renamed.found"; exit 1; }

# --- two patches on one target -------------------------------------------------------------
fresh duplicate
cat >> "$W/$LCFG" <<'PY'


@config.override_method("LlamaMLP.forward", description="a second MLP patch")
def llama_mlp_forward_again(self, x):
    return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))
PY
run_check duplicate 1 --ruff "$RUFF"
first=$(grep -n '@config.override_method("LlamaMLP.forward"' "$W/$LCFG" | head -1 | cut -d: -f1)
grep -P "^warning\ttargets\t$LCFG:$first\ttwo patches on \`LlamaMLP.forward\`: a later registration replaces this one$" "$T/duplicate.found" > /dev/null || { cat "$T/duplicate.found"; exit 1; }

# --- --fix rewrites what drifted, atomically, and the gate is clean after ---------------------
fresh fix
cp "$W/$LDIFF" "$T/orig.diff"
echo "# a stray hand edit" >> "$W/$LPY"
# a successful fix exits 0 (as patchgen does) and says what it wrote instead of
# repeating the drift it fixed
"$PGCI" check -C "$W" --ruff "$RUFF" --fix > "$T/fix.out" || { echo "--fix: exit $?" >&2; cat "$T/fix.out" >&2; exit 1; }
expect_grep "^fixed: 1 file rewritten from a fresh regeneration$" "$T/fix.out"
expect_grep "^  wrote $LPY$" "$T/fix.out"
! grep -q '\[drift\]\|\[ruff-equivalence\]' "$T/fix.out" || { echo "--fix repeated the findings it fixed" >&2; cat "$T/fix.out" >&2; exit 1; }
run_check fixed 0 --ruff "$RUFF"
cmp "$W/$LDIFF" "$T/orig.diff"
cmp "$W/$LPY" "fixtures/workspace/$LPY"
[ -z "$(find "$W" -name '*.pgci-tmp-*')" ]

# --- bad input: one clear line, exit 2 --------------------------------------------------------
fresh bad
sed -i 's/^\[tool.patchgen\]/[tool.notpatchgen]/' "$W/pyproject.toml"
expect_fail 2 'pyproject.toml.*\[tool.patchgen\]' "$PGCI" check -C "$W" --ruff "$RUFF"
fresh syntax
printf '\nconfig.add_import("x", names=[\n' >> "$W/$LCFG"
expect_fail 2 "llama_gpu_patch_gen_config.py:[0-9]+:[0-9]+: " "$PGCI" check -C "$W" --ruff "$RUFF"
fresh unsupported
printf '\nfor t in ["A", "B"]:\n    config.exclude_from_output(t)\n' >> "$W/$LCFG"
# a construct pgci cannot evaluate fails that config alone, with a finding at
# file:line:col; the other configs are still checked (issue 15)
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" > "$T/unsupported.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "unsupported construct: exit $rc" >&2; cat "$T/unsupported.out" >&2; exit 1; }
expect_grep "^  error   $LCFG:[0-9]+:[0-9]+: cannot regenerate: unsupported construct .*for t in.* \[regen\]$" "$T/unsupported.out"
expect_grep "^4 configs checked against transformers v1.0.0: 1 failed to regenerate, 0 drifted; 1 error," "$T/unsupported.out"
fresh missing
rm "$W/$LPY"
expect_fail 2 "generated file $LPY is missing" "$PGCI" check -C "$W" --ruff "$RUFF"
fresh notmodule
# an upstream text that is valid Python but not the module: none of the patched
# classes and functions defined there (cold, and again from the result cache)
UPL=$T/notmodule/upstream/v1.0.0/transformers/models/llama/modeling_llama.py
printf 'import torch\n\n\nclass Unrelated:\n    pass\n' > "$UPL"
for run in cold warm; do
    expect_fail 2 "modeling_llama defines none of the [0-9]+ classes and functions the config patches: not the module" \
        "$PGCI" check -C "$W" --ruff "$RUFF" --cache-dir "$T/notmodule/cache"
done
: > "$UPL"
expect_fail 2 "modeling_llama.py is empty: not a Python module" "$PGCI" check -C "$W" --ruff "$RUFF" --no-cache
fresh noruff
expect_fail 2 "ruff" "$PGCI" check -C "$W" --ruff "$T/no-such-ruff"
fresh twopins
# two pins (VeOmni's default group pinned 4.57.3 while the extra its patchgen CI
# installed pinned 5.2.0): without --tag the gate stops on the conflict; the --tag
# its message suggests must then be enough, for every command that takes one (the
# workspace used to fail to open, whatever the tag)
sed -i 's/^patchgen = \[$/legacy = ["transformers==1.1.0"]\npatchgen = [/' "$W/pyproject.toml"
grep -q '^legacy = \["transformers==1.1.0"\]$' "$W/pyproject.toml"
expect_fail 2 "pyproject.toml:[0-9]+: transformers==1.1.0 conflicts with transformers==1.0.0 in project.dependencies \(line [0-9]+\); pgci needs one pin \(or pass --tag\)" \
    "$PGCI" check -C "$W" --ruff "$RUFF"
expect_fail 2 "transformers==1.1.0 conflicts with transformers==1.0.0" "$PGCI" regen -C "$W" --ruff "$RUFF"
expect_fail 2 "transformers==1.1.0 conflicts with transformers==1.0.0" "$PGCI" survey -C "$W" --to v1.1.0 --ruff "$RUFF"
"$PGCI" check -C "$W" --ruff "$RUFF" --tag v1.0.0 -q > "$T/twopins.out" 2>&1 ||
    { echo "two pins, --tag v1.0.0: exit $?" >&2; cat "$T/twopins.out" >&2; exit 1; }
expect_grep "^4 configs checked against transformers v1.0.0: 0 failed to regenerate, 0 drifted; 0 errors," "$T/twopins.out"
"$PGCI" regen -C "$W" --ruff "$RUFF" --tag v1.0.0 -q > "$T/twopins-regen.out" 2>&1 ||
    { echo "two pins, regen --tag v1.0.0: exit $?" >&2; cat "$T/twopins-regen.out" >&2; exit 1; }
# the survey's exit 1 is v1.1.0's findings; 2 would be the workspace refused
rc=0
"$PGCI" survey -C "$W" --ruff "$RUFF" --from v1.0.0 --to v1.1.0 -q > "$T/twopins-survey.out" 2>&1 || rc=$?
[ "$rc" != 2 ] || { echo "two pins, survey --from v1.0.0: exit 2" >&2; cat "$T/twopins-survey.out" >&2; exit 1; }
expect_grep "of 4 configs fail to regenerate against v1.1.0" "$T/twopins-survey.out"
echo "check scenarios: ok"
