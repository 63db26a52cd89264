#!/usr/bin/env bash
# Runs the whole suite: cmocka unit tests (the binaries given as arguments), the
# end-to-end scenarios (tests/e2e/*.sh, which drive $PGCI), the oracle tests
# (tests/oracle/*.sh: Python's difflib, the real patchgen, real ruff) and the fuzz
# smoke run. Prints one line per test file and closes with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
failed=()
log_dir=${PGCI_BUILD:-build}/test-logs
# the pinned ruff of this build directory (make asan and make tsan build their own,
# and may run on a fresh clone where build/ does not exist)
export PGCI_RUFF=${PGCI_RUFF:-$PWD/${PGCI_BUILD:-build}/deps/ruff}
mkdir -p "$log_dir"

# No test file runs longer than this (the slowest takes about two minutes under
# ThreadSanitizer): one that hangs fails, its log shown, instead of using up CI's
# time with nothing said.
limit=${PGCI_TEST_TIMEOUT:-600}

run_one() {
    local name=$1
    shift
    local log="$log_dir/$(basename "$name").log"
    local t0=$SECONDS rc=0
    timeout -k 10 "$limit" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        printf 'ok    %-44s %3ds\n' "$name" $((SECONDS - t0))
    else
        fail=$((fail + 1))
        failed+=("$name")
        local why=""
        [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why=", timed out after ${limit}s"
        printf 'FAIL  %-44s %3ds (log: %s%s)\n' "$name" $((SECONDS - t0)) "$log" "$why"
        tail -n 30 "$log" | sed 's/^/      /'
    fi
}

for t in "$@"; do run_one "unit/$(basename "$t")" "$t"; done
for t in tests/e2e/*.sh; do [ -f "$t" ] && run_one "e2e/$(basename "$t")" bash "$t"; done
for t in tests/oracle/*.sh; do [ -f "$t" ] && run_one "oracle/$(basename "$t")" bash "$t"; done
if [ -f tests/fuzz/run.sh ] && [ -z "${PGCI_NO_FUZZ:-}" ]; then
    run_one "fuzz-smoke" bash tests/fuzz/run.sh fuzz-smoke
fi

echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
