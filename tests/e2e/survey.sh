#!/usr/bin/env bash
# pgci survey on the demo workspace between the fixture tags, whose every change is
# listed in fixtures/upstream/DRIFT.md:
#  - v1.0.0 -> v1.1.0: exactly the findings in tests/e2e/expected/survey_demo.txt,
#    each checked by hand against DRIFT.md (the golden file is the reviewed list);
#  - grouped by upstream change in run.json (a change id on each finding);
#  - the mini_vl config (fixtures/survey): what patch bodies use, followed;
#  - v1.0.0 -> v1.0.0 and v1.1.0 -> v1.1.0: no change, no finding at all;
#  - --to latest resolves to v1.1.0 (also from a dir:.../t-{tag} source); --from pin
#    to v1.0.0;
#  - the two regeneration failures against v1.1.0 are the qwen3 configs (Optional);
#  - rope-compat and auto-docstring, on workspace copies that set them up;
#  - shards merged with pgci report --merge give the unsharded run's findings.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

lines() {
    python3 -c '
import json, sys
for f in json.load(open(sys.argv[1])):
    if f["check"] in sys.argv[2:]:
        continue
    print("%s\t%s\t%s\t%s" % (f["severity"], f["check"], f["config"].split(".")[-1], f["title"]))
' "$@" | sort
}

# scenario NAME: a copy of the demo workspace and the fixture tags under $T/NAME
scenario() {
    mkdir -p "$T/$1"
    cp -r fixtures/workspace "$T/$1/workspace"
    cp -r fixtures/upstream "$T/$1/upstream"
}

# replace_once FILE OLD NEW: the one occurrence of OLD in FILE becomes NEW (ASCII, Python
# string escapes); a fixture that no longer has it exactly once stops the test
replace_once() {
    python3 - "$@" <<'PY'
import sys
p, old, new = sys.argv[1], *(a.encode().decode("unicode_escape") for a in sys.argv[2:4])
s = open(p).read()
assert s.count(old) == 1, "fixture changed: update the scenario"
open(p, "w").write(s.replace(old, new))
PY
}

rc=0
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --format json --run-json "$T/run.json" \
    > "$T/s.json" || rc=$?
[ "$rc" = 1 ] || { echo "survey with errors should exit 1, got $rc" >&2; exit 1; }
lines "$T/s.json" regen > "$T/found.txt"
diff -u tests/e2e/expected/survey_demo.txt "$T/found.txt"
# the regeneration failures, one line each
lines "$T/s.json" signatures callees inherited targets deprecations name-map-fields > "$T/regen.txt"
[ "$(wc -l < "$T/regen.txt")" = 2 ]
grep -c 'fails to regenerate against v1.1.0: .*F821 Undefined name `Optional`' "$T/regen.txt" | grep -qx 2
python3 - "$T/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["command"] == "survey"
assert run["inputs"]["from"] == "v1.0.0" and run["inputs"]["to"] == "v1.1.0", run["inputs"]
st = {c["module"].split(".")[-1]: c["status"] for c in run["configs"]}
assert st == {"llama_gpu_patch_gen_config": "drift", "qwen3_gpu_patch_gen_config": "failed",
              "qwen3_npu_patch_gen_config": "failed", "qwen3_moe_gpu_patch_gen_config": "ok"}, st  # its replaced class sets self.gate itself
PY
"$PGCI" report --in "$T/run.json" > "$T/report.md"
expect_grep '^# Upgrading the transformers pin: v1.0.0 → v1.1.0$' "$T/report.md"
expect_grep '^pgci surveyed 4 configs from v1.0.0 to v1.1.0: 2 fail to regenerate against v1.1.0, 1 patch target vanished' "$T/report.md"

# the findings are grouped by upstream change: a change id on each, the list of
# changes beside them, every change id used and every finding in one change
python3 - "$T/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
ids = [c["id"] for c in run["changes"]]
assert len(ids) == len(set(ids)), ids
used = {f["data"]["change"] for f in run["findings"]}
assert used == set(ids), (used ^ set(ids))
for c in run["changes"]:
    n = sum(1 for f in run["findings"] if f["data"]["change"] == c["id"])
    assert n == c["findings"], c
order = ["fails-to-regenerate", "silently-dropped", "breaks-at-run-time", "contract-changed",
         "deprecation", "note"]
