#!/usr/bin/env bash
# Issue 15, findings a maintainer can act on: SARIF rules with descriptions and
# help and an invocation that records checks not run or not configured; HTML with
# severity colours and code spans; Markdown paths without stray backslashes; a run
# stopped by the environment still reported; `pgci help CMD`; -q on every command;
# patchgen --check without an upstream says so.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp -r fixtures/workspace "$T/workspace"
cp -r fixtures/upstream "$T/upstream"
W=$T/workspace
LCFG=demo/models/llama/llama_gpu_patch_gen_config.py

# shards merged are the unsharded run: every member but timings, byte for byte
# (configs in the workspace's order, input files sorted and each once)
F=$PWD/fixtures/workspace
"$PGCI" check -C "$F" --ruff "$RUFF" --run-json "$T/whole.json" > /dev/null || true
for k in 1 2 3; do
    "$PGCI" check -C "$F" --ruff "$RUFF" --shard $k/3 --run-json "$T/shard$k.json" > /dev/null || true
done
"$PGCI" report --merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" -o "$T/merged"
python3 - "$T/whole.json" "$T/merged/run.json" <<'PY'
import json, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:])
for k in set(whole) | set(merged):
    if k != "timings_ms":
        assert whole.get(k) == merged.get(k), (k, whole.get(k), merged.get(k))
paths = [f["path"] for f in whole["inputs"]["files"]]
assert paths == sorted(set(paths)), paths
PY
echo "ok   check --shard 1/3, 2/3, 3/3 merged: the unsharded run"

# a misspelled target, protocol-import not configured
sed -i '0,/"LlamaMLP.forward"/s//"LlamaMLP.fowrard"/' "$W/$LCFG"
sed -i 's/^python = "python3"$//' "$W/pyproject.toml"
"$PGCI" check -C "$W" --ruff "$RUFF" --run-json "$T/run.json" > /dev/null || true
"$PGCI" report --in "$T/run.json" --format md,html,sarif -o "$T/r"
# the suggestion is the same from the result cache (a warm run indexes no upstream)
for run in cold warm; do
    "$PGCI" check -C "$W" --ruff "$RUFF" --cache-dir "$T/cache" --format json -v > "$T/$run.json" 2> "$T/$run.err" || true
done
grep -q 'is not defined upstream: did you mean `forward`?' "$T/warm.json" || fail "warm run: no near miss"
cmp "$T/cold.json" "$T/warm.json" || fail "warm findings differ from cold ones"
grep -q 'cache: [1-9][0-9]* hits, 0 misses' "$T/warm.err" || fail "warm run missed the cache: $(grep cache: "$T/warm.err")"

python3 - "$T/r/report.sarif" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
t = rules["targets"]
assert t["shortDescription"]["text"] == "patch targets missing upstream, duplicated or never applied", t
assert "did you mean" in t["help"]["text"] and t["help"]["markdown"].startswith("**targets**"), t
assert t["fullDescription"]["text"] == t["help"]["text"]
inv = run["invocations"][0]
assert inv["executionSuccessful"] is True
notes = {n["descriptor"]["id"]: n for n in inv["toolExecutionNotifications"]}
assert notes["protocol-import"]["level"] == "note", notes
assert notes["protocol-import"]["message"]["text"].startswith("check protocol-import is not configured: no Python environment"), notes
PY
echo "ok   SARIF: rules described with help; the invocation records protocol-import as not configured"

# Markdown: the title's code span stays one; paths carry no backslash escapes
grep -q '^- \*\*warning\*\* `LlamaMLP.fowrard` is not defined upstream: did you mean `forward`?' "$T/r/report.md" ||
    fail "no near-miss line with code spans in report.md: $(grep -n fowrard "$T/r/report.md")"
! grep -q 'llama\\_gpu\|patched\\_modeling' "$T/r/report.md" || fail "stray backslashes in report.md paths"
grep -q '^- Check `protocol-import` is not configured: ' "$T/r/report.md" || fail "not-configured not listed in report.md"
! grep -q 'did not run\*\*' "$T/r/report.md" || fail "a not-configured check counted as not run"
# HTML: coloured severities, code spans rendered (no literal backticks in titles)
grep -q '<strong class="sev-warning">warning</strong> <code>LlamaMLP.fowrard</code> is not defined upstream: did you mean <code>forward</code>?' "$T/r/report.html" ||
    fail "HTML: $(grep -n fowrard "$T/r/report.html")"
! grep -q '<li>.*`' "$T/r/report.html" || fail "literal backticks in the HTML: $(grep -n '<li>.*`' "$T/r/report.html" | head -3)"
grep -q 'overflow-wrap:anywhere' "$T/r/report.html" || fail "HTML: long paths do not wrap"
echo "ok   Markdown and HTML: code spans, severity colours, no stray backslashes"

# a run the environment stopped (an unknown tag): exit 2, one line, and the report says so
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" --tag v9.9.9 --run-json "$T/env.json" > "$T/env.out" 2> "$T/env.err" || rc=$?
[ "$rc" = 2 ] || fail "unknown tag: exit $rc"
[ "$(grep -c . "$T/env.err")" = 1 ] || fail "unknown tag: $(cat "$T/env.err")"
"$PGCI" report --in "$T/env.json" --format comment,sarif,github -o "$T/e"
grep -q '^\*\*The gate could not run\*\*: .*v9.9.9' "$T/e/comment.md" || fail "comment: $(head -5 "$T/e/comment.md")"
grep -q '^::error title=pgci::.*v9.9.9' "$T/e/annotations.txt" || fail "no annotation for the error: $(head -3 "$T/e/annotations.txt")"
python3 -c 'import json,sys; inv=json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]; assert inv["executionSuccessful"] is False, inv' "$T/e/report.sarif"
echo "ok   an environment failure: exit 2 in one line; run.json, the comment, SARIF and an annotation say the gate could not run"

# pgci help CMD is CMD --help; every command takes -q
"$PGCI" help check > "$T/h1"
"$PGCI" check --help > "$T/h2"
cmp -s "$T/h1" "$T/h2" || fail "pgci help check differs from pgci check --help"
rc=0; "$PGCI" help nosuch 2> "$T/h3" || rc=$?
[ "$rc" = 2 ] && grep -q "unknown command 'nosuch'" "$T/h3" || fail "pgci help nosuch: exit $rc"
for cmd in $("$PGCI" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
    "$PGCI" "$cmd" -q --help > /dev/null 2> "$T/q.err" || fail "pgci $cmd -q: $(cat "$T/q.err")"
done
"$PGCI" report -q --in "$T/run.json" --format md > /dev/null || fail "report -q"
echo "ok   pgci help CMD; -q on every command"

# patchgen --check with no upstream: says so, exit 2 (not "out of date")
rm -rf "$T/upstream"
rc=0
(cd "$W" && PATH="$(dirname "$RUFF"):$PATH" "$PGCI" patchgen --check > "$T/pg.out" 2> "$T/pg.err") || rc=$?
[ "$rc" = 2 ] || fail "patchgen --check without upstream: exit $rc"
grep -q "^Could not check: the upstream source could not be read" "$T/pg.out" || fail "patchgen --check: $(tail -n 3 "$T/pg.out")"
! grep -q "out of date" "$T/pg.out" || fail "patchgen --check said out of date"
echo "ok   patchgen --check without an upstream: says it could not read it, exit 2"
