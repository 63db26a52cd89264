#!/usr/bin/env bash
# pgci names, end to end, with real ruff as the oracle.
#
# 1. The unit test's snippet table (every scoping rule: module order, class bodies,
#    comprehensions, lambdas, global/nonlocal, del, walrus, except unbinding, try/except
#    ImportError, TYPE_CHECKING, conditional redefinitions, star imports, string and
#    PEP 563 annotations, __all__, builtins, match, type parameters, noqa, ...) is
#    dumped to files; `pgci names` and `ruff check --isolated` must report the same
#    (file, line, column, code, name) list for F821, F811 and F401, at the default
#    target (3.9) and at 3.11.
# 2. The command's contract: exit 0 / 1 / 2, text and JSON output, --select, errors.
set -euo pipefail
PGCI=${PGCI:?PGCI must point at the built binary}
BUILD=${PGCI_BUILD:-build}
RUFF=${PGCI_RUFF:-$BUILD/deps/ruff}
DUMP=$BUILD/tests/test_names
RUFF=$(cd "$(dirname "$RUFF")" && pwd)/$(basename "$RUFF")
DUMP=$(cd "$(dirname "$DUMP")" && pwd)/$(basename "$DUMP")
[ -x "$RUFF" ] || { echo "names.sh: ruff not found at $RUFF (run make deps)" >&2; exit 1; }
[ -x "$DUMP" ] || { echo "names.sh: $DUMP not built (make $DUMP)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- 1. the oracle ---------------------------------------------------------------------
mkdir -p "$tmp/snippets"
"$DUMP" --dump "$tmp/snippets"
nfiles=$(find "$tmp/snippets" -name '*.py' | wc -l)
[ "$nfiles" -ge 50 ] || fail "expected the snippet table, got $nfiles files"

compare() { # compare PY_MINOR RUFF_TARGET
    local minor=$1 target=$2 rc files
    mapfile -t files < <(cd "$tmp/snippets" && find . -name '*.py' | sed 's|^\./||' | sort)
    set +e
    (cd "$tmp/snippets" && "$PGCI" names --format json --python "3.$minor" \
        --select F821,F811,F401 "${files[@]}" > "$tmp/pgci.json")
    rc=$?
    (cd "$tmp/snippets" && "$RUFF" check --isolated --no-cache --target-version "$target" \
        --select F821,F811,F401 --output-format json "${files[@]}" > "$tmp/ruff.json" 2>/dev/null)
    set -e
    [ $rc -eq 1 ] || fail "pgci names on the snippets: exit $rc, want 1"
    python3 - "$tmp/pgci.json" "$tmp/ruff.json" "$tmp/snippets" <<'PY'
import json, os, re, sys
pg = sorted((f["path"], f["line"], f["col"], f["data"]["code"], f["data"]["name"])
            for f in json.load(open(sys.argv[1])))
ruff = sorted((os.path.relpath(d["filename"], sys.argv[3]), d["location"]["row"],
               d["location"]["column"], d["code"], re.search(r"`([^`]*)`", d["message"]).group(1))
              for d in json.load(open(sys.argv[2])) if d["code"] in ("F821", "F811", "F401"))
print(f"names oracle: pgci {len(pg)} findings, ruff {len(ruff)}, "
      f"common {len(set(pg) & set(ruff))}")
for x in sorted(set(ruff) - set(pg)): print("  only ruff:", x)
for x in sorted(set(pg) - set(ruff)): print("  only pgci:", x)
sys.exit(0 if pg == ruff and len(pg) > 100 else 1)
PY
}
compare 9 py39 || fail "pgci and ruff disagree on the snippets (target 3.9)"
compare 11 py311 || fail "pgci and ruff disagree on the snippets (target 3.11)"

# --- 2. the command ----------------------------------------------------------------------
cd "$tmp"
printf 'from typing import List\n\ndef f(x: Optional[int]) -> List[int]:\n    return [x]\n' > gen.py
printf 'import os\n' > unused.py
printf 'import os\nprint(os.sep)\n' > clean.py
printf 'def f(:\n' > bad.py

set +e
out=$("$PGCI" names gen.py); rc=$?
set -e
[ $rc -eq 1 ] || fail "undefined name: exit $rc, want 1"
[ "$out" = "gen.py:3:10: F821 undefined name 'Optional'" ] || fail "text output: $out"

"$PGCI" names clean.py > out.txt || fail "clean file: exit $?"
[ ! -s out.txt ] || fail "clean file printed: $(cat out.txt)"

out=$("$PGCI" names unused.py) || fail "F401 is info and must not fail the run"
[ "$out" = "unused.py:1:8: F401 'os' imported but unused" ] || fail "F401 output: $out"
out=$("$PGCI" names --select F821,F811 unused.py) || fail "--select: exit $?"
[ -z "$out" ] || fail "--select F821,F811 still printed: $out"

set +e
"$PGCI" names --format json gen.py unused.py > out.json; rc=$?
set -e
[ $rc -eq 1 ] || fail "json: exit $rc"
python3 - out.json <<'PY' || fail "json output"
import json, sys
fs = json.load(open(sys.argv[1]))
got = [(f["path"], f["line"], f["col"], f["check"], f["severity"], f["data"]["code"]) for f in fs]
assert got == [("gen.py", 3, 10, "names", "error", "F821"),
               ("unused.py", 1, 8, "names", "info", "F401")], got
assert fs[0]["title"] == "undefined name 'Optional'", fs[0]
PY

expect_error() { # expect_error PATTERN ARGS...: exit 2 and a clear line on stderr
    local pat=$1 rc
    shift
    set +e
    "$PGCI" names "$@" > /dev/null 2> err.txt
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "names $*: exit $rc, want 2"
    grep -q -- "$pat" err.txt || fail "names $*: stderr '$(cat err.txt)' lacks '$pat'"
}
expect_error "bad.py:1:.*syntax error" bad.py
expect_error "missing.py" missing.py
expect_error "unknown code 'E501'" --select E501 gen.py
expect_error "no files"
expect_error "text or json" --format xml gen.py
expect_error "bad Python version" --python 2.7 gen.py
# a bad file among good ones: the good ones are still reported, the exit is 2
set +e
out=$("$PGCI" names gen.py bad.py 2>/dev/null); rc=$?
set -e
[ $rc -eq 2 ] && [ "$out" = "gen.py:3:10: F821 undefined name 'Optional'" ] \
    || fail "mixed good and bad files: exit $rc, output '$out'"
"$PGCI" names --help | grep -q -- "--select" || fail "--help lacks --select"
echo "names e2e: ok"
