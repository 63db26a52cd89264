#!/usr/bin/env bash
# The pin-bump survey on real data: the VeOmni configs (veomni 0.1.12 from the
# registry) between real transformers releases from the registry.
#  - 5.9.0 (their pin) -> 5.16.1: the error-level changes are exactly the reviewed
#    ones in 70-survey-5.16.1.expected (each read against both upstream sources,
#    docs/survey.md), the Markdown note fits 3,000 words outside <details>;
#  - 5.16.1 -> 5.24.0 (the newest release when it was written, a pair the fixtures
#    were not written for): the error-level changes are the reviewed ones in
#    70-survey-5.24.0.expected (docs/survey.md: the hand review and its precision);
#  - 5.24.0 -> 5.25.0 (the newest release when it was added): the reviewed error in
#    70-survey-5.25.0.expected, and the 24 configs that fail against both tags are
#    counted as such in both summaries (not the bump's, no finding);
#  - a survey of a tag against itself reports nothing at all.
# Prints the counts (errors, warnings, changes) the README quotes.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$(veomni_sdist 0.1.12) || exit 1
mkdir -p "$tmp/tags"
for v in 5.9.0 5.16.1 5.24.0 5.25.0; do
    d=$(corpus_wheel transformers $v) || exit 1
    ln -s "$d" "$tmp/tags/v$v"
done
rc=0

# survey FROM TO NAME: runs the survey, renders the note, prints the counts
survey() {
    local t0 t1 st=0
    t0=$(date +%s.%N)
    "$PGCI" survey -C "$ws" --from "$1" --to "$2" --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
        --format json --run-json "$tmp/$3.json" > "$tmp/$3.findings.json" 2> "$tmp/$3.err" || st=$?
    t1=$(date +%s.%N)
    echo "pgci survey veomni 0.1.12 configs, transformers $1 -> $2: exit $st in $(echo "$t1 - $t0" | bc)s"
    [ "$st" -le 1 ] || { cat "$tmp/$3.err"; return 1; }
    "$PGCI" report --in "$tmp/$3.json" --format md,html -o "$tmp/$3.report" || return 1
}

check_changes() { # NAME EXPECTED
    python3 - "$tmp/$1.json" "$tmp/$1.report/report.md" "$2" <<'PY'
import collections, json, re, sys
run = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
s = run["summary"]
cs = run["changes"]
by = collections.Counter((c["how"], c["severity"]) for c in cs)
print(f"  {s['errors']} errors, {s['warnings']} warnings, {s['info']} notes in "
      f"{len(cs)} upstream changes "
      f"({sum(1 for c in cs if c['severity'] == 'error')} with errors, "
      f"{sum(1 for c in cs if c['severity'] == 'warning')} with warnings)")
for (how, sev), n in sorted(by.items()):
    print(f"    {how:22} {sev:8} {n}")
# words a reader sees unfolded: outside every <details>
depth, out = 0, []
for tok in re.split(r"(<details>|</details>)", md):
    if tok == "<details>":
        depth += 1
    elif tok == "</details>":
        depth -= 1
    elif depth == 0:
        out.append(tok)
words = len("".join(out).split())
print(f"  Markdown: {len(md.split())} words, {words} outside <details>")
assert words <= 3000, f"the note is {words} words outside <details> (budget 3000)"
got = sorted(f"{c['how']}\t{len(c['configs'])}\t{c['title']}" for c in cs if c["severity"] == "error")
want = sorted(l for l in open(sys.argv[3]).read().splitlines() if l and not l.startswith("#"))
if got != want:
    print("error-level changes differ from the reviewed list " + sys.argv[3] + ":")
    for l in sorted(set(want) - set(got)):
        print("  - " + l)
    for l in sorted(set(got) - set(want)):
        print("  + " + l)
    sys.exit(1)
PY
}

survey v5.9.0 v5.16.1 a && check_changes a tests/corpus/70-survey-5.16.1.expected || rc=1
survey v5.16.1 v5.24.0 b && check_changes b tests/corpus/70-survey-5.24.0.expected || rc=1
if survey v5.24.0 v5.25.0 c && check_changes c tests/corpus/70-survey-5.25.0.expected; then
    "$PGCI" survey -C "$ws" --from v5.24.0 --to v5.25.0 --source "dir:$tmp/tags/{tag}" \
        --ruff "$RUFF" -q > "$tmp/c.txt" || true
    grep -q "^24 of 29 configs fail to regenerate against v5.25.0, 24 of them against v5.24.0 too (not the bump's);" "$tmp/c.txt" &&
        grep -q "24 fail to regenerate against v5.25.0 (24 of them against v5.24.0 too" "$tmp/c.report/report.md" ||
        { echo "the standing failures are not counted as such:"; tail -n 1 "$tmp/c.txt"; rc=1; }
else
    rc=1
fi
for v in v5.9.0 v5.16.1; do
    survey $v $v same || { rc=1; continue; }
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$tmp/same.json")
    echo "  a survey of $v against itself: $n findings"
    [ "$n" = 0 ] || rc=1
done
exit $rc
