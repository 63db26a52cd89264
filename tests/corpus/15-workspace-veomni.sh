#!/usr/bin/env bash
# pgci's workspace reading on a real workspace: the veomni 0.1.12 source
# distribution from the Python package registry (its pyproject.toml and 29
# *_patch_gen_config.py). Checks, against Python: tomllib reads the same
# [tool.patchgen], `pgci list` gives exactly the modules of patchgen's rule
# (sorted(rglob) + package_prefix), and the pin is the one in its dependency group.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
PGCI=${PGCI:-$PWD/bin/pgci}

dir="$PGCI_CORPUS_CACHE/veomni-0.1.12-sdist"
if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir" "$dir.part"
    mkdir -p "$dir.part"
    python3 -m pip download --quiet --no-deps --no-binary :all: veomni==0.1.12 -d "$dir.part/dl" \
        >/dev/null 2>&1 || { echo "cannot download the veomni==0.1.12 sdist" >&2; exit 1; }
    tar xzf "$dir.part"/dl/veomni-0.1.12.tar.gz -C "$dir.part"
    rm -rf "$dir.part/dl"
    touch "$dir.part/.done"
    mv "$dir.part" "$dir"
fi
ws="$dir/veomni-0.1.12"

got=$("$PGCI" list -C "$ws")
want=$(cd "$ws" && python3 -c '
import tomllib
from pathlib import Path
pg = tomllib.load(open("pyproject.toml", "rb"))["tool"]["patchgen"]
root = Path(pg["search_root"])
for p in sorted(root.rglob("*_patch_gen_config.py")):
    if not p.name.startswith("_"):
        print(".".join((pg["package_prefix"], *p.relative_to(root).with_suffix("").parts)))')
if [ "$got" != "$want" ]; then
    diff <(echo "$want") <(echo "$got") >&2 || true
    echo "FAIL: pgci list differs from patchgen's discovery rule" >&2
    exit 1
fi
n=$(echo "$got" | wc -l)
[ "$n" -ge 20 ] || { echo "FAIL: only $n configs found" >&2; exit 1; }

pin=$("$PGCI" list -C "$ws" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pin"])')
want_pin=$(cd "$ws" && python3 -c '
import tomllib
d = tomllib.load(open("pyproject.toml", "rb"))
pins = {r.split("==")[1].strip() for g in d.get("dependency-groups", {}).values() for r in g
        if isinstance(r, str) and r.replace(" ", "").startswith("transformers==")}
assert len(pins) == 1, pins
print(pins.pop())')
[ "$pin" = "$want_pin" ] || { echo "FAIL: pin $pin, expected $want_pin" >&2; exit 1; }
echo "veomni 0.1.12: $n configs in patchgen's order, pin transformers==$pin"
