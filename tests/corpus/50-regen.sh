#!/usr/bin/env bash
# Proof 3, the real corpus: pgci regenerates every patch config of the `veomni`
# 0.1.12 distribution (29 configs) against `transformers` 5.9.0 - both from the
# Python package registry, unpacked in the corpus cache, transformers used as a
# `dir:` upstream - with ruff 0.13.2, and compares with the generated .py files
# checked in to that distribution, byte for byte. Prints "N/N configs
# byte-identical" and every exception with its cause.
#
# The wheel carries no pyproject.toml, so the workspace gets one with VeOmni's
# [tool.patchgen] and [tool.ruff] settings (tests/corpus/veomni_ws.sh). The wheel
# has no .diff files either; when a
# clone of the VeOmni repository is available ($PGCI_VEOMNI_REPO: a git directory
# whose HEAD pins transformers 5.9.0; read at test time, never copied into this
# repository), its configs, real pyproject.toml and checked-in .py and .diff files
# are compared too.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
JOBS=${PGCI_JOBS:-$(nproc)}
tf=$(corpus_wheel transformers 5.9.0) || exit 1
veomni=$(corpus_wheel veomni 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_corpus NAME WORKSPACE [--diff]: regenerates, counts, lists exceptions.
run_corpus() {
    local name=$1 ws=$2
    shift 2
    local t0=$(date +%s.%N)
    "$PGCI" regen -C "$ws" --tag v5.9.0 --upstream "dir:$tf" --ruff "$RUFF" -j "$JOBS" "$@" \
        >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local t1=$(date +%s.%N)
    local total ok
    total=$(grep -c '' "$tmp/out")
    ok=$(grep -c '^up to date' "$tmp/out")
    echo "$name: $ok/$total configs byte-identical ($(echo "$t1 - $t0" | bc | sed 's/^\./0./')s, ruff 0.13.2, transformers 5.9.0)"
    if [ "$ok" != "$total" ] || [ "$total" = 0 ]; then
        echo "exceptions:"
        grep -v '^up to date' "$tmp/out" | sed 's/^/  /'
        sed 's/^/  /' "$tmp/err"
        # the first lines of each drift, to show the cause
        grep '^would change' "$tmp/out" | while read -r _ _ cfg _; do
            cfg=${cfg%:}
            "$PGCI" regen -C "$ws" --tag v5.9.0 --upstream "dir:$tf" --ruff "$RUFF" --stdout "$cfg" \
                2>/dev/null >"$tmp/regen.py"
            local py
            py=$(grep "^would change  $cfg" "$tmp/out" | awk '{print $4}')
            diff -u "$ws/$py" "$tmp/regen.py" | head -20 | sed 's/^/    /'
        done
        return 1
    fi
    [ $rc -eq 0 ]
}

status=0

# A. the registry's veomni 0.1.12
ws="$tmp/veomni-0.1.12"
veomni_workspace "$ws" "$veomni"
run_corpus "veomni 0.1.12 (registry) .py" "$ws" || status=1

# B. the VeOmni repository at a commit pinned to 5.9.0, .py and .diff
VEOMNI_REPO=${PGCI_VEOMNI_REPO:-/work/.mirror/ByteDance-Seed+VeOmni/repo}
if git --git-dir="$VEOMNI_REPO" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    if git --git-dir="$VEOMNI_REPO" show HEAD:pyproject.toml | grep -q '"transformers==5.9.0"'; then
        ws="$tmp/veomni-repo"
        mkdir -p "$ws"
        git --git-dir="$VEOMNI_REPO" archive HEAD pyproject.toml veomni/models/transformers |
            tar -x -C "$ws"
        rev=$(git --git-dir="$VEOMNI_REPO" rev-parse --short HEAD)
        run_corpus "VeOmni repository @$rev .py and .diff" "$ws" --diff || status=1
    else
        echo "VeOmni repository at $VEOMNI_REPO does not pin transformers 5.9.0 at HEAD: .diff comparison not run"
    fi
else
    echo "no VeOmni repository (set PGCI_VEOMNI_REPO to a git directory): .diff comparison not run"
fi
exit $status
