#!/usr/bin/env bash
# Issue 16, never silently different from patchgen: one case per construct where
# reading a config without Python could differ (tests/oracle/patchgen_fidelity.py).
# The real patchgen (veomni 0.1.11, as in tests/oracle/patchgen.sh) and
# `pgci regen --no-ruff --stdout` run on each config. A case expected `same` must
# give byte-identical raw output; any other case must be refused by pgci: exit 2,
# one line `PATH:LINE:COL: ...` holding the expected text, no generated file.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PGCI=${PGCI:-$repo/bin/pgci}
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
corpus_patchgen "$tmp/pg" || exit 1
python3 tests/oracle/patchgen_fidelity.py "$tmp/pg" "$tmp/ws"
n=0
bad=0
while IFS=$'\t' read -r name expect; do
    n=$((n + 1))
    cfg="fid/models/$name/${name}_patch_gen_config.py"
    rc=0
    "$PGCI" regen -C "$tmp/ws" --tag v9.9.9 --upstream "dir:$tmp/ws/upstream" --no-ruff --stdout \
        "$cfg" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$expect" = same ]; then
        if [ -f "$tmp/ws/expected/$name.py" ] && [ $rc = 0 ] && cmp -s "$tmp/ws/expected/$name.py" "$tmp/out"; then
            echo "ok    $name: byte-identical with patchgen"
            continue
        fi
        echo "FAIL  $name: expected the bytes patchgen writes (pgci exit $rc)"
        cat "$tmp/err"
        [ -f "$tmp/ws/expected/$name.err" ] && tail -n 3 "$tmp/ws/expected/$name.err"
        [ -f "$tmp/ws/expected/$name.py" ] && { diff "$tmp/ws/expected/$name.py" "$tmp/out" | head -20 || true; }
        bad=$((bad + 1))
        continue
    fi
    line=$(cat "$tmp/err")
    if [ $rc = 2 ] && ! grep -q "AUTO-GENERATED" "$tmp/out" && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
        [[ "$line" == "pgci: error: $cfg:"[0-9]*:[0-9]*": "*"$expect"* ]]; then
        pg="patchgen writes a file"
        [ -f "$tmp/ws/expected/$name.err" ] && pg="patchgen fails: $(tail -n 1 "$tmp/ws/expected/$name.err" | cut -c1-60)"
        echo "ok    $name: refused ($pg)"
        echo "      ${line#pgci: error: }"
    else
        echo "FAIL  $name: expected a one-line refusal holding '$expect' (exit $rc)"
        cat "$tmp/err"
        bad=$((bad + 1))
    fi
done <"$tmp/ws/cases.tsv"
echo "$((n - bad))/$n constructs byte-identical with patchgen or refused with file:line:col"
[ "$bad" -eq 0 ] && [ "$n" -gt 0 ]