hows = [order.index(c["how"]) for c in run["changes"]]
assert hows == sorted(hows), hows
# one change for the two qwen3 configs' `Optional`, the regeneration failures in it
opt = [c for c in run["changes"] if c["title"].startswith("`Optional` is no longer imported")]
assert len(opt) == 1 and opt[0]["how"] == "fails-to-regenerate", opt
assert sorted(c.split(".")[-1] for c in opt[0]["configs"]) == [
    "qwen3_gpu_patch_gen_config", "qwen3_npu_patch_gen_config"], opt
PY

# the mini_vl config (fixtures/survey): one patch body per thing the survey follows
# through bodies (DRIFT.md, module mini_vl); exactly the reviewed findings
scenario vl
mkdir -p "$T/vl/workspace/demo/models/mini_vl"
cp fixtures/survey/mini_vl/mini_vl_gpu_patch_gen_config.py "$T/vl/workspace/demo/models/mini_vl/"
touch "$T/vl/workspace/demo/models/mini_vl/__init__.py"
"$PGCI" survey -C "$T/vl/workspace" --ruff "$RUFF" --format json --run-json "$T/vl.run.json" \
    > "$T/vl.json" || true
lines "$T/vl.json" regen | grep -P '\tmini_vl_gpu_patch_gen_config\t' > "$T/vl.txt" || true
diff -u tests/e2e/expected/survey_mini_vl.txt "$T/vl.txt"
# its regeneration failure joins the change that explains it (ruff: undefined name)
python3 - "$T/vl.run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
regen = [f for f in run["findings"] if f["check"] == "regen" and "mini_vl" in f["config"]]
assert len(regen) == 1, regen
change = next(c for c in run["changes"] if c["id"] == regen[0]["data"]["change"])
assert change["kind"] == "name" and change["how"] == "fails-to-regenerate", change
PY
# the note says how a changed callee's calls break, not only its two signatures
"$PGCI" report --in "$T/vl.run.json" -o "$T/vl.report" > /dev/null
expect_grep '^Why it breaks:$' "$T/vl.report/report.md"
expect_grep '^- `create_causal_mask\(\)`: it passes `cache_position=`, which the new signature lacks$' \
    "$T/vl.report/report.md"

# a module of the workspace that a generated module imports: its top-level import
# of qwen3's `Qwen3MLP`, which v1.1.0 renamed (DRIFT.md), raises ImportError when
# the llama config's generated module is imported, though no patch body changed;
# its imports in a `try` and in a function do not run unguarded at import time
scenario wsimp
mkdir -p "$T/wsimp/workspace/demo/utils"
printf '"""Shared helpers."""\n' > "$T/wsimp/workspace/demo/utils/__init__.py"
cat > "$T/wsimp/workspace/demo/utils/outputs.py" <<'PY'
"""What the demo's patched models share."""

from transformers.models.qwen3.modeling_qwen3 import Qwen3MLP, Qwen3RMSNorm

try:
    from transformers.models.qwen3.modeling_qwen3 import Qwen3FeedForwardSoon
except ImportError:
    Qwen3FeedForwardSoon = None


def scaled(x):
    from transformers.models.mini_vl.modeling_mini_vl import scale_tokens

    return scale_tokens(x, 2)


DEMO_MLP = (Qwen3MLP, Qwen3RMSNorm)
PY
wcfg=$T/wsimp/workspace/demo/models/llama/llama_gpu_patch_gen_config.py
replace_once "$wcfg" 'config.add_import("os", is_from_import=False)\n' \
    'config.add_import("os", is_from_import=False)\nconfig.add_import("demo.utils.outputs", names=["DEMO_MLP"])\n'
replace_once "$wcfg" '    if "swiglu" in demo_kernels:\n' '    if "swiglu" in demo_kernels and DEMO_MLP:\n'
"$PGCI" survey -C "$T/wsimp/workspace" --ruff "$RUFF" --no-cache --format json \
    --run-json "$T/wsimp.run.json" > "$T/wsimp.json" || true
python3 - "$T/wsimp.json" "$T/wsimp.run.json" <<'PY'
import json, sys
fs = [f for f in json.load(open(sys.argv[1])) if f["data"].get("kind") == "ws-import-removed"]
got = [(f["severity"], f["config"].split(".")[-1], f["path"], f["line"], f["title"]) for f in fs]
assert got == [("error", "llama_gpu_patch_gen_config", "demo/utils/outputs.py", 3,
                "`demo/utils/outputs.py` line 3 imports `Qwen3MLP` from "
                "`transformers.models.qwen3.modeling_qwen3`, which no longer has it at v1.1.0: "
                "importing the generated module raises ImportError")], got
