#!/usr/bin/env bash
# End to end: pgci index on the hand-written fixture upstream (fixtures/upstream,
# two tags with documented drift, DRIFT.md) through the dir: source and --file.
#
# - CPython's ast agrees with the index of every fixture module (index_ast.py);
# - the drift rows of DRIFT.md show in the two tags' indexes (defaults, init
#   attributes, decorators, parameters, kinds, a renamed class with its body kept,
#   return annotations, imports);
# - bad input: one line on stderr, exit 2, nothing on stdout.
set -eu
cd "$(dirname "$0")/../.."
. tests/lib.sh
PGCI=${PGCI:-bin/pgci}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src='dir:fixtures/upstream/{tag}'
mods="transformers.models.llama.modeling_llama transformers.models.qwen3.modeling_qwen3
transformers.models.qwen3_moe.modeling_qwen3_moe"

# Every fixture module against CPython's ast.
find fixtures/upstream -name '*.py' | sort >"$tmp/files"
"$PGCI" index --files-from "$tmp/files" --json --jobs 1 >"$tmp/all.jsonl"
python3 tests/corpus/index_ast.py "$tmp/files" "$tmp/all.jsonl"
# the same bytes whatever the number of threads
"$PGCI" index --files-from "$tmp/files" --json --jobs 3 >"$tmp/all3.jsonl"
cmp "$tmp/all.jsonl" "$tmp/all3.jsonl"

# The same modules through the upstream layer at both tags.
for tag in v1.0.0 v1.1.0; do
    args=()
    for m in $mods; do args+=(--module "$m"); done
    "$PGCI" index --tag "$tag" --source "$src" "${args[@]}" --json >"$tmp/$tag.jsonl"
    "$PGCI" index --tag "$tag" --source "$src" "${args[@]}" --json >"$tmp/$tag.again"
    cmp "$tmp/$tag.jsonl" "$tmp/$tag.again" # deterministic
    [ "$(wc -l <"$tmp/$tag.jsonl")" -eq 3 ]
done

python3 - "$tmp/v1.0.0.jsonl" "$tmp/v1.1.0.jsonl" <<'PY'
import json, sys

def load(p):
    out = {}
    for line in open(p):
        rec = json.loads(line)
        assert rec["schema_version"] == 1, rec["schema_version"]
        defs = {}
        def walk(ds):
            for d in ds:
                defs.setdefault(d["qualname"], d)
                walk(d.get("members", []))
        walk(rec["definitions"])
        out[rec["module"].split(".")[-1]] = (rec, defs)
    return out

a, b = load(sys.argv[1]), load(sys.argv[2])
def d(tags, mod, q):
    return tags[mod][1][q]
def param(tags, mod, q, name):
    return next(p for p in d(tags, mod, q)["parameters"] if p["name"] == name)
def names(tags, mod, q):
    return [p["name"] for p in d(tags, mod, q)["parameters"]]
L, Q, M = "modeling_llama", "modeling_qwen3", "modeling_qwen3_moe"
checks = [
    (param(a, L, "LlamaRMSNorm.__init__", "eps")["default"], "1e-6"),
    (param(b, L, "LlamaRMSNorm.__init__", "eps")["default"], "1e-5"),
    ("act_fn" in d(a, L, "LlamaMLP")["init_attributes"], True),
    ("activation_fn" in d(b, L, "LlamaMLP")["init_attributes"], True),
    ("act_fn" in d(b, L, "LlamaMLP")["init_attributes"], False),
    (d(a, L, "LlamaMLP.forward")["fingerprint"] != d(b, L, "LlamaMLP.forward")["fingerprint"], True),
    (d(a, L, "LlamaRMSNorm.extra_repr")["fingerprint"] == d(b, L, "LlamaRMSNorm.extra_repr")["fingerprint"], True),
    ("past_key_value" in names(a, L, "LlamaAttention.forward"), True),
    ("past_key_values" in names(b, L, "LlamaAttention.forward"), True),
    (any(x.startswith("deprecate_kwarg(") for x in d(b, L, "LlamaAttention.forward")["decorators"]), True),
    (any(x.startswith("deprecate_kwarg(") for x in d(a, L, "LlamaAttention.forward")["decorators"]), False),
    ("logits_to_keep" in d(b, L, "LlamaForCausalLM.forward")["doc_args"], True),
    ("position_ids" in names(a, L, "apply_rotary_pos_emb"), True),
    ("position_ids" in names(b, L, "apply_rotary_pos_emb"), False),
    ("can_return_tuple" in d(b, L, "LlamaForSequenceClassification.forward")["decorators"], True),
    (param(a, Q, "repeat_kv", "n_rep")["kind"], "positional_only"),
    (param(b, Q, "repeat_kv", "n_rep")["kind"], "positional_or_keyword"),
    ("Qwen3MLP" in b[Q][1], False),
    (d(a, Q, "Qwen3MLP")["fingerprint"], d(b, Q, "Qwen3FeedForward")["fingerprint"]),
    ("Qwen3Model.set_input_embeddings" in b[Q][1], False),
    (any(i["name"] == "Optional" and i["module"] == "typing" for i in a[Q][0]["imports"]), True),
    (any(i["name"] == "Optional" and i["module"] == "typing" for i in b[Q][0]["imports"]), False),
    (any(i["module"] == "warnings" and i["name"] is None for i in b[Q][0]["imports"]), True),
    (param(a, M, "load_balancing_loss_func", "top_k")["default"], "2"),
    (param(b, M, "load_balancing_loss_func", "top_k")["default"], "1"),
    (names(a, M, "Qwen3MoeExperts.forward")[2:4], ["routing_weights", "selected_experts"]),
    (names(b, M, "Qwen3MoeExperts.forward")[2:4], ["selected_experts", "routing_weights"]),
    (d(a, M, "Qwen3MoeRouter.forward")["returns"], None),
    (d(b, M, "Qwen3MoeRouter.forward")["returns"], "tuple[Tensor, Tensor, Tensor]"),
    ("router" in d(b, M, "Qwen3MoeSparseMoeBlock")["init_attributes"], True),
]
bad = [(i, got, want) for i, (got, want) in enumerate(checks) if got != want]
for i, got, want in bad:
    print(f"drift check {i}: got {got!r}, want {want!r}")
