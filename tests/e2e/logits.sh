#!/usr/bin/env bash
# End-to-end: `pgci logits` on the fixture toys. The CPU comparison passes for
# every family and dtype; the GPU comparison is "skipped" (never "pass") without a
# GPU; a deliberately broken kernel makes it fail with exit 1; weights survive an
# export/import round trip; bad input gets one clear line, exit 2 and no file.
set -u
PGCI=${PGCI:?PGCI must point at the built binary}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. every fixture, both dtypes: exit 0, CPU rows pass, no FAIL
"$PGCI" logits >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "clean run exited $rc: $(cat "$tmp/err")"
for toy in llama_tiny llama_tied_bias qwen2_tiny qwen3_tiny qwen3_moe_tiny; do
    for dt in fp32 bf16; do
        grep -Eq "^$toy +[a-z0-9_]+ +$dt +cpu +pass " "$tmp/out" || fail "$toy $dt cpu did not pass"
    done
done
grep -q FAIL "$tmp/out" && fail "a clean run printed FAIL"
gpu=0
grep -Eq " cuda +pass " "$tmp/out" && gpu=1
if [ $gpu -eq 0 ]; then
    n=$(grep -Ec " cuda +skipped +\(" "$tmp/out")
    [ "$n" -eq 10 ] || fail "expected 10 skipped GPU rows, got $n"
    grep -q "10 passed, 0 failed, 10 skipped" "$tmp/out" || fail "summary line: $(tail -2 "$tmp/out")"
fi

# 2. JSON: rows and findings; skipped rows are warnings, never pass
"$PGCI" logits --toy fixtures/toy_config/qwen3_moe_tiny --format json >"$tmp/j" || fail "json run"
python3 - "$tmp/j" "$gpu" <<'PY' || fail "json content"
import json, sys
d = json.load(open(sys.argv[1])); gpu = sys.argv[2] == "1"
assert d["check"] == "logits", d
rows = d["rows"]
assert len(rows) == 4, rows
for r in rows:
    if r["device"] == "cpu":
        assert r["status"] == "pass" and r["max_rel"] < r["tolerance"]["max_rel"], r
        assert r["family"] == "qwen3_moe" and r["first_diverging_layer"] is None, r
    elif not gpu:
        assert r["status"] == "skipped" and r["reason"], r
sev = sorted(f["severity"] for f in d["findings"])
assert all(f["check"] == "logits" for f in d["findings"])
assert sev == (["info"] * 4 if gpu else ["info", "info", "warning", "warning"]), sev
PY

# run.json for `pgci report`: a skipped GPU comparison is not a passed case
"$PGCI" logits --toy fixtures/toy_config/qwen2_tiny --run-json "$tmp/run.json" >/dev/null ||
    fail "run-json run"
"$PGCI" report --in "$tmp/run.json" --format md >"$tmp/report.md" 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
if [ $gpu -eq 0 ]; then
    grep -q "2 of 4 logits cases passed" "$tmp/report.md" || fail "report summary: $(head -5 "$tmp/report.md")"
else
    grep -q "4 of 4 logits cases passed" "$tmp/report.md" || fail "report summary: $(head -5 "$tmp/report.md")"
fi

# 3. a broken kernel is caught: exit 1, FAIL rows, the diverging layer named
PGCI_TEST_BREAK_KERNEL=rotary "$PGCI" logits --toy fixtures/toy_config/qwen3_tiny --dtype fp32 \
    --device cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "broken rotary exited $rc"
grep -Eq "^qwen3_tiny +qwen3 +fp32 +cpu +FAIL .* 0 " "$tmp/out" || fail "broken rotary row: $(cat "$tmp/out")"
grep -q "hidden state diverges at layer 0" "$tmp/out" || fail "no diverging layer in $(cat "$tmp/out")"
grep -q "deliberately wrong kernels" "$tmp/err" || fail "no warning about the test flag"
PGCI_TEST_BREAK_KERNEL=nosuch "$PGCI" logits --device cpu >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown kernel 'nosuch'" "$tmp/err" || fail "unknown break name"

# 4. weights: export, reload, identical numbers; the file is a valid safetensors
"$PGCI" logits --toy fixtures/toy_config/llama_tied_bias --device cpu --format json \
    --export-weights "$tmp/w.safetensors" --seed 5 >"$tmp/a.json" || fail "export run"
[ -s "$tmp/w.safetensors" ] || fail "no exported file"
"$PGCI" logits --toy fixtures/toy_config/llama_tied_bias --device cpu --format json \
    --weights "$tmp/w.safetensors" --seed 5 >"$tmp/b.json" || fail "import run"
