#!/usr/bin/env bash
# The gate's drift verdict against the real patchgen's (veomni 0.1.11's
# check_patchgen.check_config, as in tests/oracle/patchgen.sh): the demo workspace
# regenerated at its pin, then one edit of the llama config's checked-in files at a
# time. patchgen reads the .py with read_text (a CRLF checkout is the same text)
# and compares the .diff after stripping each line's trailing whitespace; `pgci
# check` and the drop-in `pgci patchgen --check` must call drift exactly where it
# does, no more (an error nobody can act on) and no less.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
[ -x "$RUFF" ] || { echo "no ruff at $RUFF (run make build)"; exit 1; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
corpus_patchgen "$tmp/pg" || exit 1
mkdir -p "$tmp/bin"
ln -s "$RUFF" "$tmp/bin/ruff"

up="$repo/fixtures/upstream/v1.0.0"
# the workspace names its upstream as dir:../upstream/{tag}
ln -s "$repo/fixtures/upstream" "$tmp/upstream"
cp -r fixtures/workspace "$tmp/base"
"$PGCI" regen -C "$tmp/base" --ruff "$RUFF" --write --diff -q
CFG=demo.models.llama.llama_gpu_patch_gen_config
PY=demo/models/llama/generated/patched_modeling_llama_gpu.py
DF=demo/models/llama/generated/patched_modeling_llama_gpu.diff

# name, then a command run in the workspace copy
cases=(
    "unchanged|true"
    "py-crlf|sed -i 's/\$/\r/' $PY"
    "py-cr-only|python3 -c 'import sys; p=sys.argv[1]; b=open(p,\"rb\").read(); open(p,\"wb\").write(b.replace(b\"\\n\", b\"\\r\"))' $PY"
    "py-trailing-space|sed -i '3s/\$/ /' $PY"
    "py-no-final-newline|truncate -s -1 $PY"
    "py-edit|sed -i 's/return/return  /' $PY"
    "py-bom|sed -i '1s/^/\xef\xbb\xbf/' $PY"
    "diff-crlf|sed -i 's/\$/\r/' $DF"
    "diff-trailing-space|sed -i 's/^\(-.*\)\$/\1   /' $DF"
    "diff-no-final-newline|truncate -s -1 $DF"
    "diff-extra-blank-line|echo >> $DF"
    "diff-edit|sed -i '5s/^/x/' $DF"
    "diff-missing|rm $DF"
)
n=0
bad=0
for c in "${cases[@]}"; do
    name=${c%%|*}
    cmd=${c#*|}
    rm -rf "$tmp/ws"
    cp -r "$tmp/base" "$tmp/ws"
    (cd "$tmp/ws" && eval "$cmd")
    want=$(PATH="$tmp/bin:$PATH" python3 tests/oracle/patchgen_check_driver.py "$tmp/pg" "$tmp/ws" "$up" "$CFG")
    # the gate's verdict on these files: its drift and diff-consistency findings
    # (its other checks, the import smoke among them, are not patchgen's)
    rc=0
    "$PGCI" check -C "$tmp/ws" --ruff "$RUFF" -q --no-cache --format json \
        "demo/models/llama/llama_gpu_patch_gen_config.py" >"$tmp/out" 2>"$tmp/err" || rc=$?
    got=$(python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1])) if x["check"] in ("drift", "diff-consistency")]
print("drift" if f else "ok")' "$tmp/out") || { cat "$tmp/out"; exit 1; }
    # the drop-in prints patchgen's own OK/DRIFT lines
    rc2=0
    (cd "$tmp/ws" && "$PGCI" patchgen --check --ruff "$RUFF" >"$tmp/out2" 2>&1) || rc2=$?
    got2=ok
    [ $rc2 = 0 ] || got2=drift
    n=$((n + 1))
    if [ "$got" = "$want" ] && [ "$got2" = "$want" ]; then
        echo "ok    $name: patchgen says $want, so do pgci check and pgci patchgen --check"
    else
        echo "FAIL  $name: patchgen says $want; pgci check $got, pgci patchgen --check $got2 (exit $rc2)"
        tail -n 5 "$tmp/out" "$tmp/out2"
        bad=$((bad + 1))
    fi
done
echo "$((n - bad))/$n edits judged as patchgen judges them"
[ "$bad" -eq 0 ]
