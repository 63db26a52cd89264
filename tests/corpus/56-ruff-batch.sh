#!/usr/bin/env bash
# Issue 18: ruff batched is ruff file by file, byte for byte, on the real VeOmni
# tree (veomni 0.1.12's 29 configs at transformers 5.9.0, its own pyproject.toml
# with [tool.ruff] and [tool.patchgen]). The reference does what patchgen's
# _normalize does, one file at a time, with no pgci in between: each raw output
# (pgci regen --no-ruff) is copied alone into a fresh temporary directory and
# normalised there by `ruff check --fix` then `ruff format` run from the workspace
# root with patchgen's ignore list. pgci normalises all of them in one batch
# (without the cache, at -j 1 and -j N; then with a cold and a warm cache). Every
# output must be identical to the reference. The checked-in files are batched the
# same way by `pgci check` (ruff-equivalence): each must be a fixed point file by
# file exactly when pgci check says so.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
JOBS=${PGCI_JOBS:-$(nproc)}
tf=$(corpus_wheel transformers 5.9.0) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg
fail() { echo "FAIL: $*"; exit 1; }

# patchgen's settings from the workspace's pyproject.toml
read -r ignore isolated < <(python3 - "$ws/pyproject.toml" <<'PY'
import sys, tomllib
pg = tomllib.load(open(sys.argv[1], "rb")).get("tool", {}).get("patchgen", {})
print(",".join(["E402", "B007"] + list(pg.get("ruff_extra_ignore", []))),
      "--isolated" if pg.get("ruff_isolated") else "-")
PY
)
[ "$isolated" = - ] && isolated=

"$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --no-ruff --no-cache -o "$tmp/raw" --write \
    >/dev/null 2>"$tmp/err" || fail "raw regeneration: $(cat "$tmp/err")"
mkdir -p "$tmp/ref"
n=0
for f in "$tmp"/raw/*.py; do
    d=$(mktemp -d)
    cp "$f" "$d/"
    one=$d/$(basename "$f")
    (cd "$ws" && "$RUFF" check --fix --quiet --no-cache $isolated --ignore "$ignore" "$one" &&
        "$RUFF" format --quiet --no-cache $isolated "$one") >/dev/null 2>&1 ||
        fail "ruff on $(basename "$f") alone"
    cp "$one" "$tmp/ref/"
    rm -rf "$d"
    n=$((n + 1))
done

compare() { # NAME DIR
    local ok=0 f
    for f in "$tmp"/ref/*.py; do
        cmp -s "$f" "$2/$(basename "$f")" && ok=$((ok + 1))
    done
    echo "$1: $ok/$n normalised files byte-identical to ruff file by file"
    [ "$ok" = "$n" ] || { diff -r "$tmp/ref" "$2" | head -20; return 1; }
}
status=0
for j in 1 "$JOBS"; do
    "$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --no-cache -j "$j" \
        -o "$tmp/batch-$j" --write >/dev/null 2>"$tmp/err" || fail "batched regeneration: $(cat "$tmp/err")"
    compare "batched, no cache, -j $j" "$tmp/batch-$j" || status=1
done
for state in cold warm; do
    "$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" -o "$tmp/cache-$state" \
        --write >/dev/null 2>"$tmp/err" || fail "cached regeneration: $(cat "$tmp/err")"
    compare "batched, $state cache" "$tmp/cache-$state" || status=1
done

# the checked-in files: pgci check batches them too (ruff-equivalence); in a copy
# of the workspace where three are edited by hand (an unused import, a quote
# style, blank lines), the files that are not ruff fixed points file by file must
# be exactly those pgci check flags
cp -r "$ws" "$tmp/ws"
gen=($(ls "$tmp"/ws/veomni/models/transformers/*/generated/*.py | sort))
sed -i '0,/^import /s//import shutil\nimport /' "${gen[0]}"
sed -i '0,/"""/s//\x27\x27\x27/; 0,/"""/s//\x27\x27\x27/' "${gen[5]}"
printf '\n\n\n\nX_AT_THE_END = 1\n' >>"${gen[9]}"
: >"$tmp/unfixed"
for f in "${gen[@]}"; do
    d=$(mktemp -d)
    cp "$f" "$d/"
    one=$d/$(basename "$f")
    (cd "$tmp/ws" && "$RUFF" check --fix --quiet --no-cache $isolated --ignore "$ignore" "$one" &&
        "$RUFF" format --quiet --no-cache $isolated "$one") >/dev/null 2>&1
    cmp -s "$f" "$one" || echo "${f#$tmp/ws/}" >>"$tmp/unfixed"
    rm -rf "$d"
done
"$PGCI" check -C "$tmp/ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --no-diff --no-cache \
    --format json >"$tmp/check.json" 2>/dev/null
python3 - "$tmp/check.json" <<'PY' | sort >"$tmp/flagged"
import json, sys
for f in json.load(open(sys.argv[1])):
    if "not a ruff fixed point" in f["title"]:
        print(f["path"])
PY
echo "checked-in files that are not ruff fixed points: $(wc -l <"$tmp/unfixed") file by file," \
    "$(wc -l <"$tmp/flagged") flagged by pgci check (batched), of ${#gen[@]}"
sort "$tmp/unfixed" | cmp -s - "$tmp/flagged" || { diff <(sort "$tmp/unfixed") "$tmp/flagged"; status=1; }
[ "$(wc -l <"$tmp/unfixed")" = 3 ] || { echo "expected the 3 edited files"; status=1; }

# ruff's refusals: at transformers 5.16.1 half the configs generate a module ruff
# cannot fix (an undefined name). The batch words each one's error from its part of
# the one check's report; each config regenerated alone (one pgci per config, so
# ruff runs on its file alone) is the reference. The errors must be the same,
# word for word, at -j 1 and -j N.
tf16=$(corpus_wheel transformers 5.16.1) || exit 1
errors() { # the error of each config in a regen --format json report, whole
    python3 -c 'import json, sys
for c in json.load(sys.stdin)["configs"]:
    if c["error"]:
        print(c["config"] + ": " + json.dumps(c["error"]))'
}
: >"$tmp/alone.errors"
for c in $("$PGCI" list -C "$ws" | awk '{print $1}'); do
    "$PGCI" regen -C "$ws" --tag v5.16.1 --source "dir:$tf16" --ruff "$RUFF" --no-cache "$c" \
        --format json 2>/dev/null | errors >>"$tmp/alone.errors"
done
sort -o "$tmp/alone.errors" "$tmp/alone.errors"
for j in 1 "$JOBS"; do
    "$PGCI" regen -C "$ws" --tag v5.16.1 --source "dir:$tf16" --ruff "$RUFF" --no-cache -j "$j" \
        --format json 2>/dev/null | errors | sort >"$tmp/batch.errors"
    echo "refused at 5.16.1, -j $j: $(wc -l <"$tmp/batch.errors") errors batched," \
        "$(wc -l <"$tmp/alone.errors") alone"
    grep -q 'ruff normalisation failed' "$tmp/alone.errors" ||
        { echo "expected ruff to refuse some at 5.16.1"; status=1; }
    cmp -s "$tmp/alone.errors" "$tmp/batch.errors" ||
        { diff "$tmp/alone.errors" "$tmp/batch.errors" | cut -c1-300 | head -20; status=1; }
done
exit $status