run = json.load(open(sys.argv[2]))
f = next(f for f in run["findings"] if f["data"].get("kind") == "ws-import-removed")
c = next(c for c in run["changes"] if c["id"] == f["data"]["change"])
assert c["how"] == "breaks-at-run-time" and c["action"] == (
    "import it from where it moved, or drop it (`demo/utils/outputs.py` line 3)"), c
PY
# the same workspace against each tag itself: nothing
for tag in v1.0.0 v1.1.0; do
    "$PGCI" survey -C "$T/wsimp/workspace" --ruff "$RUFF" --from $tag --to $tag --format json \
        > "$T/wsimp.same.json" || true
    ! grep -q ws-import-removed "$T/wsimp.same.json"
done

# no change, no finding: a survey of each tag against itself reports nothing at all
# (standing facts - notes about what patchgen leaves out, a name_map field trap
# already there, a config that fails to regenerate at both tags - are pgci check's)
for tag in v1.0.0 v1.1.0; do
    "$PGCI" survey -C "$T/vl/workspace" --ruff "$RUFF" --from $tag --to $tag --format json \
        --run-json "$T/same.run.json" > "$T/same.json"
    lines "$T/same.json" > "$T/same.txt"
    [ ! -s "$T/same.txt" ] || { echo "a survey of $tag against itself found:" >&2; cat "$T/same.txt" >&2; exit 1; }
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["changes"]==[] and r["summary"]=={"errors":0,"warnings":0,"info":0}, r["summary"]' "$T/same.run.json"
done

# shards: 1/2 and 2/2 merged are the whole
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --shard 1/2 --run-json "$T/s1.json" > /dev/null || true
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --shard 2/2 --run-json "$T/s2.json" > /dev/null || true
"$PGCI" report --merge "$T/s1.json" "$T/s2.json" -o "$T/merged"
python3 - "$T/merged/run.json" "$T/run.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda f: (f["config"], f["check"], f["title"])
strip = lambda fs: sorted(key(f) for f in fs if f["check"] != "regen")
assert strip(a["findings"]) == strip(b["findings"]), "merged shards differ from the whole"
# the upstream changes of the merged shards are the whole run's (regeneration
# failures aside: the whole run has them, each shard its own)
chg = lambda r: sorted((c["id"], c["title"], tuple(c["configs"])) for c in r["changes"] if c["kind"] != "regen")
assert chg(a) == chg(b), (chg(a), chg(b))
assert len(a["configs"]) == 4
PY

# a config that fails at both tags (a patch body uses a name nothing defines): its
# failure is not the bump's, so the survey leaves it to pgci check (which reports
# it); the survey's second look at v1.0.0 asks ruff for its verdict only
scenario both
replace_once "$T/both/workspace/demo/models/qwen3_moe/qwen3_moe_gpu_patch_gen_config.py" \
    "        return final_hidden_states, router_logits\\n" \
    "        return final_hidden_states, router_logits_nowhere\\n"
"$PGCI" check -C "$T/both/workspace" --ruff "$RUFF" --no-cache --format json > "$T/both.check.json" || true
python3 - "$T/both.check.json" <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1])) if x["check"] == "regen"]
assert [x["config"].split(".")[-1] for x in f] == ["qwen3_moe_gpu_patch_gen_config"], f
assert "F821 Undefined name `router_logits_nowhere`" in f[0]["title"] + (f[0].get("detail") or ""), f
PY
for cache in --no-cache "" ""; do
    "$PGCI" survey -C "$T/both/workspace" --ruff "$RUFF" $cache --cache-dir "$T/both.cache" \
        --format json > "$T/both.json" || true
    lines "$T/both.json" signatures callees inherited targets deprecations name-map-fields > "$T/both.txt"
    # the bump's two failures, and not the standing one (cold, then from the cache)
    grep -c 'fails to regenerate against v1.1.0' "$T/both.txt" | grep -qx 2
    ! grep -q qwen3_moe "$T/both.txt"
