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

# best of $runs runs of a command: "WALL CPU" in seconds (CPU = user + sys; on a
# shared machine the CPU time is the steadier of the two)
best_of() {
    local best_w="" best_c="" w c
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null || return 1
        read -r w u s <"$tmp/time"
        c=$(echo "$u + $s" | bc -l)
        if [ -z "$best_w" ] || [ "$(echo "$w < $best_w" | bc -l)" = 1 ]; then best_w=$w; fi
        if [ -z "$best_c" ] || [ "$(echo "$c < $best_c" | bc -l)" = 1 ]; then best_c=$c; fi
    done
    echo "$best_w $best_c"
}

read -r pgci_w pgci_c < <(best_of "$PGCI" index --files-from "$tmp/files" --totals --jobs 1) ||
    { echo "pgci index failed"; exit 1; }
read -r py_w py_c < <(best_of python3 "$tmp/walk.py" "$tmp/files") || { echo "python failed"; exit 1; }
jobs=$(nproc)
read -r pgcij_w pgcij_c < <(best_of "$PGCI" index --files-from "$tmp/files" --totals --jobs "$jobs") ||
    { echo "pgci index --jobs failed"; exit 1; }

rate() { echo "$1 / $2" | bc -l; }
row() { # name wall cpu
    printf '  %-32s wall %6.2f s %7.1f MB/s %6.0f files/s | cpu %6.2f s %7.1f MB/s\n' "$1" "$2" \
        "$(rate "$bytes / 1000000" "$2")" "$(rate "$nfiles" "$2")" "$3" "$(rate "$bytes / 1000000" "$3")"
}
echo "index: $nfiles files, $(echo "$bytes / 1000000" | bc -l | xargs printf '%.1f') MB" \
    "(transformers 5.9.0 + 5.16.1 modeling files), best of $runs"
row "pgci index --jobs 1" "$pgci_w" "$pgci_c"
row "pgci index --jobs $jobs" "$pgcij_w" "$pgcij_c"
row "python3 ast.parse + ast.walk" "$py_w" "$py_c"
printf '  pgci vs CPython, one thread, by CPU time: %.2fx\n' "$(rate "$py_c" "$pgci_c")"
