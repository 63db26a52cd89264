#!/usr/bin/env bash
# The GitHub workflows parse as YAML and every `bin/pgci` command and option they
# use exists in `pgci <command> --help`: a renamed flag breaks this test, not a night.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 tests/tools/check_workflows.py "$PGCI" .github/workflows/*.yml
