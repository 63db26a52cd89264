#!/usr/bin/env bash
# The pin-bump survey on real data: the VeOmni configs (veomni 0.1.12 from the
# registry) between real transformers releases from the registry.
#  - 5.9.0 (their pin) -> 5.16.1: the error-level changes are exactly the reviewed
#    ones in 70-survey-5.16.1.expected (each read against both upstream sources,
#    docs/survey.md), the Markdown note fits 3,000 words outside <details>;
#  - 5.16.1 -> 5.24.0 (the newest release when it was written, a pair the fixtures
#    were not written for): the error-level changes are the reviewed ones in
#    70-survey-5.24.0.expected (docs/survey.md: the hand review and its precision),
#    and the reviewed warnings of 70-survey-5.24.0.reviewed are each named (5.18.0's
#    one_hot fix under the replaced `*Experts` classes);
#  - 5.22.2 -> 5.24.0 (the adjacent pair the fourth review read): the reviewed
#    error-level changes in 70-survey-5.22.2-5.24.0.expected;
#  - 5.24.0 -> 5.25.0 (the newest release when it was added): the reviewed error in
#    70-survey-5.25.0.expected, and the 24 configs that fail against both tags are
#    counted as such in both summaries (not the bump's, no finding);
#  - 5.2.0 -> 5.9.0 on veomni 0.1.11's configs (pinned 5.2.0), the real bump VeOmni
#    made in commit 2d36580b: the reviewed errors in 70-survey-5.9.0.expected, and
#    recall against the upstream facts its maintainers acted on, 70-survey-5.9.0.recall;
#  - 5.9.0 -> 5.10.4 (their pin to the next release): the reviewed errors in
#    70-survey-5.10.4.expected; the arguments 5.10 dropped behind
#    `@deprecate_kwarg` are one finding each (every pair: never a signature change
#    and a deprecation of one argument);
#  - a survey of a tag against itself reports nothing at all.
# Prints the counts (errors, warnings, changes) the README quotes.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$(veomni_sdist 0.1.12) || exit 1
mkdir -p "$tmp/tags"
for v in 5.2.0 5.9.0 5.10.4 5.16.1 5.22.2 5.24.0 5.25.0; do
    d=$(corpus_wheel transformers $v) || exit 1
    ln -s "$d" "$tmp/tags/v$v"
done
# veomni 0.1.11 (its configs are those of 2d36580b^), with the [tool.patchgen] table
# that release did not have yet
ws11=$(veomni_models_ws 0.1.11 "$tmp/veomni-0.1.11") || exit 1
rc=0

# survey FROM TO NAME: runs the survey (on $sws, veomni 0.1.12 unless set), renders
# the note, prints the counts. PGCI_VERIFY_OBJECT_VIEWS: every patch body read in its
# config file's tree is read again from a parse of its lines alone, and the run
# aborts (exit 134) where the two differ
survey() {
    local t0 t1 st=0
    t0=$(date +%s.%N)
    PGCI_VERIFY_OBJECT_VIEWS=1 "$PGCI" survey -C "${sws:-$ws}" --from "$1" --to "$2" --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
        --format json --run-json "$tmp/$3.json" > "$tmp/$3.findings.json" 2> "$tmp/$3.err" || st=$?
    t1=$(date +%s.%N)
    echo "pgci survey veomni ${sver:-0.1.12} configs, transformers $1 -> $2: exit $st in $(echo "$t1 - $t0" | bc)s"
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
# one fact, one finding: an argument the signature check reports dropped or renamed
# is not also reported deprecated (the @deprecate_kwarg shim is in that finding)
sig = {(f["config"], f["data"].get("target"), f["data"].get("parameter"))
       for f in run["findings"] if f["data"].get("kind") in ("param-removed", "param-renamed")}
twice = [f["title"] for f in run["findings"] if f["data"].get("kind") == "kwarg-deprecated" and
         (f["config"], f["data"].get("target"), f["data"].get("parameter")) in sig]
assert not twice, "reported as a signature change and a deprecation: " + "; ".join(twice[:3])
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

# check_recall NAME RECALL [WHAT]: every fact the maintainers acted on that the list says
# the survey names or points at has its finding (kind and target, and the words of the
# optional fifth column in its title); prints the recall, against WHAT (the
# maintainers' bump unless given)
check_recall() {
    local what=${3:-"the maintainers' bump"}
    python3 - "$tmp/$1.json" "$2" "$what" <<'PY'
import collections, json, sys
run = json.load(open(sys.argv[1]))
titles = collections.defaultdict(list)
for f in run["findings"]:
    if f.get("data"):
        titles[(f["data"].get("kind"), f["data"].get("target"))].append(f["title"])
counts, bad = collections.Counter(), []
for line in open(sys.argv[2]).read().splitlines():
    if not line or line.startswith("#"):
        continue
    fact, how, kind, target, *words = line.split("\t")
    counts[how] += 1
    if how == "missed":
        continue
    got = titles.get((kind, target), [])
    if not got:
        bad.append(f"{fact}: no {kind} finding on {target}")
    elif words and not any(all(w in t for w in words[0].split()) for t in got):
        bad.append(f"{fact}: no {kind} finding on {target} names {words[0]}")
total = sum(counts.values())
print(f"  recall against {sys.argv[3]}: {counts['named']} of {total} facts named, "
      f"{counts['pointed']} pointed at (the override's upstream body changed), {counts['missed']} missed")
for b in bad:
    print("  not found: " + b)
sys.exit(1 if bad else 0)
PY
}

sws=$ws11 sver=0.1.11 survey v5.2.0 v5.9.0 d && check_changes d tests/corpus/70-survey-5.9.0.expected &&
    check_recall d tests/corpus/70-survey-5.9.0.recall || rc=1
survey v5.9.0 v5.16.1 a && check_changes a tests/corpus/70-survey-5.16.1.expected || rc=1
survey v5.9.0 v5.10.4 e && check_changes e tests/corpus/70-survey-5.10.4.expected || rc=1
survey v5.16.1 v5.24.0 b && check_changes b tests/corpus/70-survey-5.24.0.expected &&
    check_recall b tests/corpus/70-survey-5.24.0.reviewed "the reviewed warnings" || rc=1
survey v5.22.2 v5.24.0 f && check_changes f tests/corpus/70-survey-5.22.2-5.24.0.expected || rc=1
if survey v5.24.0 v5.25.0 c && check_changes c tests/corpus/70-survey-5.25.0.expected; then
    "$PGCI" survey -C "$ws" --from v5.24.0 --to v5.25.0 --source "dir:$tmp/tags/{tag}" \
        --ruff "$RUFF" -q > "$tmp/c.txt" || true
    grep -q "^24 of 29 configs fail to regenerate against v5.25.0, 24 of them against v5.24.0 too (not the bump's);" "$tmp/c.txt" &&
        grep -q "24 fail to regenerate against v5.25.0 (24 of them against v5.24.0 too" "$tmp/c.report/report.md" ||
        { echo "the standing failures are not counted as such:"; tail -n 1 "$tmp/c.txt"; rc=1; }
else
    rc=1
fi
for v in v5.2.0 v5.9.0 v5.16.1 v5.22.2; do
    if [ $v = v5.2.0 ]; then sws=$ws11 sver=0.1.11 survey $v $v same || { rc=1; continue; }
    else survey $v $v same || { rc=1; continue; }; fi
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$tmp/same.json")
    echo "  a survey of $v against itself: $n findings"
    [ "$n" = 0 ] || rc=1
done
exit $rc
