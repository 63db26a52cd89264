#!/usr/bin/env bash
# Proof 3, the real corpus: pgci regenerates every patch config of real VeOmni
# workspaces and compares with their checked-in generated files, byte for byte.
# Everything comes from the Python package registry into the corpus cache:
#   A. the `veomni` 0.1.12 source distribution (its pyproject.toml, 29 configs and
#      their generated .py) against `transformers` 5.9.0, its pin;
#   B. the `veomni` 0.1.11 and 0.1.10 source distributions (24 and 22 configs)
#      against `transformers` 5.2.0, their pin (they predate [tool.patchgen]: their
#      patchgen discovered configs under the hard-coded veomni/models/transformers,
#      which we write into a copy of the pyproject.toml);
# with ruff 0.13.2 and the transformers wheels unpacked and used as `dir:` upstreams.
# The distributions carry no .diff files; when a clone of the VeOmni repository is
# available (PGCI_VEOMNI_REPO: a git directory whose HEAD pins transformers 5.9.0;
# read at test time, never copied into this repository), its configs, pyproject.toml,
# .py and .diff files are compared too (C). Prints "N/N configs byte-identical" per
# corpus and every exception with its cause.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
JOBS=${PGCI_JOBS:-$(nproc)}
tf=$(corpus_wheel transformers 5.9.0) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_corpus NAME WORKSPACE TAG UPSTREAM_DIR [--diff]: regenerates, counts, lists exceptions.
run_corpus() {
    local name=$1 ws=$2 tag=$3 tf=$4
    shift 4
    local t0=$(date +%s.%N)
    "$PGCI" regen -C "$ws" --tag "$tag" --upstream "dir:$tf" --ruff "$RUFF" -j "$JOBS" "$@" \
        >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local t1=$(date +%s.%N)
    local total ok
    total=$(grep -c '' "$tmp/out")
    ok=$(grep -c '^up to date' "$tmp/out")
    echo "$name: $ok/$total configs byte-identical ($(echo "$t1 - $t0" | bc | sed 's/^\./0./')s, ruff 0.13.2, transformers ${tag#v})"
    if [ "$ok" != "$total" ] || [ "$total" = 0 ]; then
        echo "exceptions:"
        grep -v '^up to date' "$tmp/out" | sed 's/^/  /'
        sed 's/^/  /' "$tmp/err"
        # the first lines of each drift, to show the cause
        grep '^would change' "$tmp/out" | while read -r _ _ cfg _; do
            cfg=${cfg%:}
            "$PGCI" regen -C "$ws" --tag "$tag" --upstream "dir:$tf" --ruff "$RUFF" --stdout "$cfg" \
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

# A. veomni 0.1.12 from the registry, at its pin
ws=$(veomni_sdist 0.1.12) || exit 1
run_corpus "veomni 0.1.12 (registry sdist) .py" "$ws" v5.9.0 "$tf" || status=1

# B. veomni 0.1.11 and 0.1.10 from the registry, at their pin
tf52=$(corpus_wheel transformers 5.2.0) || exit 1
for v in 0.1.11 0.1.10; do
    src=$(veomni_sdist "$v") || exit 1
    ws="$tmp/veomni-$v"
    mkdir -p "$ws/veomni/models"
    cp "$src/pyproject.toml" "$ws/"
    cp -r "$src/veomni/models/transformers" "$ws/veomni/models/"
    printf '\n[tool.patchgen]\nsearch_root = "veomni/models/transformers"\npackage_prefix = "veomni.models.transformers"\n' \
        >>"$ws/pyproject.toml"
    run_corpus "veomni $v (registry sdist) .py" "$ws" v5.2.0 "$tf52" || status=1
done

# C. the VeOmni repository at a commit pinned to 5.9.0, .py and .diff
VEOMNI_REPO=${PGCI_VEOMNI_REPO:-/work/.mirror/ByteDance-Seed+VeOmni/repo}
if git --git-dir="$VEOMNI_REPO" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    if git --git-dir="$VEOMNI_REPO" show HEAD:pyproject.toml | grep -q '"transformers==5.9.0"'; then
        ws="$tmp/veomni-repo"
        mkdir -p "$ws"
        git --git-dir="$VEOMNI_REPO" archive HEAD pyproject.toml veomni/models/transformers |
            tar -x -C "$ws"
        rev=$(git --git-dir="$VEOMNI_REPO" rev-parse --short HEAD)
        run_corpus "VeOmni repository @$rev .py and .diff" "$ws" v5.9.0 "$tf" --diff || status=1
    else
        echo "VeOmni repository at $VEOMNI_REPO does not pin transformers 5.9.0 at HEAD: .diff comparison not run"
    fi
else
    echo "no VeOmni repository (set PGCI_VEOMNI_REPO to a git directory): .diff comparison not run"
fi
exit $status
