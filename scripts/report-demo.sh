#!/usr/bin/env bash
# make report-demo: runs pgci on the demo workspace, renders the HTML report, and
# has headless Chromium take a screenshot of it (out/report-demo/report.png).
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/tools/chromium.sh
OUT=out/report-demo
mkdir -p "$OUT"
set +e
"$PGCI" check -C fixtures/workspace --run-json "$OUT/run.json" >/dev/null
set -e
"$PGCI" report --in "$OUT/run.json" --format md,html -o "$OUT"
CHROMIUM=$(pgci_chromium)
chromium_run "$CHROMIUM" --window-size=1100,1400 --screenshot="$PWD/$OUT/report.png" \
    "file://$PWD/$OUT/report.html" >/dev/null
echo "report-demo: $OUT/report.md, $OUT/report.html, $OUT/report.png"
