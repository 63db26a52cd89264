#!/usr/bin/env bash
# make bench: the PR gate on the real VeOmni tree (veomni 0.1.12's 29 configs,
# transformers 5.9.0 as a dir: upstream, warm), wall time:
#   - pgci check with ruff (byte mode) and in structural mode (--no-ruff);
#   - the floor a Python gate cannot go under: ruff alone normalising the same 29
#     generated files (check --fix, then format) file by file, as patchgen's drift
#     check does; and, for reference, ruff over all 29 in one process.
# The Python patchgen's own check cannot run here: VeOmni's configs import torch.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=$repo/${PGCI_BUILD:-build}/deps/ruff
RUNS=${PGCI_BENCH_RUNS:-3}
tf=$(corpus_wheel transformers 5.9.0) || { echo "no transformers 5.9.0: skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$(veomni_sdist 0.1.12) || { echo "no veomni 0.1.12 sdist: skipped"; exit 0; }
now() { date +%s.%N; }
avg() { echo "scale=3; ($2 - $1) / $RUNS" | bc | sed 's/^\./0./'; }

"$PGCI" check -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --no-diff >/dev/null 2>&1
t0=$(now)
for _ in $(seq "$RUNS"); do
    "$PGCI" check -C "$ws" --tag v5.9.0 --source "dir:$tf" --ruff "$RUFF" --no-diff >/dev/null 2>&1
done
t1=$(now)
for _ in $(seq "$RUNS"); do
    "$PGCI" check -C "$ws" --tag v5.9.0 --source "dir:$tf" --no-ruff --no-diff >/dev/null 2>&1
done
t2=$(now)
for _ in $(seq "$RUNS"); do
    rm -rf "$tmp/norm"
    mkdir -p "$tmp/norm"
    cp "$ws"/veomni/models/transformers/*/generated/*.py "$tmp/norm/"
    cp "$ws/pyproject.toml" "$tmp/norm/"
    (cd "$tmp/norm" && "$RUFF" check --fix --quiet --exit-zero --ignore E402,B007 . >/dev/null 2>&1
     "$RUFF" format --quiet . >/dev/null 2>&1)
done
t3=$(now)
# as patchgen's check does it: each file on its own, check --fix then format
for _ in $(seq "$RUNS"); do
    for f in "$tmp"/norm/*.py; do
        (cd "$tmp/norm" && "$RUFF" check --fix --quiet --exit-zero --ignore E402,B007 "$f" >/dev/null 2>&1
         "$RUFF" format --quiet "$f" >/dev/null 2>&1)
    done
done
t4=$(now)
with=$(avg "$t0" "$t1")
structural=$(avg "$t1" "$t2")
batched=$(avg "$t2" "$t3")
floor=$(avg "$t3" "$t4")
printf '%-52s %8s s\n' "pgci check, 29 configs, with ruff (byte mode)" "$with"
printf '%-52s %8s s\n' "pgci check, 29 configs, structural mode (no ruff)" "$structural"
printf '%-52s %8s s\n' "ruff alone, file by file as patchgen does (floor)" "$floor"
printf '%-52s %8s s\n' "ruff alone, all 29 files in one process" "$batched"
echo "ratio with-ruff / ruff-floor: $(echo "scale=2; $with / $floor" | bc)"
echo "ratio structural / ruff-floor: $(echo "scale=2; $structural / $floor" | bc)"