done
# no finding names the standing failure, so every summary counts it as one: three
# configs fail against v1.1.0, one of them against v1.0.0 too (the terminal once
# said "2 of 4 fail" and the report "3 fail", neither why)
"$PGCI" survey -C "$T/both/workspace" --ruff "$RUFF" --cache-dir "$T/both.cache" \
    --run-json "$T/both.run.json" > "$T/both.out" || true
expect_grep "^3 of 4 configs fail to regenerate against v1.1.0, 1 of them against v1.0.0 too \(not the bump's\); 1 target vanished, 5 changed;" "$T/both.out"
python3 tests/tools/validate_json.py docs/run.schema.json "$T/both.run.json" > /dev/null
python3 - "$T/both.run.json" <<'PY'
import json, sys
st = {c["module"].split(".")[-1]: (c["status"], c.get("standing", False))
      for c in json.load(open(sys.argv[1]))["configs"]}
assert st == {"llama_gpu_patch_gen_config": ("drift", False),
              "qwen3_gpu_patch_gen_config": ("failed", False),
              "qwen3_npu_patch_gen_config": ("failed", False),
              "qwen3_moe_gpu_patch_gen_config": ("failed", True)}, st
PY
"$PGCI" report --in "$T/both.run.json" > "$T/both.md"
expect_grep "^pgci surveyed 4 configs from v1.0.0 to v1.1.0: 3 fail to regenerate against v1.1.0 \(1 of them against v1.0.0 too: not the bump's, see \`pgci check\`\), 1 patch target vanished, 5 signature changes under the patches," "$T/both.md"
# and its row in the configs table, the one place its error is written
expect_grep "^<tr><td><code>demo.models.qwen3_moe.qwen3_moe_gpu_patch_gen_config</code></td><td>failed at v1.0.0 too \(not the bump's\): .*F821 Undefined name \`router_logits_nowhere\`" "$T/both.md"
[ "$(grep -c "too (not the bump's)" "$T/both.md")" = 1 ]

# the same standing failure, and at v1.1.0 a cause it had not at v1.0.0: upstream
# now defines the config's helper `demo_kernel_bound` too (ruff's F811): what the
# maintainer meets next after the bump, so not standing, an error of its own
# (regen_causes.h); before, the config was counted standing and said nothing
scenario both2
replace_once "$T/both2/workspace/demo/models/qwen3_moe/qwen3_moe_gpu_patch_gen_config.py" \
    "        return final_hidden_states, router_logits\\n" \
    "        return final_hidden_states, router_logits_nowhere\\n"
printf '\n\ndef demo_kernel_bound(name):\n    return False\n' \
    >> "$T/both2/upstream/v1.1.0/transformers/models/qwen3_moe/modeling_qwen3_moe.py"
"$PGCI" survey -C "$T/both2/workspace" --ruff "$RUFF" --no-cache --run-json "$T/both2.run.json" \
    --format json > "$T/both2.json" || true
python3 - "$T/both2.json" "$T/both2.run.json" <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1])) if x["check"] == "regen" and "qwen3_moe" in x["config"]]
assert len(f) == 1 and f[0]["severity"] == "error", f
assert f[0]["title"].startswith("fails to regenerate against v1.1.0, for a cause it had not at v1.0.0 "
                                "(F811 Redefinition of unused `demo_kernel_bound` from line #): "), f
st = {c["module"].split(".")[-1]: c.get("standing", False) for c in json.load(open(sys.argv[2]))["configs"]}
assert st["qwen3_moe_gpu_patch_gen_config"] is False, st
PY

# rope-compat: the model's configuration turns partial rotary on at v1.1.0
scenario rope
conf=$T/rope/upstream/v1.1.0/transformers/models/llama/configuration_llama.py
python3 - "$conf" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s2, n = re.subn(r"(def __init__\(\s*self,)", r"\1\n        partial_rotary_factor=0.5,", s, count=1)
assert n == 1
open(p, "w").write(s2)
PY
"$PGCI" survey -C "$T/rope/workspace" --ruff "$RUFF" --format json > "$T/rope.json" || true
lines "$T/rope.json" signatures callees inherited targets deprecations name-map-fields regen > "$T/rope.txt"
cat > "$T/rope.want" <<'EOF'
error	rope-compat	llama_gpu_patch_gen_config	`apply_rotary_pos_emb` is replaced by a full-head rotary, but the model's configuration defaults to partial rotary (partial_rotary_factor < 1) at v1.1.0
EOF
diff -u "$T/rope.want" "$T/rope.txt"

