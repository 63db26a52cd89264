#!/usr/bin/env bash
# make bench: the pin-bump survey of veomni 0.1.12's 29 configs from transformers
# 5.9.0 to 5.16.1 (warm: both releases unpacked in the corpus cache):
#   1. the whole survey (fetch, index both tags, regenerate every config against
#      5.16.1 with ruff, compare), wall time and its stages;
#   2. the index-and-compare part against `griffe check` (from the registry) on
#      the same modules of the same two trees, side by side: griffe loads both
#      trees from git refs and reports API breakages; pgci indexes both and
#      compares under every patch.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
. tests/tools/pyenv.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
a=$(corpus_wheel transformers 5.9.0) || { echo "no transformers 5.9.0: skipped"; exit 0; }
b=$(corpus_wheel transformers 5.16.1) || { echo "no transformers 5.16.1: skipped"; exit 0; }
ws=$(veomni_sdist 0.1.12) || { echo "no veomni sdist: skipped"; exit 0; }
pgci_pydeps griffe==2.4.1 || { echo "no griffe: skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tags"
ln -s "$a" "$tmp/tags/v5.9.0"
ln -s "$b" "$tmp/tags/v5.16.1"
now() { date +%s.%N; }

"$PGCI" survey -C "$ws" --from v5.9.0 --to v5.16.1 --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
    > /dev/null 2>&1 # warm-up: the dir source and the page cache
t0=$(now)
"$PGCI" survey -C "$ws" --from v5.9.0 --to v5.16.1 --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
    --timestamp --run-json "$tmp/run.json" > /dev/null 2>&1
t1=$(now)
printf 'pgci survey, 29 configs, 5.9.0 -> 5.16.1, whole:  %.2f s\n' "$(echo "$t1 - $t0" | bc)"
python3 - "$tmp/run.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timings_ms"]
for k in ("fetch+index", "regen", "compare"):
    print(f"  {k:12} {t.get(k, 0) / 1000:.2f} s")
print(f"  index+compare {(t.get('fetch+index', 0) + t.get('compare', 0)) / 1000:.2f} s")
PY

# griffe on the same modules: a git repository holding both trees as two tags
mods=$(python3 - "$tmp/run.json" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))["inputs"]["files"]
print(" ".join(sorted({f["path"].split(":")[1].split("@")[0] for f in files if f["path"].startswith("upstream:")})))
PY
)
g="$tmp/git"
mkdir -p "$g"
git -C "$g" init -q
for tag in v5.9.0 v5.16.1; do
    src=$([ "$tag" = v5.9.0 ] && echo "$a" || echo "$b")
    rm -rf "$g/transformers"
    mkdir -p "$g/transformers/models"
    : > "$g/transformers/__init__.py"
    : > "$g/transformers/models/__init__.py"
    for m in $mods; do
        p=${m//.//}.py
        [ -f "$src/$p" ] || continue
        mkdir -p "$g/$(dirname "$p")"
        [ -f "$g/$(dirname "$p")/__init__.py" ] || : > "$g/$(dirname "$p")/__init__.py"
        cp "$src/$p" "$g/$p"
    done
    git -C "$g" add -A
    git -C "$g" -c user.name=bench -c user.email=bench@localhost commit -qm "$tag"
    git -C "$g" tag "$tag"
done
n=$(echo "$mods" | wc -w)
t0=$(now)
(cd "$g" && python3 -m griffe check transformers -s . -a v5.9.0 -b v5.16.1 -f oneline > "$tmp/griffe.out" 2>&1)
t1=$(now)
printf 'griffe check, the same %d modules, 5.9.0 -> 5.16.1: %.2f s (%d breakages reported)\n' \
    "$n" "$(echo "$t1 - $t0" | bc)" "$(grep -c . "$tmp/griffe.out")"
