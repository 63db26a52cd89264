#!/usr/bin/env bash
# Issue 15: the shell steps of .github/workflows/examples/veomni-pr.yml run against
# the demo workspace without act (tests/tools/run_workflow_steps.py): pgci "checked
# out" at tools/pgci is this build, the steps that install and build are skipped.
# A clean tree passes and leaves the summary, the annotations and the comment; a
# ruff version that disagrees with the lock stops the job with one clear error; an
# upstream that cannot be read fails the job with exit 2 and still leaves a
# comment saying the gate could not run.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
WF=.github/workflows/examples/veomni-pr.yml
ruff_version=$("$repo/${PGCI_BUILD:-build}/deps/ruff" --version | awk '{print $2}')

# setup NAME: the demo workspace as a VeOmni checkout, pgci at tools/pgci
setup() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1"
    cp -r fixtures/workspace "$T/$1/ws"
    cp -r fixtures/upstream "$T/$1/upstream"
    mkdir -p "$T/$1/ws/tools/pgci/bin" "$T/$1/ws/tools/pgci/build/deps"
    ln -s "$PGCI" "$T/$1/ws/tools/pgci/bin/pgci"
    ln -s "$repo/${PGCI_BUILD:-build}/deps/ruff" "$T/$1/ws/tools/pgci/build/deps/ruff"
    printf 'version = 1\n\n[[package]]\nname = "ruff"\nversion = "%s"\n' "$2" > "$T/$1/ws/uv.lock"
    W=$T/$1/ws
}
steps() { # NAME: runs the check job's steps in $W
    python3 tests/tools/run_workflow_steps.py "$WF" check "$W" \
        --skip "install build dependencies" --skip "build pgci" \
        --expr github.server_url=https://github.com --expr github.repository=o/veomni \
        --expr github.run_id=1 > "$T/$1.log" 2>&1
}

# a clean tree: the job succeeds, with the summary, annotations and the comment
setup clean "$ruff_version"
steps clean || fail "clean: $(cat "$T/clean.log")"
grep -q "^ok    pgci check (exit 0)" "$T/clean.log" || fail "clean: $(cat "$T/clean.log")"
grep -q "^not   fail on findings" "$T/clean.log" || fail "clean: the fail step ran"
grep -q '^# Patchgen drift report' "$W/.github_step_summary" || fail "no job summary"
head -n 1 "$W/pgci-report/comment.md" | grep -q '^<!-- pgci-report -->' || fail "no comment"
[ -f "$W/pgci-report/report.sarif" ] && [ -f "$W/pgci-report/run.json" ] || fail "reports missing"
echo "ok   clean tree: job succeeds; summary, comment, SARIF and run.json written"

# [tool.pgci] ruff_version disagrees with uv.lock: one clear error, the job stops
setup mismatch "$ruff_version"
sed -i 's/^# ruff_version = "0.13.2"$/ruff_version = "0.0.1"/' "$W/pyproject.toml"
grep -q '^ruff_version = "0.0.1"' "$W/pyproject.toml" || fail "fixture changed: update the test"
! steps mismatch || fail "mismatch: the job succeeded"
grep -q "::error file=pyproject.toml::\[tool.pgci\] ruff_version is 0.0.1 but uv.lock locks ruff $ruff_version" "$T/mismatch.log" ||
    fail "mismatch: $(cat "$T/mismatch.log")"
grep -q "^not   pgci check" "$T/mismatch.log" || fail "mismatch: pgci check ran"
# a lock the built ruff is not
setup stale 0.0.2
! steps stale || fail "stale ruff: the job succeeded"
grep -q "::error::ruff is $ruff_version, the workspace locks 0.0.2" "$T/stale.log" || fail "stale: $(cat "$T/stale.log")"
echo "ok   a ruff version that disagrees with the lock stops the job with one error"

# the upstream cannot be read: exit 2, the job fails, the comment says why
setup noup "$ruff_version"
rm -rf "$T/noup/upstream"
! steps noup || fail "no upstream: the job succeeded"
grep -q "^ok    pgci check (exit 0)" "$T/noup.log" || fail "noup: $(cat "$T/noup.log")"
grep -q "^FAIL  fail on findings, or when the gate could not run (exit 2)" "$T/noup.log" || fail "noup: $(cat "$T/noup.log")"
grep -q '^\*\*The gate could not run\*\*: ' "$W/pgci-report/comment.md" || fail "noup comment: $(head -3 "$W/pgci-report/comment.md")"
echo "ok   an upstream that cannot be read: the job fails with exit 2, the comment says the gate could not run"
