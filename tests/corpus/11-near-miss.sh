#!/usr/bin/env bash
# Corpus: the targets check's "did you mean" suggestions read names-only indexes
# (index_module_build_names); over every transformers/models/*/modeling_*.py of the
# transformers 5.9.0 wheel (the registry's, cached outside the repository) they
# must hold the same definitions and members, in the same order, refuse the same
# modules, and suggest exactly what full indexes suggest for targets made from every
# definition's and member's name by one and two edits (tests/tools/names_cmp.h).
# Skips when the wheel cannot be had.
set -u
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
build=${PGCI_BUILD:-build}
tool=$build/tests/tools/names_cmp
[ -x "$tool" ] || { echo "FAIL: $tool not built (make $tool)"; exit 1; }
if ! dir=$(corpus_wheel transformers 5.9.0); then
    echo "SKIP: the transformers 5.9.0 wheel is not available"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls "$dir"/transformers/models/*/modeling_*.py >"$tmp/files"
n=$(wc -l <"$tmp/files")
[ "$n" -gt 100 ] || { echo "FAIL: only $n modeling files in transformers 5.9.0"; exit 1; }
if ! "$tool" --files-from "$tmp/files" >"$tmp/out"; then
    echo "FAIL: names-only and full indexes differ"
    exit 1
fi
grep -q "^$n files (0 refused" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; exit 1; }
echo "ok: transformers 5.9.0: $(cat "$tmp/out")"

# The real VeOmni tree (veomni 0.1.12 sdist) with typos put into its configs'
# targets (a method misspelt, __init__ as __int__, letters added or lost): the gate's
# "did you mean" findings, cold at -j1 and -j2 and warm from the cache, are the ones
# recorded in 11-near-miss.expected, which full indexes gave (pgci before
# names-only indexes, commit 4c45c8c). The Qwen3-Omni NPU config extends the GPU
# config's PatchConfig: its four suggestions are at the GPU file's lines, where
# the patches are registered (they named the NPU file, 55 lines, with those lines
# until the twenty-ninth session).
. tests/corpus/veomni_ws.sh
PGCI=${PGCI:-bin/pgci}
if ! ws=$(veomni_sdist 0.1.12); then
    echo "SKIP: the veomni 0.1.12 sdist is not available"
    exit 0
fi
cp -R "$ws" "$tmp/ws"
python3 - "$tmp/ws" <<'PY'
import glob, re, sys
for f in sorted(glob.glob(sys.argv[1] + "/veomni/models/transformers/*/*_patch_gen_config.py")):
    s = open(f).read()
    s = re.sub(r'"([A-Za-z0-9]+)\.forward"', r'"\1.fowrard"', s, count=1)
    s = re.sub(r'"([A-Za-z0-9]+)\.__init__"', r'"\1.__int__"', s, count=1)
    s = re.sub(r'"([A-Za-z0-9]+)\.([a-z_]{6,})"', r'"\1.\2x"', s, count=2)
    s = re.sub(r'target="([A-Za-z0-9_]{4,})[A-Za-z0-9_]"', r'target="\1z"', s, count=1)
    open(f, "w").write(s)
PY
near() {
    python3 -c '
import json, sys
for f in json.load(open(sys.argv[1])):
    if f["check"] == "targets" and "did_you_mean" in f["data"]:
        print(f["path"], f["line"], f["severity"], f["data"]["target"], f["data"]["did_you_mean"])
' "$1"
}
status=0
for run in "-j1 --no-cache" "-j2 --no-cache" "-j2 --cache-dir $tmp/cache" "-j1 --cache-dir $tmp/cache"; do
    # shellcheck disable=SC2086
    "$PGCI" check -C "$tmp/ws" --tag v5.9.0 --source "dir:$dir" --no-ruff $run --format json \
        >"$tmp/gate.json" 2>"$tmp/gate.err"
    near "$tmp/gate.json" >"$tmp/near"
    if ! diff -u tests/corpus/11-near-miss.expected "$tmp/near"; then
        echo "FAIL: check ${run%% --cache-dir*}: other suggestions than full indexes gave"
        status=1
    fi
done
[ $status -eq 0 ] && echo "ok: typos in the VeOmni tree: $(wc -l <"$tmp/near") suggestions, as full indexes gave, cold and warm, -j1 and -j2"
exit $status
