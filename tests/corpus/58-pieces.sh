#!/usr/bin/env bash
# The structural comparison by pieces on real inputs. `pgci check --no-ruff`
# parses only the checked-in file's module-level statements that are not the
# regenerated file's byte for byte, found by a scan of its tokens
# (src/py/pytop.c). Two proofs:
#
#   - the scan finds the statements tree-sitter finds, on every .py file of the
#     transformers 5.9.0 and 5.16.1 wheels and of the veomni 0.1.12 distribution
#     (tests/tools/pytop_cmp: any disagreement fails; a text the scan declines is
#     counted, never wrong);
#   - on the real VeOmni tree at its pin (every file equal) and against two later
#     releases (every file different), with PGCI_VERIFY_STRUCTURAL set every
#     comparison by pieces is also made whole and a different verdict, line or
#     message aborts pgci.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
CMP=$repo/${PGCI_BUILD:-build}/tests/tools/pytop_cmp
[ -x "$CMP" ] || { echo "58-pieces: $CMP not built (make corpus-test builds it)" >&2; exit 1; }
tf=$(corpus_wheel transformers 5.9.0) || exit 1
tf16=$(corpus_wheel transformers 5.16.1) || exit 1
tf24=$(corpus_wheel transformers 5.24.0) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
find "$tf" "$tf16" "$ws" -name '*.py' -print0 | xargs -0 "$CMP" >"$tmp/cmp" || rc=1
grep -v ': declined$' "$tmp/cmp" | grep -v '^pytop_cmp: ' | head -20
awk '/^pytop_cmp: / {f += $2; d += $10; s += $12; e += $14; m += $20; x += $(NF-1)}
     END {printf "scan against tree-sitter: %d files, %d declined, %d statements (%d end where the node does) and %d in class bodies, %d disagreements\n", f, d, s, e, m, x}' "$tmp/cmp"
for t in "5.9.0:$tf" "5.16.1:$tf16" "5.24.0:$tf24"; do
    v=${t%%:*}
    st=0
    PGCI_VERIFY_STRUCTURAL=1 PGCI_VERIFY_FOREST=1 "$PGCI" check -C "$ws" --tag "v$v" --source "dir:${t#*:}" --no-ruff \
        --no-cache --no-diff --format json -q >"$tmp/f.json" 2>"$tmp/err" || st=$?
    # exit 1 is the gate's verdict (findings); anything else is pgci failing
    if [ "$st" -gt 1 ]; then
        echo "FAIL: check --no-ruff at $v exited $st"
        head -5 "$tmp/err"
        rc=1
        continue
    fi
    n=$(python3 -c 'import json,sys; print(sum(f["check"] == "ruff-equivalence" for f in json.load(open(sys.argv[1]))))' "$tmp/f.json")
    echo "check --no-ruff at transformers $v: by pieces = whole on 29 files ($n structurally different)"
done
exit $rc
