#!/usr/bin/env bash
# Issue 7, the oracle for the reference forward pass: HuggingFace transformers,
# from the registry, builds every fixture toy from the same config.json, loads the
# weights `pgci logits --export-weights` wrote, runs the input ids `pgci logits
# --dump` wrote, and its logits, per-layer hidden states and loss must match pgci's
# reference (tests/gpu/hf_parity.py, pgci's tolerances), at fp32 and bf16, with
# transformers 5.x and 4.x (the 4.x model keeps one Linear per expert: the fused
# expert tensors are split for it). On the CPU: torch is the registry's wheel, run
# without a GPU. Negative controls: another seed's weights, and a config whose
# rope_theta differs from the one the reference ran, must both fail.
# torch and transformers go into a venv in the corpus cache (~3 GB on first use).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PGCI=${PGCI:-$repo/bin/pgci}
TORCH=$PGCI_HF_TORCH
TF5=$PGCI_HF_TRANSFORMERS
TF4=4.57.1
PY=$(corpus_hf_venv) || exit 1
# transformers 4.x over the same torch: its own directory first on PYTHONPATH
# (with the huggingface_hub and requests it imports; 5.x needs neither).
tf4=$PGCI_CORPUS_CACHE/hf-tf$TF4
if [ ! -f "$tf4/.done" ]; then
    rm -rf "$tf4"
    "$PY" -m pip install --quiet --no-deps --target "$tf4" "transformers==$TF4" \
        huggingface_hub==0.36.0 tokenizers==0.22.1 requests==2.32.3 urllib3==2.2.3 \
        charset-normalizer==3.4.0 certifi==2024.8.30 idna==3.10 \
        > "$PGCI_CORPUS_CACHE/hf-pip4.log" 2>&1 ||
        { echo "cannot install transformers==$TF4: $(tail -n 1 "$PGCI_CORPUS_CACHE/hf-pip4.log")"; exit 1; }
    touch "$tf4/.done"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cases=()
n_toys=0
for dir in fixtures/toy_config/*/; do
    [ -f "$dir/config.json" ] || continue
    toy=$(basename "$dir")
    "$PGCI" logits --toy "$dir" --device cpu --seq 12 --batch 2 \
        --export-weights "$tmp/$toy.w.safetensors" --dump "$tmp/$toy.ref.safetensors" \
        > /dev/null 2> "$tmp/$toy.err" || { fail "pgci logits --export-weights on $toy: $(cat "$tmp/$toy.err")"; continue; }
    cases+=(--case "$dir" "$tmp/$toy.w.safetensors" "$tmp/$toy.ref.safetensors")
    n_toys=$((n_toys + 1))
done
[ $n_toys -ge 5 ] || fail "expected the 5 fixture toys, found $n_toys"

for tf in "$TF5" "$TF4"; do
    pp=
    [ "$tf" = "$TF4" ] && pp=$tf4
    PYTHONPATH=$pp "$PY" tests/gpu/hf_parity.py "${cases[@]}" --json "$tmp/parity-$tf.json" \
        > "$tmp/parity-$tf.txt" 2>&1
    rc=$?
    cat "$tmp/parity-$tf.txt"
    "$PY" - "$tmp/parity-$tf.json" "$tf" $((n_toys * 2)) <<'PY' || fail "transformers $tf: parity (exit $rc)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["transformers"] == sys.argv[2], r["transformers"]
rows = r["rows"]
assert not r["errors"], r["errors"]
assert len(rows) == int(sys.argv[3]), len(rows)
bad = [(x["toy"], x["dtype"]) for x in rows if x["status"] != "pass"]
assert not bad, bad
# every layer but the last (returned after the final norm) was compared
assert all(x["layers_compared"] >= 1 for x in rows), rows
PY
    [ $rc -eq 0 ] || fail "transformers $tf: hf_parity exited $rc"
done

# Negative control 1: seed 1's weights against seed 0's reference.
t=qwen3_tiny
"$PGCI" logits --toy "fixtures/toy_config/$t" --device cpu --seq 12 --batch 2 --seed 1 \
    --export-weights "$tmp/seed1.safetensors" > /dev/null 2>&1 || fail "export seed 1"
"$PY" tests/gpu/hf_parity.py --case "fixtures/toy_config/$t" "$tmp/seed1.safetensors" \
    "$tmp/$t.ref.safetensors" > "$tmp/neg1.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c " FAIL " "$tmp/neg1.txt")" -eq 2 ] ||
    fail "other weights were not caught (exit $rc): $(cat "$tmp/neg1.txt")"

# Negative control 2: the same weights and ids, a config with another rope_theta.
mkdir -p "$tmp/$t"
sed 's/"rope_theta": 1000000.0/"rope_theta": 10000.0/' "fixtures/toy_config/$t/config.json" \
    > "$tmp/$t/config.json"
cmp -s "$tmp/$t/config.json" "fixtures/toy_config/$t/config.json" && fail "the rope_theta edit did nothing"
"$PY" tests/gpu/hf_parity.py --case "$tmp/$t" "$tmp/$t.w.safetensors" "$tmp/$t.ref.safetensors" \
    > "$tmp/neg2.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c " FAIL " "$tmp/neg2.txt")" -eq 2 ] ||
    fail "another rope_theta was not caught (exit $rc): $(cat "$tmp/neg2.txt")"

[ $fails -eq 0 ] && echo "hf parity: $n_toys toys x fp32/bf16 match transformers $TF5 and $TF4 (torch $TORCH, CPU); both negative controls caught"
exit $((fails > 0))
