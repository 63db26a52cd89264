#!/usr/bin/env bash
# make report-demo: surveys the demo workspace (v1.0.0 -> v1.1.0), renders the HTML report, and
# has headless Chromium take a screenshot of it (out/report-demo/report.png).
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/tools/chromium.sh
OUT=out/report-demo
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
mkdir -p "$OUT"
# the survey of the demo between its two fixture tags: the richer report
set +e
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --from v1.0.0 --to v1.1.0 \
    --run-json "$OUT/run.json" >/dev/null
set -e
"$PGCI" report --in "$OUT/run.json" --format md,html -o "$OUT"
CHROMIUM=$(pgci_chromium)
chromium_run "$CHROMIUM" --window-size=1100,1400 --screenshot="$PWD/$OUT/report.png" \
    "file://$PWD/$OUT/report.html" >/dev/null
echo "report-demo: $OUT/report.md, $OUT/report.html, $OUT/report.png"
