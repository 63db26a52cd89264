#!/usr/bin/env bash
# Issue 15: the PR gate dropped into the real VeOmni tree (the veomni 0.1.12
# source distribution from the Python package registry, pinned to transformers
# 5.9.0, read from the registry's wheel), as a new user would run it:
#   1. the clean tree passes with default flags (byte mode, ruff given): with
#      --no-diff as the distribution ships no .diff, and with the .diff files
#      written next to the .py (then nothing is left out);
#   2. --no-ruff (structural mode) passes: exactly what ruff's fixes remove is
#      accepted on all 29 configs;
#   3. every --shard K/3 and a single config pass; report --merge of the shards
#      equals the unsharded findings, and refuses a missing or duplicated shard;
#   4. a misspelled method (Qwen3MLP.fowrard) is a warning with "did you mean";
#   5. a generated/ symlinked out of the tree is refused, nothing written outside;
#   6. an empty upstream module with --fix changes nothing and exits 2;
#   7. an unknown tag exits 2 with one line and still writes run.json;
#   8. --fix keeps the mode (0664) of the file it rewrites, and exits 0.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
tf=$(corpus_wheel transformers 5.9.0) || exit 1
src=$(veomni_sdist 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
sec=0
fail() { echo "FAIL: $*"; status=1; sec=1; }
ok() { [ "$sec" = 0 ] && echo "ok   $*" || echo "not ok: $*"; sec=0; }
fresh() { rm -rf "$tmp/ws"; cp -r "$src" "$tmp/ws"; ws=$tmp/ws; }
Q=veomni/models/transformers/qwen3
QCFG=veomni.models.transformers.qwen3.qwen3_gpu_patch_gen_config
QPY=$Q/generated/patched_modeling_qwen3_gpu.py
base=(--tag v5.9.0 --source "dir:$tf" --ruff "$RUFF")

# gate ARGS...: pgci check on $ws; sets rc, output in $tmp/out, $tmp/err
gate() { rc=0; "$PGCI" check -C "$ws" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?; }

fresh
# 1. clean tree, default flags
gate "${base[@]}" --no-diff --run-json "$tmp/full.json"
[ "$rc" = 0 ] || fail "clean tree (--no-diff): exit $rc: $(tail -n 3 "$tmp/out") $(cat "$tmp/err")"
grep -q "^not configured: .*protocol-import" "$tmp/out" || fail "protocol-import not listed as not configured"
[ "$(grep -c '^  info' "$tmp/out")" = 0 ] || fail "notes printed without -v"
[ "$(wc -l < "$tmp/out")" -lt 80 ] || fail "a clean run prints $(wc -l < "$tmp/out") lines"
ok "clean tree: exit 0, $(grep -o '[0-9]* notes' "$tmp/out") counted, $(wc -l < "$tmp/out") lines"
"$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --write --diff -q || fail "regen --write --diff"
gate "${base[@]}"
[ "$rc" = 0 ] || fail "clean tree with .diff files, default flags: exit $rc: $(tail -n 3 "$tmp/out") $(cat "$tmp/err")"
ok "clean tree with its .diff files, default flags: exit 0"

# 2. structural mode (each regenerated file's tree derived from its checked-in
# file's by an incremental parse, checked against a fresh parse: src/py/reparse.c)
export PGCI_VERIFY_REPARSE=1
gate --tag v5.9.0 --source "dir:$tf" --no-ruff --no-diff --format json
unset PGCI_VERIFY_REPARSE
[ "$rc" = 0 ] || fail "--no-ruff: exit $rc: $(python3 -c 'import json,sys; [print(f["path"], f["title"]) for f in json.load(open(sys.argv[1])) if f["severity"]=="error"]' "$tmp/out")"
ok "--no-ruff: exit 0 on 29 configs"

# 3. shards and a single config
for k in 1 2 3; do
    gate "${base[@]}" --no-diff --shard "$k/3" --run-json "$tmp/shard$k.json"
    [ "$rc" = 0 ] || fail "--shard $k/3: exit $rc: $(grep -m3 'error ' "$tmp/out")"
done
gate "${base[@]}" --no-diff "$QCFG"
[ "$rc" = 0 ] || fail "check $QCFG: exit $rc: $(grep -m3 'error ' "$tmp/out")"
"$PGCI" report --merge "$tmp/shard1.json" "$tmp/shard2.json" "$tmp/shard3.json" --format json -o "$tmp/merged" ||
    fail "report --merge of the three shards"
python3 - "$tmp/full.json" "$tmp/merged/run.json" <<'PY' || fail "merged shards differ from the whole run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda f: (f["config"], f["path"], f["line"], f["check"], f["title"])
fa, fb = sorted(map(key, a["findings"])), sorted(map(key, b["findings"]))
assert fa == fb, (len(fa), len(fb), set(fa) ^ set(fb))
assert sorted(c["module"] for c in a["configs"]) == sorted(c["module"] for c in b["configs"])
PY
rc=0; "$PGCI" report --merge "$tmp/shard1.json" "$tmp/shard3.json" --format md -o "$tmp/m2" 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "shard 2/3 is missing" "$tmp/err" || fail "a missing shard: exit $rc $(cat "$tmp/err")"
rc=0; "$PGCI" report --merge "$tmp/shard1.json" "$tmp/shard1.json" "$tmp/shard3.json" --format md -o "$tmp/m3" 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "shard 1/3 is given twice" "$tmp/err" || fail "a duplicated shard: exit $rc $(cat "$tmp/err")"
ok "every shard and a single config: exit 0; merge = the whole run; a missing or duplicated shard refused"

# 4. a misspelled method
sed -i '0,/"Qwen3MLP.forward"/s//"Qwen3MLP.fowrard"/' "$ws/$Q/qwen3_gpu_patch_gen_config.py"
gate "${base[@]}" --no-diff "$QCFG"
grep -q "warning $Q/qwen3_gpu_patch_gen_config.py:[0-9]*:[0-9]*: \`Qwen3MLP.fowrard\` is not defined upstream: did you mean \`forward\`?" "$tmp/out" ||
    fail "no near-miss warning: $(cat "$tmp/out")"
ok "Qwen3MLP.fowrard: a warning with did you mean \`forward\`?"

# 5. a generated/ symlinked out of the tree
fresh
mv "$ws/$Q/generated" "$tmp/outside"
ln -s "$tmp/outside" "$ws/$Q/generated"
echo "# drift" >> "$tmp/outside/patched_modeling_qwen3_gpu.py"
before=$(cd "$tmp/outside" && ls -la --time-style=+%s.%N && sha256sum *)
gate "${base[@]}" --no-diff --fix "$QCFG"
after=$(cd "$tmp/outside" && ls -la --time-style=+%s.%N && sha256sum *)
[ "$rc" = 2 ] && [ "$before" = "$after" ] && [ "$(grep -c . "$tmp/err")" = 1 ] && grep -q "refusing to write" "$tmp/err" ||
    fail "symlinked generated/: exit $rc, $(cat "$tmp/err")"
ok "symlinked generated/: refused in one line, nothing written outside"

# 6. an empty upstream module with --fix
fresh
mkdir -p "$tmp/tf-empty/transformers/models/qwen3"
: > "$tmp/tf-empty/transformers/models/qwen3/modeling_qwen3.py"
echo "# drift" >> "$ws/$QPY"
before=$(sha256sum "$ws/$QPY"; ls -l "$ws/$Q/generated")
gate --tag v5.9.0 --source "dir:$tmp/tf-empty" --ruff "$RUFF" --no-diff --fix --run-json "$tmp/empty.json" "$QCFG"
[ "$rc" = 2 ] && [ "$before" = "$(sha256sum "$ws/$QPY"; ls -l "$ws/$Q/generated")" ] && grep -q "is empty" "$tmp/err" ||
    fail "empty upstream with --fix: exit $rc, $(cat "$tmp/err")"
python3 -c 'import json,sys; assert "is empty" in json.load(open(sys.argv[1]))["error"]' "$tmp/empty.json" ||
    fail "empty upstream: run.json without the error"
ok "an empty upstream module: --fix changes nothing, exit 2, run.json holds the error"

# 7. an unknown tag
fresh
gate --tag v5.99.0 --source "dir:$(dirname "$tf")/transformers-{tag}" --ruff "$RUFF" --no-diff --run-json "$tmp/tag.json"
[ "$rc" = 2 ] && [ "$(grep -c . "$tmp/err")" = 1 ] || fail "unknown tag: exit $rc, $(cat "$tmp/err")"
python3 - "$tmp/tag.json" <<'PY' || fail "unknown tag: run.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] and "v5.99.0" in d["error"] or "5.99.0" in d["error"], d.get("error")
assert len(d["configs"]) == 29, len(d["configs"])
PY
ok "an unknown tag: exit 2 in one line; run.json with the error and the 29 configs"

# 8. --fix keeps the mode, exits 0 and says what it wrote
fresh
echo "# drift" >> "$ws/$QPY"
chmod 664 "$ws/$QPY"
gate "${base[@]}" --no-diff --fix
[ "$rc" = 0 ] && grep -q "^  wrote $QPY$" "$tmp/out" || fail "--fix: exit $rc, $(tail -n 5 "$tmp/out")"
[ "$(stat -c %a "$ws/$QPY")" = 664 ] || fail "--fix: mode $(stat -c %a "$ws/$QPY")"
cmp -s "$ws/$QPY" "$src/$QPY" || fail "--fix did not restore $QPY"
ok "--fix: exit 0, wrote $QPY, mode 664 kept"
exit $status