sys.exit(1 if bad else 0)
PY

# Without --module: the workspace's configs name the modules, its [tool.pgci]
# upstream the source and its pin the tag (as pgci fetch).
"$PGCI" index -C fixtures/workspace >"$tmp/ws"
expect_grep '^total: 3 files, [0-9]+ bytes, 0 errors, ' "$tmp/ws"
expect_grep '^transformers/models/qwen3_moe/modeling_qwen3_moe.py@v1.0.0: ' "$tmp/ws"
"$PGCI" index -C fixtures/workspace --tag v1.1.0 --json >"$tmp/ws.jsonl"
[ "$(wc -l <"$tmp/ws.jsonl")" -eq 3 ]
grep -q '"path":"transformers/models/llama/modeling_llama.py@v1.1.0"' "$tmp/ws.jsonl"

# The outline for one module names what a reader looks for.
"$PGCI" index --tag v1.1.0 --source "$src" --module transformers.models.llama.modeling_llama \
    >"$tmp/outline"
expect_grep '^transformers.models.llama.modeling_llama .*: [0-9]+ imports, [0-9]+ classes' "$tmp/outline"
expect_grep '^ *@deprecate_kwarg\(' "$tmp/outline"
expect_grep 'def forward\(self, .*past_key_values' "$tmp/outline"
expect_grep 'from \.\.\.utils import auto_docstring' "$tmp/outline"

# Several files: one line each and a total.
"$PGCI" index --file fixtures/upstream/v1.0.0/transformers/models/llama/modeling_llama.py \
    --file fixtures/upstream/v1.1.0/transformers/models/llama/modeling_llama.py >"$tmp/two"
[ "$(wc -l <"$tmp/two")" -eq 3 ]
expect_grep '^total: 2 files, [0-9]+ bytes, 0 errors, ' "$tmp/two"

# Bad input: one line, exit 2, nothing on stdout.
printf 'def f(:\n    pass\n' >"$tmp/bad.py"
printf '<!DOCTYPE html>\n<html><body>404</body></html>\n' >"$tmp/page.py"
expect_fail 2 "bad.py:1:.*syntax error" "$PGCI" index --file "$tmp/bad.py"
expect_fail 2 "page.py:1:.*syntax error" "$PGCI" index --file "$tmp/page.py"
expect_fail 2 "$tmp/missing.py" "$PGCI" index --file "$tmp/missing.py"
expect_fail 2 "no --tag given" "$PGCI" index --module transformers.models.llama.modeling_llama
expect_fail 2 "no --module given and no workspace" "$PGCI" index --tag v1.0.0 -C "$tmp"
expect_fail 2 "do not mix" "$PGCI" index --tag v1.0.0 --module a.b --file "$tmp/bad.py"
expect_fail 2 "modeling_nope" "$PGCI" index --tag v1.0.0 --source "$src" \
    --module transformers.models.llama.modeling_nope
expect_fail 2 "tag" "$PGCI" index --tag ../v1.0.0 --source "$src" --module a.b
expect_fail 2 "unexpected argument" "$PGCI" index stray
[ -z "$("$PGCI" index --file "$tmp/bad.py" 2>/dev/null)" ]

# --keep-going indexes the rest, counts the error and still exits 2.
rc=0
"$PGCI" index --keep-going --file "$tmp/bad.py" \
    --file fixtures/upstream/v1.0.0/transformers/models/qwen3/modeling_qwen3.py \
    >"$tmp/kg" 2>"$tmp/kg.err" || rc=$?
[ "$rc" -eq 2 ]
expect_grep '^total: 2 files, [0-9]+ bytes, 1 errors, ' "$tmp/kg"
expect_grep 'modeling_qwen3.py: [0-9]+ imports' "$tmp/kg"
[ "$(wc -l <"$tmp/kg.err")" -eq 1 ]

"$PGCI" index --help >"$tmp/help"
expect_grep 'files-from LIST' "$tmp/help"
echo "index e2e: ok"
