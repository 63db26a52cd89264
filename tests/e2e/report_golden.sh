#!/usr/bin/env bash
# Golden reports: a check and a survey of the demo workspace, rendered to every
# format, compared with the reviewed files in tests/e2e/expected/golden/. A change
# in wording is a reviewed change of those files: regenerate them with
#   PGCI_UPDATE_GOLDEN=1 make e2e
# and read the diff before committing. The repository's location is written as
# <repo> and the pinned ruff as `ruff`, so the files do not depend on where the clone
# or the build lives.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
G=tests/e2e/expected/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# a temporary directory of another length than usual: no report may depend on it
# (ruff's messages once got cut at a place that moved with it)
mkdir -p "$T/a-temporary-directory-with-a-rather-long-name"
export TMPDIR=$T/a-temporary-directory-with-a-rather-long-name

"$PGCI" check -C fixtures/workspace --ruff "$RUFF" --run-json "$T/check.json" > /dev/null
"$PGCI" survey -C fixtures/workspace --ruff "$RUFF" --from v1.0.0 --to v1.1.0 \
    --run-json "$T/survey.json" > /dev/null || true
for run in check survey; do
    "$PGCI" report --in "$T/$run.json" --format md,json,html,sarif,github,comment -o "$T/$run"
    for f in "$T/$run"/*; do
        sed -e "s#$RUFF#ruff#g" -e "s#$PWD#<repo>#g" "$f" > "$f.norm"
        mv "$f.norm" "$f"
    done
done
if [ -n "${PGCI_UPDATE_GOLDEN:-}" ]; then
    rm -rf "$G"
    mkdir -p "$G"
    cp -r "$T/check" "$T/survey" "$G/"
    echo "golden files rewritten in $G: review the diff"
    exit 0
fi
diff -ru "$G/check" "$T/check"
diff -ru "$G/survey" "$T/survey"
echo "report golden: ok"
