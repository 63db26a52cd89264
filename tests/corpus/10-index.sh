#!/usr/bin/env bash
# Corpus: pgci's index on two real transformers releases (5.9.0 and 5.16.1, wheels
# from the Python package registry, cached outside the repository).
#
# 1. Every transformers/models/*/modeling_*.py of both releases is indexed in one
#    process: zero parse errors, counts printed.
# 2. CPython's ast is the oracle for what the index holds (tests/corpus/index_ast.py):
#    every definition's name, kind, lines, parameters (names, kinds, defaults,
#    annotations), decorators, bases, docstring, __init__ attributes, assignments
#    and every import with its nesting.
# 3. Body fingerprints against ast (tests/corpus/index_fingerprint.py): unchanged by
#    reformatting with ruff under very different settings, and equal between the two
#    releases exactly when the bodies' ast is equal.
set -eu
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
PGCI=${PGCI:-bin/pgci}
build=${PGCI_BUILD:-build}
ruff=$build/deps/ruff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for v in 5.9.0 5.16.1; do
    dir=$(corpus_wheel transformers "$v")
    ls "$dir"/transformers/models/*/modeling_*.py >"$tmp/files-$v"
    n=$(wc -l <"$tmp/files-$v")
    [ "$n" -gt 100 ] || { echo "transformers $v: only $n modeling files found" >&2; exit 1; }
    # one process for the whole release; exit 2 and a message on any parse error
    if ! "$PGCI" index --files-from "$tmp/files-$v" --totals --keep-going >"$tmp/totals-$v"; then
        cat "$tmp/totals-$v"
        echo "transformers $v: pgci could not index every file" >&2
        exit 1
    fi
    echo "transformers $v: $(sed 's/^total: //' "$tmp/totals-$v")"
    grep -q ' 0 errors,' "$tmp/totals-$v"
    "$PGCI" index --files-from "$tmp/files-$v" --json >"$tmp/index-$v.jsonl"
    python3 tests/corpus/index_ast.py "$tmp/files-$v" "$tmp/index-$v.jsonl"
done

# Fingerprints survive reformatting: copy the newer release's files, reformat them
# with ruff (line length 40, 2-space indents, single quotes, no magic trailing
# comma), index both and compare.
: >"$tmp/files-fmt"
while read -r f; do
    d="$tmp/fmt/$(basename "$(dirname "$f")")"
    mkdir -p "$d"
    cp "$f" "$d/"
    echo "$d/$(basename "$f")" >>"$tmp/files-fmt"
done <"$tmp/files-5.16.1"
"$ruff" format --isolated --quiet --line-length 40 --config "indent-width=2" \
    --config "format.quote-style='single'" --config "format.skip-magic-trailing-comma=true" \
    "$tmp/fmt"
"$PGCI" index --files-from "$tmp/files-fmt" --json >"$tmp/index-fmt.jsonl"
python3 tests/corpus/index_fingerprint.py same "$tmp/files-5.16.1" "$tmp/index-5.16.1.jsonl" \
    "$tmp/files-fmt" "$tmp/index-fmt.jsonl"

# Fingerprints tell changed bodies from unchanged ones exactly as ast does.
python3 tests/corpus/index_fingerprint.py ast "$tmp/files-5.9.0" "$tmp/index-5.9.0.jsonl" \
    "$tmp/files-5.16.1" "$tmp/index-5.16.1.jsonl"
