#!/usr/bin/env bash
# Hostile strings: the golden check and survey runs, and a check run with a
# verification section, with every string value that is not an enum replaced by
# Markdown and HTML that would be live if written raw (a backtick to end a code
# span, <img onerror>, <script>, a javascript: link, newlines). Every format is
# rendered; report.html, and report.md and comment.md through cmark with raw HTML
# kept (as GitHub renders them), hold no live tag or on* attribute but the payload
# as text; each annotation is one line; the SARIF is JSON.
set -euo pipefail
cd "$(dirname "$0")/../.."
MD_HTML=${PGCI_BUILD:-build}/tests/tools/md_html
G=tests/e2e/expected/golden
T=$(mktemp -d)
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT

python3 - "$G/check/run.json" "$G/survey/run.json" "$T" <<'PY'
import json, sys
PAYLOAD = "a`<img src=x onerror=alert(1)>`b*_|\\\n<script>x</script>[l](javascript:1)&amp;"
# members that must stay what they are for the document to load or mean a run
KEEP = {"schema", "command", "severity", "status", "how", "tree", "copy", "sha256", "kind"}
def hostile(v, key=None):
    if isinstance(v, dict):
        return {k: (x if k in KEEP else hostile(x, k)) for k, x in v.items()}
    if isinstance(v, list):
        return [hostile(x, key) for x in v]
    if isinstance(v, str):
        return PAYLOAD
    return v
check, survey, out = sys.argv[1], sys.argv[2], sys.argv[3]
docs = {"check": json.load(open(check)), "survey": json.load(open(survey))}
verify = json.load(open(check))
suite = {"name": "s", "status": "failed", "reason": "r", "gpu": False, "argv": ["x"],
         "cwd": "c", "exit_status": 1, "tests": 2, "passed": 0, "failed": 1, "errors": 0,
         "skipped": 1, "seconds": 1.0, "output_tail": "o",
         "cases": [{"classname": "k", "name": "n", "status": "failed", "message": "m",
                    "trace": "t", "seconds": 0.5},
                   {"classname": "k", "name": "n2", "status": "skipped", "message": "m",
                    "trace": None, "seconds": 0.0}]}
notrun = dict(suite, name="s2", status="not-run", cases=[], tests=0, failed=0, skipped=0)
verify["verification"] = {"tag": "v1.0.0", "tree": "scratch", "copy": "git", "python": "p",
                          "gpu": False, "regen": [{"config": "c", "status": "failed", "message": "m"}],
                          "suites": [suite, notrun]}
docs["verify"] = verify
for name, doc in docs.items():
    doc = hostile(doc)
    doc["inputs"]["files"] = [{"path": PAYLOAD, "sha256": "0" * 64}]
    json.dump(doc, open(f"{out}/{name}.json", "w"))
PY

for run in check survey verify; do
    "$PGCI" report --in "$T/$run.json" --format md,html,sarif,github,comment -o "$T/$run"
    "$MD_HTML" "$T/$run/report.md" > "$T/$run/report.md.html"
    "$MD_HTML" "$T/$run/comment.md" > "$T/$run/comment.md.html"
    python3 - "$T/$run" <<'PY'
import html.parser, json, sys
d = sys.argv[1]
class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad, self.text = [], []
    def handle_starttag(self, tag, attrs):
        if tag in ("img", "script", "iframe", "object", "embed", "svg"):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith("on") or (v or "").strip().lower().startswith("javascript:"):
                self.bad.append(f"{tag} {k}={v}")
    def handle_data(self, data):
        self.text.append(data)
for f in ("report.html", "report.md.html", "comment.md.html"):
    p = Tags()
    p.feed(open(f"{d}/{f}").read())
    assert not p.bad, (f, p.bad[:5])
    text = "".join(p.text)
    # the strings reached the page, as text
    assert "<img src=x onerror=alert(1)>" in text and "<script>x</script>" in text, f
for line in open(f"{d}/annotations.txt"):
    assert line.startswith("::"), line
json.load(open(f"{d}/report.sarif"))
PY
done
echo "report hostile strings: ok"
