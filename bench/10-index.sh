#!/usr/bin/env bash
# Bench: index throughput of pgci against CPython's ast.parse + ast.walk on the same
# files (every transformers/models/*/modeling_*.py of 5.9.0 and 5.16.1, from the
# corpus cache), side by side, one process each, best of $BENCH_RUNS (default 3).
# pgci does more than the Python side (imports, parameters, docstrings, body
# fingerprints); the Python side only parses and visits every node. Printed only.
set -u
cd "$(dirname "$0")/.."
. tests/corpus/lib.sh
PGCI=${PGCI:-bin/pgci}
runs=${BENCH_RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/files"
for v in 5.9.0 5.16.1; do
    dir=$(corpus_wheel transformers "$v") || { echo "index bench: no transformers $v"; exit 1; }
    ls "$dir"/transformers/models/*/modeling_*.py >>"$tmp/files"
done
nfiles=$(wc -l <"$tmp/files")
bytes=$(xargs cat <"$tmp/files" | wc -c)

cat >"$tmp/walk.py" <<'PY'
import ast, sys
nodes = 0
for path in open(sys.argv[1]).read().split():
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), path)
    for _ in ast.walk(tree):
        nodes += 1
print(nodes)
PY

# best wall time of $runs runs of a command, in seconds
best_of() {
    local best="" t0 t1 t
    for _ in $(seq "$runs"); do
        t0=$(date +%s.%N)
        "$@" >/dev/null || return 1
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    echo "$best"
}

pgci_s=$(best_of "$PGCI" index --files-from "$tmp/files" --totals --jobs 1) || { echo "pgci index failed"; exit 1; }
py_s=$(best_of python3 "$tmp/walk.py" "$tmp/files") || { echo "python failed"; exit 1; }
jobs=$(nproc)
pgci_j_s=$(best_of "$PGCI" index --files-from "$tmp/files" --totals --jobs "$jobs") ||
    { echo "pgci index --jobs failed"; exit 1; }

row() { # name seconds
    printf '  %-34s %7.2f s %8.1f MB/s %8.0f files/s\n' "$1" "$2" \
        "$(echo "$bytes / 1000000 / $2" | bc -l)" "$(echo "$nfiles / $2" | bc -l)"
}
echo "index: $nfiles files, $(echo "$bytes / 1000000" | bc -l | xargs printf '%.1f') MB" \
    "(transformers 5.9.0 + 5.16.1 modeling files), best of $runs"
row "pgci index (1 thread)" "$pgci_s"
row "pgci index --jobs $jobs" "$pgci_j_s"
row "python3 ast.parse + ast.walk" "$py_s"
printf '  speed-up, 1 thread: %.2fx\n' "$(echo "$py_s / $pgci_s" | bc -l)"
