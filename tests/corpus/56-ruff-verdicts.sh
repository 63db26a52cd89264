#!/usr/bin/env bash
# Issue 18: ruff's yes/no verdict without its fix loop where the fixes are certain
# (src/patchgen/normalize_prelint.c: the survey's look at tag A) is the fix loop's
# verdict, on real inputs: every config of veomni 0.1.12 and of veomni 0.1.11,
# regenerated raw (pgci regen --no-ruff) at the eleven transformers tags the
# corpus reads. The oracle is `ruff check --fix` run on each file alone, copied
# into a fresh temporary directory, from the workspace's root with patchgen's
# ignore list, as patchgen runs it: exit 0 accepts the file, 1 refuses it. pgci's
# verdicts come from one batch (tests/tools/ruff_verdicts.c), which also says how
# many files one lint settled: a run where none was would prove nothing.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
VERDICTS=$repo/${PGCI_BUILD:-build}/tests/tools/ruff_verdicts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$VERDICTS" ] || fail "$VERDICTS not built (make corpus-test builds it)"

ws12=$(veomni_sdist 0.1.12) || exit 1
ws11=$(veomni_models_ws 0.1.11 "$tmp/veomni-0.1.11") || exit 1
files=0 settled=0 refused=0 status=0
for ws in "$ws12" "$ws11"; do
    read -r ignore isolated < <(python3 - "$ws/pyproject.toml" <<'PY'
import sys, tomllib
pg = tomllib.load(open(sys.argv[1], "rb")).get("tool", {}).get("patchgen", {})
print(",".join(pg.get("ruff_extra_ignore", [])) or "-", 1 if pg.get("ruff_isolated") else 0)
PY
    )
    all=E402,B007
    [ "$ignore" = - ] || all=$all,$ignore
    iso=
    [ "$isolated" = 1 ] && iso=--isolated
    for v in 5.2.0 5.9.0 5.10.4 5.12.1 5.14.1 5.16.1 5.18.0 5.20.2 5.22.2 5.24.0 5.25.0; do
        tf=$(corpus_wheel transformers "$v") || exit 1
        raw=$tmp/raw-$(basename "$ws")-$v
        # configs that do not regenerate at this tag write nothing: the others count
        "$PGCI" regen -C "$ws" --tag "v$v" --source "dir:$tf" --no-ruff --no-cache -q -o "$raw" \
            --write >/dev/null 2>&1
        set -- "$raw"/*.py
        [ -e "$1" ] || continue
        "$VERDICTS" "$RUFF" "$ws" "$ignore" "$isolated" "$@" > "$tmp/got" ||
            fail "ruff_verdicts at $v: $(cat "$tmp/got")"
        for f in "$@"; do
            d=$(mktemp -d)
            cp "$f" "$d/"
            if (cd "$ws" && "$RUFF" check --fix --quiet --no-cache $iso --ignore "$all" \
                "$d/$(basename "$f")") >/dev/null 2>&1; then
                want=accepted
            else
                want=refused
                refused=$((refused + 1))
            fi
            rm -rf "$d"
            grep -qxF "$want $f" "$tmp/got" ||
                { echo "$(basename "$ws") $v: $(basename "$f"): the fix loop: $want; pgci: $(grep -F " $f" "$tmp/got")"; status=1; }
            files=$((files + 1))
        done
        n=$(sed -n 's/^settled by one lint: \([0-9]*\) of [0-9]*$/\1/p' "$tmp/got")
        settled=$((settled + ${n:-0}))
    done
done
echo "ruff verdicts: $files files ($refused refused by the fix loop), $settled settled by one lint;" \
    "$([ "$status" = 0 ] && echo every verdict equal to the fix loop\'s || echo some differ)"
[ "$files" -gt 0 ] && [ "$settled" -gt 0 ] || fail "no file was settled by one lint"
exit "$status"
