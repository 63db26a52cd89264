#!/usr/bin/env bash
# Proof 2, the patchgen oracle: the real patchgen (veomni 0.1.11 from the Python
# package registry, cached outside the repository, loaded as a bare `veomni`
# package so nothing but patchgen is imported) and pgci regenerate the oracle
# workspace fixtures/patchgen/ (every feature of PATCHGEN_SPEC.md) and the demo
# workspace fixtures/workspace/ against the fixture upstream at v1.0.0 and v1.1.0.
# For every config, pgci's raw output, its normalised output (ruff 0.13.2) and its
# .diff must be byte-identical to patchgen's.
#
# One expected difference, asserted rather than hidden (see
# tests/oracle/patchgen.expected-differences): veomni 0.1.11's `run_codegen --diff`
# writes the raw output and a .diff whose lines keep trailing whitespace; the
# newer patchgen (patchgen-pkg, which the real VeOmni corpus was generated with)
# normalises both, as 0.1.11's own check_patchgen --fix already did. pgci follows
# patchgen-pkg; the test proves that 0.1.11's run_codegen output is exactly pgci's
# --no-ruff output with the .diff's trailing whitespace kept.
set -euo pipefail
export PGCI_VERIFY_REPARSE=1 # incremental re-parses checked against fresh ones (src/py/reparse.c)
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

fail=0
total=0
# The demo workspace only at its pin: at v1.1.0 its patches use names upstream
# dropped (the drift the checks exist for), so ruff rightly fails for both tools.
for run in fixtures/patchgen@v1.0.0 fixtures/patchgen@v1.1.0 fixtures/workspace@v1.0.0; do
    ws=${run%@*}
    tag=${run#*@}
    up="$repo/fixtures/upstream/$tag"
    rm -rf "$tmp/ws-py" "$tmp/ws-pgci" "$tmp/ws-raw" "$tmp/py-$tag"
    for side in py pgci raw; do
        cp -r "$ws" "$tmp/ws-$side"
        rm -rf "$tmp/ws-$side"/*/models/*/generated
    done
    (cd "$tmp/ws-py" && PATH="$tmp/bin:$PATH" python3 "$repo/tests/oracle/patchgen_driver.py" \
        "$tmp/pg" "$tmp/ws-py" "$up" "$tmp/py-$tag") >"$tmp/driver.log" 2>&1 ||
        { cat "$tmp/driver.log"; echo "FAIL: the real patchgen did not run on $ws at $tag"; exit 1; }
    common=(--tag "$tag" --upstream "dir:$repo/fixtures/upstream/{tag}" -q)
    "$PGCI" regen -C "$tmp/ws-pgci" "${common[@]}" --ruff "$RUFF" --write --diff
    "$PGCI" regen -C "$tmp/ws-raw" "${common[@]}" --no-ruff --write --diff
    for d in "$tmp/py-$tag"/*/; do
        stem=$(basename "$d")
        total=$((total + 1))
        { read -r pyrel; read -r diffrel; } <"$d/target"
        ok=1
        cmp -s "$d/raw.py" "$tmp/ws-raw/$pyrel" || { echo "DIFF raw   $tag $stem"; ok=0; }
        cmp -s "$d/py" "$tmp/ws-pgci/$pyrel" || { echo "DIFF py    $tag $stem"; ok=0; }
        cmp -s "$d/diff" "$tmp/ws-pgci/$diffrel" || { echo "DIFF .diff $tag $stem"; ok=0; }
        # the expected difference: 0.1.11 run_codegen --diff == pgci --no-ruff, unstripped
        cmp -s "$d/rc.py" "$tmp/ws-raw/$pyrel" || { echo "DIFF run_codegen.py $tag $stem"; ok=0; }
        awk '{ sub(/[ \t\r\f\v]+$/, ""); print }' "$d/rc.diff" >"$tmp/rc.stripped"
        cmp -s "$tmp/rc.stripped" "$tmp/ws-raw/$diffrel" ||
            { echo "DIFF run_codegen.diff (stripped) $tag $stem"; ok=0; }
        if cmp -s "$d/rc.diff" "$tmp/ws-pgci/$diffrel"; then
            echo "UNEXPECTED: 0.1.11 run_codegen .diff equals the normalised one for $tag $stem"
            ok=0
        fi
        if [ $ok = 1 ]; then
            echo "ok    $ws $tag $stem (raw, normalised .py, .diff byte-identical)"
        else
            fail=$((fail + 1))
            diff -u "$d/py" "$tmp/ws-pgci/$pyrel" | head -40 || true
        fi
    done
done
echo "$((total - fail))/$total configs byte-identical with patchgen (raw, normalised, .diff)"
[ "$fail" -eq 0 ]
