#!/usr/bin/env bash
# Corpus: every protocol rule on the real VeOmni tree (the veomni 0.1.12 wheel's
# veomni/models/transformers, 29 configs in 20 model packages) against
# transformers 5.9.0, its pin. The wheel has no pyproject with [tool.patchgen], so
# the tree is copied into a temporary workspace with a small one. Prints the
# findings per rule and compares them, one by one, with 60-protocol.expected
# (each checked by hand: docs/protocol.md says what each one is). The rules that
# find nothing on VeOmni are then shown to fire on the real files: one mutation
# each (a dropped staticmethod, a class left out of the converter loop, the NPU
# import replaced by the GPU one, a wrong model type, a generated class imported
# from transformers next to the excluded ones, a retired file back) gives exactly
# its findings. Then --base on the same tree in git: no finding without a
# change, a hand edit of a generated file flagged, an NPU file regenerated after
# the GPU config it imports changed accepted.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
PGCI=${PGCI:-$PWD/bin/pgci}
VEOMNI=$(corpus_wheel veomni 0.1.12)
TF=$(corpus_wheel transformers 5.9.0)
T=$(mktemp -d "${TMPDIR:-/tmp}/pgci-corpus-protocol.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

W=$T/veomni
mkdir -p "$W/veomni/models"
cp -r "$VEOMNI/veomni/models/transformers" "$W/veomni/models/"
cat >"$W/pyproject.toml" <<TOML
[project]
name = "veomni-protocol-corpus"
version = "0.1.12"
dependencies = ["transformers==5.9.0"]

[tool.patchgen]
search_root = "veomni/models/transformers"
package_prefix = "veomni.models.transformers"
ruff_extra_ignore = []
ruff_isolated = false

[tool.pgci]
upstream = "dir:$TF"
TOML

run() { "$PGCI" check -C "$W" --no-ruff "$@"; }
rc=0
run --format json --run-json "$T/run.json" >"$T/findings.json" || rc=$?
[ "$rc" -le 1 ] || fail "pgci check exited $rc"

python3 - "$T/findings.json" "$T/run.json" tests/corpus/60-protocol.expected <<'PY'
import collections, json, sys
findings = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
prefix = "veomni/models/transformers/"
proto = [f for f in findings if f["check"].startswith("protocol-")]
rules = ["registration.decorator", "registration.import", "registration.npu-branch",
         "registration.converter", "retired.file", "retired.generated-only", "comments.header",
         "comments.markers", "comments.regen-command", "siblings.pair", "siblings.copied-body",
         "tests.toy-config", "tests.registry", "tests.logits", "import.smoke"]
count = collections.Counter(f["data"]["rule"] for f in proto)
status = {c["id"]: (c["status"], c["reason"]) for c in run["checks"]}
print("protocol findings on veomni 0.1.12 (%d configs):" % len(run["configs"]))
for r in rules:
    print("  %-26s %3d" % (r, count[r]))
for cid in sorted(s for s in status if s.startswith("protocol-")):
    st, why = status[cid]
    print("  check %-22s %s%s" % (cid, st, ": " + why if why else ""))
assert set(count) <= set(rules), count
got = sorted("%s %s %s:%d: %s" % (f["data"]["rule"], f["severity"], f["path"][len(prefix):],
                                 f["line"], f["title"]) for f in proto)
want = sorted(l.rstrip("\n") for l in open(sys.argv[3]) if l.strip() and not l.startswith("#"))
if got != want:
    for l in sorted(set(want) - set(got)):
        print("missing:", l)
    for l in sorted(set(got) - set(want)):
        print("unexpected:", l)
    sys.exit("protocol findings differ from 60-protocol.expected")
# the wheel's workspace sets no [tool.pgci] python: the smoke test is not configured
assert status["protocol-import"][0] == "not-configured", status["protocol-import"]
for cid in ("protocol-registration", "protocol-retired", "protocol-comments",
            "protocol-siblings", "protocol-tests"):
    assert status[cid][0] == "ran", (cid, status[cid])
print("ok   %d protocol findings, each as expected" % len(proto))
PY

# the name-map cross-reference (off by default) on VeOmni: no finding. It once
# reported qwen3_5_moe_npu_patch_gen_config.py:402, a name-map-fields false
# positive (upstream's own Qwen3_5MoeTextModel.forward builds the output with the
# same fields and @capture_outputs records router_logits); name-map-fields now
# measures a reuse against upstream's own implementation, so it is gone
printf '\n[tool.pgci.protocol.rules]\n"siblings.name-map" = true\n' >>"$W/pyproject.toml"
run --format json >"$T/nm.json" || true
got=$(python3 -c 'import json,sys
for f in json.load(open(sys.argv[1])):
    if (f["data"] or {}).get("rule") == "siblings.name-map":
        print("%s:%d" % (f["path"], f["line"]))' "$T/nm.json")
[ -z "$got" ] || fail "siblings.name-map on VeOmni: $got"
echo "ok   siblings.name-map on: no finding on VeOmni"
sed -i '/^\[tool.pgci.protocol.rules\]$/,$d' "$W/pyproject.toml"

# mutations of the real tree: each registration/retired rule fires on real code
M=$T/mutated
cp -r "$W" "$M"
G=veomni/models/transformers
python3 - "$M/$G" <<'PY'
import sys
root = sys.argv[1]
def edit(rel, old, new):
    p = root + "/" + rel
    s = open(p).read()
    assert s.count(old) == 1, (rel, old)
    open(p, "w").write(s.replace(old, new))
edit("qwen3_moe/__init__.py", "staticmethod(create_qwen3_moe_checkpoint_tensor_converter)",
     "create_qwen3_moe_checkpoint_tensor_converter")
edit("deepseek_v3/__init__.py", "        DeepseekV3ForTokenClassification,\n        DeepseekV3Model,\n    ):",
     "        DeepseekV3ForTokenClassification,\n    ):")
edit("qwen3/__init__.py", "from .generated.patched_modeling_qwen3_npu import",
     "from .generated.patched_modeling_qwen3_gpu import")
edit("llama/__init__.py", '@MODELING_REGISTRY.register("llama")', '@MODELING_REGISTRY.register("lama")')
edit("qwen2_5_omni/__init__.py", "        Qwen2_5OmniTalkerModel,\n    )\n",
     "        Qwen2_5OmniTalkerModel,\n        Qwen2_5OmniThinkerForConditionalGeneration,\n    )\n")
open(root + "/seed_oss/npu_patch.py", "w").write("# the old monkey patch\n")
PY
"$PGCI" check -C "$M" --no-ruff --allow-skip drift --allow-skip protocol-import --format json >"$T/mutated.json" || true
python3 - "$T/findings.json" "$T/mutated.json" <<'PY'
import json, sys
key = lambda f: (f["data"]["rule"], f["path"].replace("veomni/models/transformers/", ""), f["line"], f["title"])
base = {key(f) for f in json.load(open(sys.argv[1])) if f["check"].startswith("protocol-")}
new = sorted(k for k in (key(f) for f in json.load(open(sys.argv[2])) if f["check"].startswith("protocol-")) if k not in base)
for k in new:
    print("  mutation found: %s %s:%d: %s" % k)
conv = "_create_checkpoint_tensor_converter is assigned without staticmethod(): the loader would call it bound to the class"
want = sorted([
    ("registration.converter", "qwen3_moe/__init__.py", 65, "Qwen3MoeForCausalLM." + conv),
    ("registration.converter", "qwen3_moe/__init__.py", 65, "Qwen3MoeForQuestionAnswering." + conv),
    ("registration.converter", "qwen3_moe/__init__.py", 65, "Qwen3MoeForTokenClassification." + conv),
    ("registration.converter", "qwen3_moe/__init__.py", 65, "Qwen3MoeModel." + conv),
    ("registration.converter", "deepseek_v3/__init__.py", 53,
     "returns DeepseekV3Model without _create_checkpoint_tensor_converter = staticmethod(...) although "
     "veomni/models/transformers/deepseek_v3/checkpoint_tensor_converter.py exists"),
    ("registration.npu-branch", "qwen3/__init__.py", 18,
     "veomni/models/transformers/qwen3 has an NPU config but never imports "
     ".generated.patched_modeling_qwen3_npu under `if IS_NPU_AVAILABLE:`"),
    ("registration.npu-branch", "qwen3/__init__.py", 21,
     "imports the GPU module .generated.patched_modeling_qwen3_gpu under `if IS_NPU_AVAILABLE:`"),
    ("registration.decorator", "llama/__init__.py", 17,
     'registers "lama", not the model type of llama configs ("llama")'),
    ("registration.import", "qwen2_5_omni/__init__.py", 40,
     "imports Qwen2_5OmniThinkerForConditionalGeneration from "
     "transformers.models.qwen2_5_omni.modeling_qwen2_5_omni instead of the generated module "
     "(it is not excluded from the generated file)"),
    ("retired.file", "seed_oss/npu_patch.py", 0,
     "npu_patch.py is retired: veomni/models/transformers/seed_oss is generated from "
     "veomni/models/transformers/seed_oss/seed_oss_gpu_patch_gen_config.py now"),
])
assert new == want, "\n".join(map(str, new))
print("ok   %d mutations of the real tree: exactly the expected findings" % 6)
PY

# --base on the real tree
git -C "$W" init -q
git -C "$W" -c user.name=t -c user.email=t@t add -A
git -C "$W" -c user.name=t -c user.email=t@t commit -qm veomni
only_generated_only() { python3 -c '
import json, sys
for f in json.load(sys.stdin):
    if f["data"] and f["data"].get("rule") == "retired.generated-only":
        print(f["path"])'; }
run --base HEAD --format json >"$T/b0.json" || true
[ -z "$(only_generated_only <"$T/b0.json")" ] || fail "--base HEAD without a change"
G=veomni/models/transformers
echo "# hand edit" >>"$W/$G/qwen3_vl/generated/patched_modeling_qwen3_vl_gpu.py"
echo "# regenerated" >>"$W/$G/qwen3_5_moe/generated/patched_modeling_qwen3_5_moe_npu.py"
echo "# shared patch edited" >>"$W/$G/qwen3_5/qwen3_5_gpu_patch_gen_config.py"
run --base HEAD --format json >"$T/b1.json" || true
got=$(only_generated_only <"$T/b1.json")
[ "$got" = "$G/qwen3_vl/generated/patched_modeling_qwen3_vl_gpu.py" ] || fail "--base: got: $got"
echo "ok   --base: a hand edit flagged; an NPU file whose imported GPU config changed accepted"
