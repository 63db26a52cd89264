#!/usr/bin/env bash
# The regenerated file read as a forest on real inputs. `pgci check` reads each
# config's raw regeneration as the upstream module's statement nodes plus a
# parse of the rest (src/py/forest.c) for the names check and the structural
# comparison. Proofs:
#
#   - the names check's diagnostics are those of the whole tree
#     (tests/tools/forest_cmp) for the 29 real regenerations against their
#     upstream modules at the pin and, so that more of them is parsed, at two
#     later releases; and for every module of the transformers 5.16.1 wheel
#     against the same module of 5.9.0;
#   - `pgci check` in both modes on the real tree with PGCI_VERIFY_FOREST and
#     PGCI_VERIFY_STRUCTURAL set (tests/corpus/58-pieces.sh also sets both):
#     every names finding and structural verdict is also made from the whole
#     tree, and any difference aborts pgci.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
CMP=$repo/${PGCI_BUILD:-build}/tests/tools/forest_cmp
[ -x "$CMP" ] || { echo "59-forest: $CMP not built (make corpus-test builds it)" >&2; exit 1; }
tf=$(corpus_wheel transformers 5.9.0) || exit 1
tf16=$(corpus_wheel transformers 5.16.1) || exit 1
tf24=$(corpus_wheel transformers 5.24.0) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --no-ruff --no-cache -q -o "$tmp/out" \
    --format json >"$tmp/regen.json" 2>"$tmp/err" || { echo "FAIL: regen"; head -5 "$tmp/err"; exit 1; }
for up in "$tf" "$tf16" "$tf24"; do
    python3 - "$tmp/regen.json" "$tmp/out" "$up" >"$tmp/pairs" <<'PY'
import json, os, sys
for c in json.load(open(sys.argv[1]))["configs"]:
    u = os.path.join(sys.argv[3], *c["source_module"].split(".")) + ".py"
    if os.path.exists(u):
        print(os.path.join(sys.argv[2], c["target_file"]), u)
PY
    # shellcheck disable=SC2046
    "$CMP" $(cat "$tmp/pairs") >"$tmp/cmp" || rc=1
    tail -20 "$tmp/cmp"
done
(cd "$tf16" && find transformers -name '*.py') | sort | while read -r f; do
    [ -f "$tf/$f" ] && printf '%s\n%s\n' "$tf16/$f" "$tf/$f"
done | tr '\n' '\0' | xargs -0 -n 400 "$CMP" >"$tmp/cmp" || rc=1
grep -v "^forest_cmp: " "$tmp/cmp" | head -20
awk '/^forest_cmp: / {f += $2; r += $4; x += $(NF-1)} END {printf "transformers 5.16.1 against 5.9.0: %d modules, %d read as forests, %d different\n", f, r, x}' "$tmp/cmp"
# the gate in both modes: with ruff, the names check reads the normalised file as
# a forest, and the structural look at a drift the raw one
for mode in --no-ruff "--ruff $RUFF"; do
    st=0
    # shellcheck disable=SC2086
    PGCI_VERIFY_FOREST=1 PGCI_VERIFY_STRUCTURAL=1 "$PGCI" check -C "$ws" --tag v5.16.1 \
        --source "dir:$tf16" $mode --no-cache --no-diff --format json -q >"$tmp/f.json" \
        2>"$tmp/err" || st=$?
    if [ "$st" -gt 1 ]; then
        echo "FAIL: check ${mode%% *} at 5.16.1 exited $st"
        head -5 "$tmp/err"
        rc=1
    else
        echo "check ${mode%% *} at transformers 5.16.1: forest = whole for the names check and the structural comparison"
    fi
done
exit $rc
