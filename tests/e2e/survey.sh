#!/usr/bin/env bash
# pgci survey on the demo workspace between the fixture tags, whose every change is
# listed in fixtures/upstream/DRIFT.md:
#  - v1.0.0 -> v1.1.0: exactly the findings in tests/e2e/expected/survey_demo.txt,
#    each checked by hand against DRIFT.md (the golden file is the reviewed list);
#  - v1.0.0 -> v1.0.0: no change, no finding from any comparison;
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

rc=0
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --format json --run-json "$T/run.json" \
    > "$T/s.json" || rc=$?
[ "$rc" = 1 ] || { echo "survey with errors should exit 1, got $rc" >&2; exit 1; }
lines "$T/s.json" regen > "$T/found.txt"
diff -u tests/e2e/expected/survey_demo.txt "$T/found.txt"
# the regeneration failures, one line each
lines "$T/s.json" signatures targets deprecations name-map-fields > "$T/regen.txt"
[ "$(wc -l < "$T/regen.txt")" = 2 ]
grep -c 'fails to regenerate against v1.1.0: .*F821 Undefined name `Optional`' "$T/regen.txt" | grep -qx 2
python3 - "$T/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["command"] == "survey"
assert run["inputs"]["from"] == "v1.0.0" and run["inputs"]["to"] == "v1.1.0", run["inputs"]
st = {c["module"].split(".")[-1]: c["status"] for c in run["configs"]}
assert st == {"llama_gpu_patch_gen_config": "drift", "qwen3_gpu_patch_gen_config": "failed",
              "qwen3_npu_patch_gen_config": "failed", "qwen3_moe_gpu_patch_gen_config": "drift"}, st
PY
"$PGCI" report --in "$T/run.json" > "$T/report.md"
expect_grep '^# Upgrading the transformers pin: v1.0.0 → v1.1.0$' "$T/report.md"
expect_grep '^pgci surveyed 4 configs from v1.0.0 to v1.1.0: 2 fail to regenerate against v1.1.0, 1 patch target vanished' "$T/report.md"

# no change: nothing from the comparisons (targets' notes and the name_map field
# trap are standing facts of the config, not changes between tags)
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --from v1.0.0 --to v1.0.0 --format json > "$T/same.json"
lines "$T/same.json" targets name-map-fields > "$T/same.txt"
[ ! -s "$T/same.txt" ] || { echo "a survey of a tag against itself found:" >&2; cat "$T/same.txt" >&2; exit 1; }

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
assert len(a["configs"]) == 4
PY

# rope-compat: the model's configuration turns partial rotary on at v1.1.0
mkdir -p "$T/rope"
cp -r fixtures/workspace "$T/rope/workspace"
cp -r fixtures/upstream "$T/rope/upstream"
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
lines "$T/rope.json" signatures targets deprecations name-map-fields regen > "$T/rope.txt"
cat > "$T/rope.want" <<'EOF'
error	rope-compat	llama_gpu_patch_gen_config	`apply_rotary_pos_emb` is replaced by a full-head rotary, but the model's configuration defaults to partial rotary (partial_rotary_factor < 1) at v1.1.0
EOF
diff -u "$T/rope.want" "$T/rope.txt"

# auto-docstring: an override of an @auto_docstring method adds an undocumented parameter
mkdir -p "$T/doc"
cp -r fixtures/workspace "$T/doc/workspace"
cp -r fixtures/upstream "$T/doc/upstream"
cfg=$T/doc/workspace/demo/models/llama/llama_gpu_patch_gen_config.py
python3 - "$cfg" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "    use_cache: Optional[bool] = None,\n    **kwargs,\n) -> CausalLMOutputWithPast:"
assert s.count(old) == 1, "fixture changed: update the scenario"
open(p, "w").write(s.replace(old, "    use_cache: Optional[bool] = None,\n    fused_loss_chunk: int = 0,\n    **kwargs,\n) -> CausalLMOutputWithPast:"))
PY
"$PGCI" survey -C "$T/doc/workspace" --ruff "$RUFF" --format json > "$T/doc.json" || true
lines "$T/doc.json" signatures targets deprecations name-map-fields regen > "$T/doc.txt"
cat > "$T/doc.want" <<'EOF'
warning	auto-docstring	llama_gpu_patch_gen_config	`LlamaForCausalLM.forward` is @auto_docstring upstream; the override adds `fused_loss_chunk`, missing from its docstring's Args:
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