# external bases: LlamaForCausalLM stops defining get_decoder at v1.1.0, which a patch
# body calls, while PreTrainedModel gains a base from the `utils` package (re-exported
# from utils/hub.py): the survey reads both at v1.1.0 (the package as
# utils/__init__.py) and settles it: an error when hub.py does not define it, a note
# when it does. The body also calls a function the model imports from `...utils`,
# which the survey's first fetch tried as utils.py and could not read: the package is
# still read for the bases (it was not, and the error stayed a warning, at 5.25.0)
scenario bases
up=$T/bases/upstream/v1.1.0/transformers
replace_once "$T/bases/workspace/demo/models/llama/llama_gpu_patch_gen_config.py" \
    "    outputs = self.model(" "    is_torch_available()\n    outputs = self.get_decoder()("
for v in v1.0.0 v1.1.0; do
    replace_once "$T/bases/upstream/$v/transformers/models/llama/modeling_llama.py" \
        "from ...utils import TransformersKwargs," "from ...utils import TransformersKwargs, is_torch_available,"
done
replace_once "$up/models/llama/modeling_llama.py" "    def get_decoder(self):\n        return self.model\n\n" ""
replace_once "$up/modeling_utils.py" "class PreTrainedModel(nn.Module):" \
    "class PreTrainedModel(nn.Module, PushToHubMixin):"
replace_once "$up/modeling_utils.py" "from .configuration_utils import PretrainedConfig\n" \
    "from .configuration_utils import PretrainedConfig\nfrom .utils import PushToHubMixin\n"
replace_once "$up/utils/__init__.py" "from . import logging\n" "from . import logging\nfrom .hub import PushToHubMixin\n"
printf 'class PushToHubMixin:\n    def push_to_hub(self, repo):\n        return repo\n' > "$up/utils/hub.py"
bases_callees() { # RUN.JSON: the callees findings on self.get_decoder(), with their detail
    python3 - "$1" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["check"] == "callees" and "get_decoder" in f["title"]:
        print(f["severity"], f["data"]["kind"], f["title"])
        print(f.get("detail") or "", end="")
PY
}
"$PGCI" survey -C "$T/bases/workspace" --ruff "$RUFF" --no-cache --run-json "$T/bases.run.json" \
    --format json > /dev/null || true
bases_callees "$T/bases.run.json" > "$T/bases.txt"
cat > "$T/bases.want" <<'EOF'
error callee-vanished `LlamaForCausalLM.forward` calls `self.get_decoder()`, which `LlamaForCausalLM` no longer defines at v1.1.0
classes read at v1.1.0, none of which defines `get_decoder` (nor does torch.nn.Module):
  LlamaForCausalLM (transformers.models.llama.modeling_llama)
  LlamaPreTrainedModel (transformers.models.llama.modeling_llama)
  PreTrainedModel (transformers.modeling_utils)
  PushToHubMixin (transformers.utils.hub)
EOF
diff -u "$T/bases.want" "$T/bases.txt"
# what was read for it is among the run's inputs, at v1.1.0 only
python3 - "$T/bases.run.json" <<'PY'
import json, sys
paths = [f["path"] for f in json.load(open(sys.argv[1]))["inputs"]["files"]]
for m in ("transformers.utils.__init__", "transformers.utils.hub"):
    assert f"upstream:{m}@v1.1.0" in paths and f"upstream:{m}@v1.0.0" not in paths, (m, paths)
PY
printf '    def get_decoder(self):\n        return self\n' >> "$up/utils/hub.py"
"$PGCI" survey -C "$T/bases/workspace" --ruff "$RUFF" --no-cache --run-json "$T/bases.run.json" \
    --format json > /dev/null || true
bases_callees "$T/bases.run.json" > "$T/bases.txt"
cat > "$T/bases.want" <<'EOF'
info callee-inherited `LlamaForCausalLM.forward` calls `self.get_decoder()`, which `LlamaForCausalLM` no longer defines at v1.1.0: it inherits `PushToHubMixin.get_decoder` (transformers.utils.hub) now
EOF
diff -u "$T/bases.want" "$T/bases.txt"

