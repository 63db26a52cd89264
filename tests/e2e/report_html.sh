#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium loads the self-contained
# page from disk, and the DOM it built has the expected headings and table rows.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/chromium.sh
SAMPLE=${PGCI_BUILD:-build}/tests/tools/sample_run
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CHROMIUM=$(pgci_chromium)

"$SAMPLE" 8 > "$T/run.json"
"$PGCI" report --in "$T/run.json" --format html -o "$T"
# self-contained: nothing to fetch from the network
if grep -Eq '(src|href)="(https?:)?//' "$T/report.html"; then
    echo "report.html refers to the network" >&2
    exit 1
fi
chromium_run "$CHROMIUM" --dump-dom "file://$T/report.html" > "$T/dom.html"
python3 - "$T/dom.html" <<'PY'
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.h, self.rows, self.cur = [], [], 0, None
    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2"):
            self.cur = [tag, ""]
        if tag == "tr":
            self.rows += 1
    def handle_endtag(self, tag):
        if self.cur and tag == self.cur[0]:
            self.h.append(tuple(self.cur)); self.cur = None
    def handle_data(self, d):
        if self.cur: self.cur[1] += d

p = P()
p.feed(open(sys.argv[1]).read())
heads = [t for _, t in p.h]
want = ["Patchgen drift report", "Finding the drift", "Drift from the checked-in files",
        "Undefined and redefined names", "Patch targets", "Deprecations", "Configs",
        "Verification", "Follow-ups"]
assert heads == want, heads
# 4 checks + header, 3 configs + header
assert p.rows == 5 + 4, p.rows
print("report_html: chromium built", len(heads), "headings and", p.rows, "table rows")
PY
