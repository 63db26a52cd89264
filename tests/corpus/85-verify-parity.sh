#!/usr/bin/env bash
# Issue 17, the proof that `pgci verify` verifies the workspace's models, not
# pgci's: fixtures/verify_workspace's suite (tests/test_logits_equal.py, pytest)
# builds a toy Llama from the workspace's *generated* modeling file and from
# upstream transformers with the same weights and wants bitwise-equal logits on the
# CPU. torch, transformers (the HF parity venv, tests/corpus/lib.sh) and pytest
# come from the registry into the corpus cache; the generated file is written by
# `pgci regen --write` against the installed transformers, never committed.
#  - at the pin, on the checked-in tree: passes (the CUDA cases skipped, with why);
#  - a seeded change in the generated file's patched RMSNorm.forward: fails, and the
#    failure message (max |diff|) is in run.json and in the report;
#  - --tag v5.24.0 regenerates into a scratch copy: the seeded change is gone there,
#    the suite passes, and the workspace's files are byte-identical afterwards.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
PY=$(corpus_hf_venv) || exit 1
PYTEST=9.2.0
pt=$PGCI_CORPUS_CACHE/hf-pytest$PYTEST
if [ ! -f "$pt/.done" ]; then
    rm -rf "$pt"
    "$PY" -m pip install --quiet --no-deps --target "$pt" "pytest==$PYTEST" pluggy==1.7.0 \
        iniconfig==2.3.1 > "$PGCI_CORPUS_CACHE/hf-pytest.log" 2>&1 ||
        { echo "cannot install pytest==$PYTEST: $(tail -n 1 "$PGCI_CORPUS_CACHE/hf-pytest.log")"; exit 1; }
    touch "$pt/.done"
fi
export PYTHONPATH=$pt
SP=$("$PY" -c 'import os, transformers; print(os.path.dirname(os.path.dirname(transformers.__file__)))')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
W=$tmp/ws
cp -r fixtures/verify_workspace "$W"
gen=$W/vdemo/models/llama/generated/patched_modeling_llama_gpu.py
"$PGCI" regen -C "$W" --write --diff --source "dir:$SP" --ruff "$RUFF" > "$tmp/regen.txt" 2>&1 ||
    fail "regen --write: $(cat "$tmp/regen.txt")"

# 1. at the pin: passes
"$PGCI" verify -C "$W" --python "$PY" --run-json "$tmp/pin.json" > "$tmp/pin.txt" 2>&1 ||
    fail "verify at the pin: $(cat "$tmp/pin.txt")"
"$PY" - "$tmp/pin.json" <<'PY' || fail "verify at the pin: run.json"
import json, sys
s = json.load(open(sys.argv[1]))["verification"]["suites"][0]
assert s["status"] == "passed", s
cpu = [c for c in s["cases"] if c["name"].endswith("-cpu]")]
assert len(cpu) == 2 and all(c["status"] == "passed" for c in cpu), cpu
import torch
if not torch.cuda.is_available():
    cuda = [c for c in s["cases"] if c["name"].endswith("-cuda]")]
    assert [c["status"] for c in cuda] == ["skipped"] * 2 and cuda[0]["message"] == "needs CUDA", cuda
PY

# 2. a seeded change to the patched forward: fails, with the message in the report
sed -i 's/variance = hidden_states.pow(2).mean(-1, keepdim=True)$/&.clamp(min=1e-3)/' "$gen"
grep -q 'clamp(min=1e-3)' "$gen" || fail "the seeded change did not apply"
find "$W" -type f -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum > "$tmp/before"
rc=0
"$PGCI" verify -C "$W" --python "$PY" --run-json "$tmp/seeded.json" > "$tmp/seeded.txt" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "verify with a seeded change exited $rc: $(cat "$tmp/seeded.txt")"
"$PY" - "$tmp/seeded.json" <<'PY' || fail "verify with a seeded change: run.json"
import json, sys
s = json.load(open(sys.argv[1]))["verification"]["suites"][0]
assert s["status"] == "failed" and s["failed"] == 2, s
bad = [c for c in s["cases"] if c["status"] == "failed"]
assert all(c["message"].startswith("AssertionError: logits differ from upstream: max |diff| = ")
           for c in bad), [c["message"] for c in bad]
assert all("assert torch.equal(a, b)" in c["trace"] for c in bad), bad[0]["trace"]
PY
"$PGCI" report --in "$tmp/seeded.json" > "$tmp/seeded.md"
grep -q '^\*\*Verification\*\* at transformers v5.24.0 (the checked-in files): `logits` 1/5 passed, \*\*2 failed\*\*, 2 skipped.$' "$tmp/seeded.md" ||
    fail "report summary: $(head -5 "$tmp/seeded.md")"
grep -q 'test_llama_logits_equal\[0-cpu\]</code>: AssertionError: logits differ from upstream' "$tmp/seeded.md" ||
    fail "the failure message is not in the report"

# 3. --tag: regenerated in a scratch copy, the seeded change is gone there; the
#    workspace itself is untouched
"$PGCI" verify -C "$W" --tag v5.24.0 --source "dir:$SP" --ruff "$RUFF" --python "$PY" \
    --run-json "$tmp/tag.json" > "$tmp/tag.txt" 2>&1 || fail "verify --tag: $(cat "$tmp/tag.txt")"
find "$W" -type f -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || fail "verify --tag changed the workspace: $(diff "$tmp/before" "$tmp/after")"
"$PY" - "$tmp/tag.json" <<'PY' || fail "verify --tag: run.json"
import json, sys
v = json.load(open(sys.argv[1]))["verification"]
assert v["tree"] == "scratch" and [r["status"] for r in v["regen"]] == ["written"], v["regen"]
assert v["suites"][0]["status"] == "passed", v["suites"][0]
PY

[ $fails -eq 0 ] && echo "verify parity: the workspace's generated Llama equals transformers $PGCI_HF_TRANSFORMERS bit for bit at the pin; a seeded change fails with its message; --tag regenerates in a scratch copy"
exit $((fails > 0))