# auto-docstring: an override of an @auto_docstring method adds an undocumented parameter
scenario doc
cfg=$T/doc/workspace/demo/models/llama/llama_gpu_patch_gen_config.py
replace_once "$cfg" "    use_cache: Optional[bool] = None,\\n    **kwargs,\\n) -> CausalLMOutputWithPast:" \
    "    use_cache: Optional[bool] = None,\\n    fused_loss_chunk: int = 0,\\n    **kwargs,\\n) -> CausalLMOutputWithPast:"
# the argument is undocumented at both tags: a standing fact (pgci check's), no change
"$PGCI" survey -C "$T/doc/workspace" --ruff "$RUFF" --format json > "$T/doc.json" || true
lines "$T/doc.json" signatures callees inherited targets deprecations name-map-fields regen > "$T/doc.txt"
[ ! -s "$T/doc.txt" ] || { echo "auto-docstring reported a standing fact:" >&2; cat "$T/doc.txt" >&2; exit 1; }
# upstream makes the method @auto_docstring at v1.1.0 only: now it is the bump's
python3 - "$T/doc/upstream/v1.0.0/transformers/models/llama/modeling_llama.py" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
for old, new in [("    @can_return_tuple\n    @auto_docstring\n    def forward(\n        self,\n        input_ids",
                  "    @can_return_tuple\n    def forward(\n        self,\n        input_ids"),
                 ("@auto_docstring\nclass LlamaForCausalLM(", "class LlamaForCausalLM(")]:
    assert s.count(old) == 1, "fixture changed: update the scenario"
    s = s.replace(old, new)
open(p, "w").write(s)
PY
"$PGCI" survey -C "$T/doc/workspace" --ruff "$RUFF" --format json > "$T/doc.json" || true
lines "$T/doc.json" signatures callees inherited targets deprecations name-map-fields regen > "$T/doc.txt"
cat > "$T/doc.want" <<'EOF'
warning	auto-docstring	llama_gpu_patch_gen_config	`LlamaForCausalLM.forward` is @auto_docstring upstream; the override adds `fused_loss_chunk`, missing from its docstring's Args:
EOF
diff -u "$T/doc.want" "$T/doc.txt"
# ... unless auto_docstring.py's tables document the argument by its name at v1.1.0
# (transformers' ModelArgs): @auto_docstring fills it in, nothing is missing
cat > "$T/doc/upstream/v1.1.0/transformers/utils/auto_docstring.py" <<'EOF'
class ModelArgs:
    fused_loss_chunk = {"description": "How many tokens a fused loss chunk holds."}
EOF
"$PGCI" survey -C "$T/doc/workspace" --ruff "$RUFF" --format json > "$T/doc.json" || true
lines "$T/doc.json" signatures callees inherited targets deprecations name-map-fields regen > "$T/doc.txt"
[ ! -s "$T/doc.txt" ] || { echo "auto-docstring missed auto_docstring.py's ModelArgs:" >&2; cat "$T/doc.txt" >&2; exit 1; }
# the generated method carries the override's docstring, not upstream's: an override
# without one leaves out `labels`, which upstream's own docstring documents at v1.1.0
replace_once "$cfg" '    r"""\n    Args:\n        labels (`Tensor` of shape `(batch_size, sequence_length)`, *optional*):\n            Labels for computing the language modeling loss. Indices set to `-100` are ignored.\n    """\n    outputs = self.model(' \
    "    outputs = self.model("
"$PGCI" survey -C "$T/doc/workspace" --ruff "$RUFF" --format json > "$T/doc.json" || true
lines "$T/doc.json" signatures callees inherited targets deprecations name-map-fields regen > "$T/doc.txt"
cat > "$T/doc.want" <<'EOF'
warning	auto-docstring	llama_gpu_patch_gen_config	`LlamaForCausalLM.forward` is @auto_docstring upstream; the override's docstring, which replaces upstream's, leaves out `labels`
EOF
diff -u "$T/doc.want" "$T/doc.txt"

# name-map-fields is measured against upstream's own implementation: when upstream
# does not pass router_logits either (a decorator fills it), the reuse is no defect
mkdir -p "$T/nm"
cp -r fixtures/workspace "$T/nm/workspace"
cp -r fixtures/upstream "$T/nm/upstream"
m=$T/nm/upstream/v1.1.0/transformers/models/qwen3_moe/modeling_qwen3_moe.py
grep -q '            router_logits=outputs.router_logits,' "$m"
sed -i '/            router_logits=outputs.router_logits,/d' "$m"
"$PGCI" survey -C "$T/nm/workspace" --ruff "$RUFF" --format json > "$T/nm.json" || true
if grep -q '"check": "name-map-fields"' "$T/nm.json"; then
    echo "name-map-fields fired although upstream leaves router_logits out too" >&2
    exit 1
