#!/usr/bin/env bash
# The GitHub workflows parse as YAML and every `bin/pgci` command and option they
# use exists in `pgci <command> --help`: a renamed flag breaks this test, not a night.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 tests/tools/check_workflows.py "$PGCI" .github/workflows/*.yml .github/workflows/examples/*.yml

# the example's safety checks catch what they are for: each mutation is one problem
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/examples"
ex=.github/workflows/examples/veomni-pr.yml
mutate() { # NAME PYTHON-EXPR-ON-s EXPECTED-PROBLEM
    python3 -c "import sys; s=open(sys.argv[1]).read(); s=$2; open(sys.argv[2],'w').write(s)" "$ex" "$T/examples/$1.yml"
    if python3 tests/tools/check_workflows.py "$PGCI" "$T/examples/$1.yml" > "$T/$1.out"; then
        echo "workflows: the $1 mutation passed" >&2; exit 1
    fi
    grep -q "$3" "$T/$1.out" || { echo "workflows: $1: $(cat "$T/$1.out")" >&2; exit 1; }
}
mutate inject 's.replace("run: exit \"${STATUS:-2}\"", "run: exit ${{ steps.check.outputs.status }}")' "expands an expression"
mutate write 's.replace("    permissions:\n      contents: read\n    steps:", "    permissions:\n      contents: read\n      pull-requests: write\n    steps:", 1)' "runs pgci check (the PR's code) with a write token"
mutate branch 's.replace("PGCI_REF: v0.1.0", "PGCI_REF: main")' "PGCI_REF must pin"
mutate target 's.replace("  pull_request:\n", "  pull_request_target:\n  pull_request:\n")' "pull_request_target"
mutate author 's.replace(" &&\n                                            c.user && c.user.login === \x27github-actions[bot]\x27", "")' "marker and its author"
echo "workflows: the example's safety checks catch each mutation"
