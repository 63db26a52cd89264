#!/usr/bin/env bash
# Oracle: pgci's static config evaluator against the real patchgen. The real
# PatchConfig comes from the veomni 0.1.11 wheel on the Python package registry
# (whose veomni/patchgen/ holds the implementation), unpacked into the corpus cache
# outside the repository and loaded without the rest of veomni
# (tests/oracle/config_dump.py). Every hand-written fixture config — the demo
# workspace's, the code generator's feature configs (fixtures/patchgen) and
# fixtures/configs/cfgfix/basic — must give the same PatchConfig on
# both sides, field by field: patches (type, target, replacement name, module,
# file, first and last line as inspect reports them, description, name_map),
# imports, blocks, helpers, positioned helpers, dropped names, exclusions. Every
# config of fixtures/configs/cfgfix/errors must fail on both sides. Then the same on
# randomly generated configs (tests/oracle/config_gen.py: every construct, comment
# and blank-line placements around defs, tabs, CRLF, classes defined twice...):
# CONFIG_ORACLE_COUNT of them (default 200) per seed in CONFIG_ORACLE_SEEDS.
set -eu
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
build=${PGCI_BUILD:-build}
tool=$build/tests/tools/config_dump
[ -x "$tool" ] || { echo "missing $tool (built by make test / make unit)" >&2; exit 1; }
wheel=$(corpus_wheel veomni 0.1.11)
[ -f "$wheel/veomni/patchgen/patch_spec.py" ] || { echo "no veomni/patchgen in $wheel" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME MODE ROOT SEARCH_ROOT PREFIX FILES...
run() {
    local name=$1 mode=$2 root=$3 search=$4 prefix=$5
    shift 5
    echo "== $name"
    python3 tests/oracle/config_dump.py --patchgen "$wheel" --root "$root" --search-root "$search" \
        --prefix "$prefix" "$@" >"$tmp/$name.py.jsonl" || true
    "$tool" --root "$root" --search-root "$search" --prefix "$prefix" "$@" >"$tmp/$name.pgci.jsonl" || true
    python3 tests/oracle/config_compare.py "$mode" "$tmp/$name.py.jsonl" "$tmp/$name.pgci.jsonl"
}

echo "oracle: $(python3 --version), patchgen from veomni 0.1.11"
rc=0
run demo same fixtures/workspace demo/models demo.models \
    fixtures/workspace/demo/models/*/*_patch_gen_config.py || rc=1
# the code generator's feature configs (tests/oracle/patchgen.sh)
run features same fixtures/patchgen oracle/models oracle.models \
    fixtures/patchgen/oracle/models/*/*_patch_gen_config.py || rc=1
run basic same fixtures/configs cfgfix cfgfix fixtures/configs/cfgfix/basic/*_patch_gen_config.py \
    fixtures/configs/cfgfix/hostile/empty_value_name_map_patch_gen_config.py || rc=1
run errors fail fixtures/configs cfgfix cfgfix fixtures/configs/cfgfix/errors/*_patch_gen_config.py || rc=1
# -c picks another PatchConfig of the same file
run other same fixtures/configs cfgfix cfgfix -c other \
    fixtures/configs/cfgfix/basic/everything_patch_gen_config.py || rc=1
# generated configs
count=${CONFIG_ORACLE_COUNT:-200}
for seed in ${CONFIG_ORACLE_SEEDS:-1}; do
    python3 tests/oracle/config_gen.py "$count" "$seed" "$tmp/gen$seed"
    mapfile -t gen < <(ls "$tmp/gen$seed"/cfggen/gen_*_patch_gen_config.py | sort -V)
    if run "generated-seed$seed" same "$tmp/gen$seed" cfggen cfggen "${gen[@]}" >"$tmp/gen.log"; then
        head -n 1 "$tmp/gen.log"
        tail -n 1 "$tmp/gen.log"
    else
        grep -A1 '^FAIL' "$tmp/gen.log" | head -n 40
        tail -n 1 "$tmp/gen.log"
        rc=1
    fi
done
exit $rc