fi

# a config failing at both tags for other names: at v1.0.0 its body's `warnings` is
# undefined (v1.1.0 imports it), at v1.1.0 its `Optional` (v1.0.0 imported it). The
# failure at v1.1.0 is the bump's: counted so, and the Optional change lists it as
# failing to regenerate, not standing and not "breaks at run time".
scenario cause
cfg=$T/cause/workspace/demo/models/qwen3/qwen3_gpu_patch_gen_config.py
replace_once "$cfg" "    residual = hidden_states\n    hidden_states = self.input_layernorm(hidden_states)\n" \
    "    warnings.warn('demo')\n    residual = hidden_states\n    hidden_states = self.input_layernorm(hidden_states)\n"
"$PGCI" survey -C "$T/cause/workspace" --ruff "$RUFF" --run-json "$T/cause.json" \
    > /dev/null || true
"$PGCI" regen -C "$T/cause/workspace" demo.models.qwen3.qwen3_gpu_patch_gen_config \
    --tag v1.0.0 --ruff "$RUFF" > /dev/null 2> "$T/cause-a.txt" && { echo "qwen3_gpu should fail at v1.0.0" >&2; exit 1; }
grep -q 'F821 Undefined name `warnings`' "$T/cause-a.txt"
"$PGCI" report --in "$T/cause.json" > "$T/cause.md"
grep -q "to v1.1.0: 2 fail to regenerate against v1.1.0, " "$T/cause.md" || {
    echo "the bump's new cause of qwen3_gpu's failure was counted as standing:" >&2
    sed -n 3p "$T/cause.md" >&2
    exit 1
}
python3 - "$T/cause.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
qwen3 = [c for c in d["configs"] if c["module"].endswith("qwen3_gpu_patch_gen_config")][0]
assert qwen3["status"] == "failed" and not qwen3.get("standing"), qwen3
named = [f for f in d["findings"] if f["config"].endswith("qwen3_gpu_patch_gen_config")
         and f["data"].get("kind") in ("name-removed", "import-removed")
         and f["data"].get("name") == "Optional"]
assert named and all(f["data"].get("fails_regen") for f in named), named
ch = [c for c in d["changes"] if c.get("symbol") == "Optional"][0]
assert ch["how"] == "fails-to-regenerate", ch
PY
echo "ok   a failure at both tags for a name the bump removed is the bump's"

# --to latest through a dir: source whose {tag} is part of a name: its tags are the
# directories there, as the upstream layer lists them (pgci fetch --list-tags)
mkdir "$T/tx"
cp -r fixtures/upstream/v1.0.0 "$T/tx/t-v1.0.0"
cp -r fixtures/upstream/v1.1.0 "$T/tx/t-v1.1.0"
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --source "dir:$T/tx/t-{tag}" --format json \
    --run-json "$T/tx.json" > /dev/null || true
python3 -c 'import json, sys; i = json.load(open(sys.argv[1]))["inputs"]; assert i["to"] == "v1.1.0", i' \
    "$T/tx.json"

# bad input
expect_fail 2 "no release newer than v1.1.0" "$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --from v1.1.0
expect_fail 2 "--shard wants K/N" "$PGCI" survey -C fixtures/workspace --shard 3/2
echo "survey: ok"

# a survey stopped by its environment (a tag upstream does not have) still writes
# run.json with the error, as pgci check does, and exits 2 with one line
rc=0
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --to v9.9.9 --run-json "$T/err.json" \
    >/dev/null 2>"$T/err.txt" || rc=$?
[ "$rc" = 2 ] || { echo "survey --to an unknown tag should exit 2, got $rc" >&2; exit 1; }
[ "$(wc -l < "$T/err.txt")" = 1 ] || { cat "$T/err.txt" >&2; exit 1; }
python3 - "$T/err.json" "$T/err.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
line = open(sys.argv[2]).read().strip()
assert d["command"] == "survey", d.get("command")
assert d["error"] and line == "pgci: error: " + d["error"], (d.get("error"), line)
PY
echo "ok   a survey stopped by an unknown tag writes run.json with the error"
