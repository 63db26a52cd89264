#!/usr/bin/env bash
# Corpus: every patch config of the real veomni 0.1.12 distribution
# (veomni/models/transformers/*/*_patch_gen_config.py, package_prefix
# veomni.models.transformers., search_root veomni/models/transformers) evaluated by
# pgci's static config evaluator, without Python:
#  1. every config evaluates without error;
#  2. its patches (type, target, replacement name, description), in registration
#     order, are what Python's own parser finds in the config's syntax tree
#     (tests/corpus/config_ast.py: no import, no torch);
#  3. and, the strongest check, the whole PatchConfig is field by field what the
#     real patchgen (veomni 0.1.11's veomni/patchgen) builds when it imports the
#     config, with every non-patchgen import stubbed (tests/oracle/config_dump.py):
#     lines of every replacement and helper as inspect reports them included.
set -eu
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
BUILD=${PGCI_BUILD:-build}
TOOL=$BUILD/tests/tools/config_dump
[ -x "$TOOL" ] || make -s BUILD="$BUILD" "$TOOL"
CORPUS=$(corpus_wheel veomni 0.1.12)
ORACLE=$(corpus_wheel veomni 0.1.11)
SEARCH=veomni/models/transformers
PREFIX=veomni.models.transformers.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configs=("$CORPUS/$SEARCH"/*/*_patch_gen_config.py)
echo "${#configs[@]} configs in veomni 0.1.12"

t0=$(date +%s%N)
rc=0
"$TOOL" --root "$CORPUS" --search-root "$SEARCH" --prefix "$PREFIX" "${configs[@]}" >"$tmp/pgci.jsonl" || rc=1
t1=$(date +%s%N)
python3 - "$tmp/pgci.jsonl" <<'PY' || rc=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
errors = [r for r in recs if "error" in r]
for r in errors:
    print(f"FAIL {r['file']}: {r['error']}")
patches = sum(len(r["config"]["patches"]) for r in recs if "config" in r)
print(f"{len(recs) - len(errors)}/{len(recs)} configs evaluated without error ({patches} patches)")
sys.exit(1 if errors else 0)
PY
echo "pgci evaluated them in $(( (t1 - t0) / 1000000 )) ms"
python3 tests/corpus/config_ast.py "$CORPUS/$SEARCH" "$PREFIX" "$tmp/pgci.jsonl" || rc=1
python3 tests/oracle/config_dump.py --patchgen "$ORACLE" --root "$CORPUS" --search-root "$SEARCH" \
    --prefix "$PREFIX" "${configs[@]}" >"$tmp/python.jsonl" || true
python3 tests/oracle/config_compare.py same "$tmp/python.jsonl" "$tmp/pgci.jsonl" | tail -n 1
python3 tests/oracle/config_compare.py same "$tmp/python.jsonl" "$tmp/pgci.jsonl" >/dev/null || {
    python3 tests/oracle/config_compare.py same "$tmp/python.jsonl" "$tmp/pgci.jsonl" | grep -A1 '^FAIL'
    rc=1
}
exit $rc