python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/w.safetensors" <<'PY' || fail "round trip"
import json, struct, sys
a, b = (json.load(open(p))["rows"] for p in sys.argv[1:3])
for x, y in zip(a, b):
    for k in ("max_abs", "max_rel", "cosine", "loss_ref", "loss"):
        assert x[k] == y[k], (k, x[k], y[k])
raw = open(sys.argv[3], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
hdr = json.loads(raw[8:8 + n])
assert "lm_head.weight" not in hdr                      # tied
assert hdr["model.layers.1.self_attn.o_proj.bias"]["shape"] == [48]
assert hdr["model.embed_tokens.weight"] == {"dtype": "F32", "shape": [320, 48],
    "data_offsets": hdr["model.embed_tokens.weight"]["data_offsets"]}
end = max(v["data_offsets"][1] for k, v in hdr.items() if k != "__metadata__")
assert 8 + n + end == len(raw)
PY
# --dump: the input ids and the reference outputs, for tests/gpu/hf_parity.py
"$PGCI" logits --toy fixtures/toy_config/qwen3_moe_tiny --device cpu --seq 5 --batch 3 \
    --dump "$tmp/d.safetensors" >/dev/null || fail "dump run"
python3 - "$tmp/d.safetensors" <<'PY' || fail "dump content"
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
assert h["input_ids"]["dtype"] == "I64" and h["input_ids"]["shape"] == [3, 5], h["input_ids"]
for dt in ("fp32", "bf16"):
    assert h[f"logits.{dt}"]["shape"] == [3, 5, 256]
    assert h[f"hidden.{dt}"]["shape"] == [3, 3, 5, 64]      # layers, batch, seq, hidden
    b, e = h[f"loss.{dt}"]["data_offsets"]
    loss = struct.unpack("<d", raw[8 + n + b:8 + n + e])[0]
    assert 4.5 < loss < 6.5, loss                          # about ln(256) = 5.55
b, e = h["input_ids"]["data_offsets"]
ids = struct.unpack("<15q", raw[8 + n + b:8 + n + e])
assert all(0 <= i < 256 for i in ids) and len(set(ids)) > 5, ids
PY
# another seed gives other weights
"$PGCI" logits --toy fixtures/toy_config/llama_tied_bias --device cpu --format json \
    --export-weights "$tmp/w2.safetensors" --seed 6 >/dev/null || fail "seed 6"
cmp -s "$tmp/w.safetensors" "$tmp/w2.safetensors" && fail "seeds 5 and 6 gave the same weights"

# 5. bad input: one clear line, exit 2, no partial file
mkdir -p "$tmp/partial"
cat >"$tmp/partial/config.json" <<'JSON'
{"model_type": "llama", "vocab_size": 64, "hidden_size": 16, "intermediate_size": 32,
 "num_hidden_layers": 1, "num_attention_heads": 2, "partial_rotary_factor": 0.5}
JSON
"$PGCI" logits --toy "$tmp/partial" --export-weights "$tmp/partial/w.safetensors" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "partial rotary exited $rc"
grep -q "partial rotary is not supported" "$tmp/err" || fail "partial rotary message: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one error line"
[ -e "$tmp/partial/w.safetensors" ] && fail "a file was written for a refused config"
"$PGCI" logits --toy fixtures/toy_config/llama_tiny --export-weights "$tmp/nodir/w.safetensors" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "export into a missing directory"
ls "$tmp" | grep -q nodir && fail "export created a directory"
printf 'not a safetensors file' >"$tmp/bad.safetensors"
"$PGCI" logits --toy fixtures/toy_config/llama_tiny --weights "$tmp/bad.safetensors" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad.safetensors" "$tmp/err" || fail "bad weights: $(cat "$tmp/err")"
"$PGCI" logits --dtype fp16 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown --dtype 'fp16'" "$tmp/err" || fail "bad dtype"
"$PGCI" logits --family mistral >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "bad family"
"$PGCI" logits --family qwen2 --device cpu >"$tmp/out" || fail "family filter"
[ "$(grep -c ' cpu ' "$tmp/out")" -eq 2 ] || fail "family filter rows: $(cat "$tmp/out")"
if [ $gpu -eq 0 ]; then
    "$PGCI" logits --device cuda >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && grep -q "no usable CUDA device" "$tmp/err" || fail "--device cuda without GPU"
    "$PGCI" logits --bench >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] || fail "--bench without GPU"
fi
"$PGCI" logits --help | grep -q -- "--export-weights" || fail "help"

[ $fails -eq 0 ] && echo "logits e2e: ok"
exit $((fails > 0))
