# The preamble of the corpus tests that read the VeOmni workspaces, sourced from the
# repository root (`cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh`): repo,
# the registry helpers (lib.sh, veomni_ws.sh), and the pgci and ruff they run
# (PGCI and PGCI_RUFF override them).
repo=$PWD
. tests/corpus/lib.sh
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-$repo/bin/pgci}
RUFF=${PGCI_RUFF:-$repo/${PGCI_BUILD:-build}/deps/ruff}
