#!/usr/bin/env bash
# Differential testing against the real patchgen (issue 16: never silently
# different). tests/corpus/diffgen.py derives seeded cases from the real VeOmni
# configs (the registry's veomni 0.1.12) and the real transformers modules they
# patch - mutations of line breaks, coding lines, identifiers, patches of every
# kind on real targets, decorators, imports, exclusions, filters, sibling
# configs, strings, and of the upstream module's shape - at the pin (5.9.0) and the
# newest release (5.24.0). The real patchgen (veomni 0.1.11's veomni/patchgen,
# everything else stubbed) and pgci regenerate each case. Every case must be
# byte-identical (raw, normalised by ruff 0.13.2, .diff) or refused by pgci with
# an error; a case whose mutations pgci models (`must_match`) must be identical.
# Anything else fails and prints a repro: the case's seed, its mutations, and the
# config as mutated against the real one.
#   PGCI_DIFF_COUNT (cases per release and seed, default 12), PGCI_DIFF_SEEDS
#   (default "1"), PGCI_DIFF_TF (releases, default "5.9.0 5.24.0"),
#   PGCI_DIFF_UP_RATE (share of cases that also change the upstream module, 0.3);
#   make fuzz runs more (mk/fuzz.mk: fuzz-diff).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
export PYTHONDONTWRITEBYTECODE=1
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
COUNT=${PGCI_DIFF_COUNT:-12}
SEEDS=${PGCI_DIFF_SEEDS:-1}
VERSIONS=${PGCI_DIFF_TF:-5.9.0 5.24.0}
[ -x "$RUFF" ] || { echo "no ruff at $RUFF (run make build)"; exit 1; }
veomni=$(corpus_wheel veomni 0.1.12) || exit 1
oracle=$(corpus_wheel veomni 0.1.11) || exit 1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
ln -s "$RUFF" "$tmp/bin/ruff"

same=0
refused=0
bad=0
total=0
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1/case.json" "$2"; }
# check_case DIR VERSION: prints "same", "refused" or the disagreement (then a few lines of it)
check_case() {
    local d=$1 v=$2
    local cfg must up
    cfg=$(field "$d" config)
    must=$(field "$d" must_match)
    up=$(field "$d" up)
    local common=(-C "$d/ws" --tag "v$v" --upstream "dir:$up" -q)
    local rc=0
    "$PGCI" regen "${common[@]}" --no-ruff --stdout "$cfg" >"$d/pgci.raw" 2>"$d/pgci.err" || rc=$?
    if [ $rc != 0 ]; then
        grep -q '^pgci: error: ' "$d/pgci.err" || { echo "pgci failed without an error line (exit $rc)"; return; }
        if [ "$must" = True ] && [ ! -f "$d/py/raw.err" ]; then
            echo "pgci refused a case whose every mutation it models"
            cat "$d/pgci.err"
            return
        fi
        echo refused
        return
    fi
    [ -f "$d/py/raw.err" ] && { echo "pgci wrote a file, patchgen failed"; tail -n 2 "$d/py/raw.err"; return; }
    cmp -s "$d/py/raw.py" "$d/pgci.raw" || { echo "raw output differs"; diff "$d/py/raw.py" "$d/pgci.raw" | head -20; return; }
    rc=0
    "$PGCI" regen "${common[@]}" --ruff "$RUFF" --write --diff "$cfg" >/dev/null 2>"$d/pgci.err" || rc=$?
    if [ -f "$d/py/norm.err" ]; then
        if [ $rc = 0 ]; then echo "patchgen's ruff step failed, pgci's did not"; else echo same; fi
        return
    fi
    [ $rc = 0 ] || { echo "pgci's ruff step failed"; cat "$d/pgci.err"; return; }
    local target gen
    target=$(cat "$d/py/target")
    gen="$d/ws/$(dirname "$cfg")/generated"
    cmp -s "$d/py/norm.py" "$gen/$target" || { echo "normalised output differs"; diff "$d/py/norm.py" "$gen/$target" | head -20; return; }
    cmp -s "$d/py/diff" "$gen/${target%.py}.diff" || { echo ".diff differs"; diff "$d/py/diff" "$gen/${target%.py}.diff" | head -20; return; }
    echo same
}

for v in $VERSIONS; do
    tf=$(corpus_wheel transformers "$v") || exit 1
    for seed in $SEEDS; do
        out="$tmp/$v-$seed"
        python3 tests/corpus/diffgen.py gen --veomni "$veomni" --tf "$tf" --tf-version "$v" --seed "$seed" \
            --count "$COUNT" --up-rate "${PGCI_DIFF_UP_RATE:-0.3}" --out "$out" || { echo "FAIL: the generator failed"; exit 1; }
        PATH="$tmp/bin:$PATH" python3 tests/corpus/diffgen.py patchgen --patchgen "$oracle" --out "$out" ||
            { echo "FAIL: the real patchgen did not run"; exit 1; }
        for d in "$out"/[0-9][0-9][0-9][0-9]; do
            total=$((total + 1))
            msg=$(check_case "$d" "$v")
            case $msg in
            same) same=$((same + 1)) ;;
            refused)
                refused=$((refused + 1))
                pg="patchgen wrote a file"
                [ -f "$d/py/raw.err" ] && pg="patchgen failed too"
                echo "refused transformers $v case $(basename "$d") ($pg): $(cut -c14-190 "$d/pgci.err")"
                ;;
            *)
                bad=$((bad + 1))
                cfg=$(field "$d" config)
                echo "FAIL  transformers $v seed $seed case $(basename "$d") ($cfg; mutations: $(field "$d" mutations)): $(head -n 1 <<<"$msg")"
                tail -n +2 <<<"$msg" | sed 's/^/      /'
                echo "      repro: PGCI_DIFF_TF=$v PGCI_DIFF_SEEDS=$seed PGCI_DIFF_COUNT=$COUNT KEEP=1 bash $0 (case $(basename "$d")); the config as mutated:"
                diff -u "$veomni/$cfg" "$d/ws/$cfg" | tail -n +3 | head -30 | sed 's/^/      /'
                ;;
            esac
        done
    done
done
echo "$total generated cases (transformers $VERSIONS; seeds $SEEDS): $same byte-identical with patchgen (raw, normalised, .diff), $refused refused by pgci with an error, $bad disagreements"
[ "$bad" -eq 0 ] && [ "$total" -gt 0 ]
