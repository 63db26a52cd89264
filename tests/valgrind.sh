#!/usr/bin/env bash
# make valgrind: the main commands end to end under valgrind's memcheck (leaks
# included), on the demo workspace. Any error or definite leak fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
PGCI=${PGCI:-bin/pgci}
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg # the result cache: cold on the first check, warm on the second
fails=0
vg() {
    local name=$1
    shift
    local rc=0
    timeout -k 10 "${PGCI_TEST_TIMEOUT:-600}" valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --suppressions=tests/valgrind.supp \
        "$PGCI" "$@" > "$T/$name.out" 2> "$T/$name.err" || rc=$?
    if [ "$rc" = 99 ]; then
        echo "valgrind: $name: memory errors" >&2
        cat "$T/$name.err" >&2
        fails=$((fails + 1))
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "valgrind: $name: timed out after ${PGCI_TEST_TIMEOUT:-600}s" >&2
        tail -n 20 "$T/$name.err" >&2
        fails=$((fails + 1))
    else
        echo "ok    valgrind $name (exit $rc)"
    fi
}
vg check check -C fixtures/workspace --ruff "$RUFF" --run-json "$T/run.json" -j 2
vg check-warm check -C fixtures/workspace --ruff "$RUFF" -j 2
vg check-structural check -C fixtures/workspace --no-ruff --allow-skip drift
vg survey survey -C fixtures/workspace --ruff "$RUFF" --run-json "$T/survey.json" -j 2
vg report report --in "$T/survey.json" --format md,html,sarif,github,comment -o "$T/r"
vg regen regen -C fixtures/workspace --ruff "$RUFF" --diff
vg list list -C fixtures/workspace --format json
vg names names fixtures/workspace/demo/models/llama/generated/patched_modeling_llama_gpu.py
vg index index --file fixtures/upstream/v1.1.0/transformers/models/qwen3_moe/modeling_qwen3_moe.py --json
vg fetch fetch -C fixtures/workspace --tag v1.0.0 --tag v1.1.0 --no-cache
vg logits logits --toy fixtures/toy_config/llama_tiny --device cpu
vg run run -C fixtures/workspace --ruff "$RUFF" -o "$T/out" --no-logits
echo "$((12 - fails)) passed, $fails failed"
[ "$fails" = 0 ]
