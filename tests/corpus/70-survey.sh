#!/usr/bin/env bash
# Issue 5, real data: the pin-bump survey of the VeOmni configs (veomni 0.1.12 from
# the registry) from their pin, transformers 5.9.0, to 5.16.1, both real releases
# from the registry, end to end. Prints the summary counts, the findings per check
# and a sample of findings; fails only when the survey cannot run.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
a=$(corpus_wheel transformers 5.9.0) || exit 1
b=$(corpus_wheel transformers 5.16.1) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the veomni 0.1.12 source distribution: its configs, generated files and its own
# pyproject.toml ([tool.patchgen], [tool.ruff], the pin); read only
ws=$(veomni_sdist 0.1.12) || exit 1
# a dir: source with {tag}: one directory per tag
mkdir -p "$tmp/tags"
ln -s "$a" "$tmp/tags/v5.9.0"
ln -s "$b" "$tmp/tags/v5.16.1"
t0=$(date +%s.%N)
"$PGCI" survey -C "$ws" --from pin --to latest --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
    --format json --run-json "$tmp/run.json" > "$tmp/findings.json" 2> "$tmp/err"
rc=$?
t1=$(date +%s.%N)
echo "pgci survey veomni 0.1.12 configs, transformers 5.9.0 -> 5.16.1: exit $rc in $(echo "$t1 - $t0" | bc)s"
[ "$rc" -le 1 ] || { cat "$tmp/err"; exit 1; }
"$PGCI" report --in "$tmp/run.json" --format md,html -o "$tmp/report" || exit 1
sed -n 3p "$tmp/report/report.md"
python3 - "$tmp/findings.json" <<'PY'
import collections, json, sys
fs = json.load(open(sys.argv[1]))
by = collections.Counter((f["check"], f["severity"]) for f in fs)
for (check, sev), n in sorted(by.items()):
    print(f"  {check:18} {sev:8} {n}")
kinds = collections.Counter((f["data"] or {}).get("kind", "") for f in fs if f["check"] == "signatures")
print("  signature kinds:", dict(sorted(kinds.items())))
seen = set()
print("sample:")
for f in fs:
    k = (f["data"] or {}).get("kind", f["check"])
    if k in seen or f["severity"] == "info":
        continue
    seen.add(k)
    print(f"  {f['severity']:7} [{f['check']}] {f['config'].split('.')[-1]}: {f['title'][:200]}")
PY
