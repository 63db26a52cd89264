#!/usr/bin/env bash
# The real patchgen on the real tree: veomni 0.1.11's generator (the one pgci
# reproduces, from the registry) run over veomni 0.1.12's 29 configs at
# transformers 5.9.0, the configs' heavy imports (torch, transformers, VeOmni's
# runtime) stubbed by tests/corpus/patchgen_stubbed.py, against `pgci regen
# --no-ruff` (raw codegen, with and without the result cache): every raw output
# byte-identical. Then at transformers 5.25.0 (the newest release when it was
# added), where patchgen refuses the two qwen3_5 configs (their positioned helper's
# anchor is gone): pgci refuses exactly the configs patchgen refuses, and writes
# the same bytes for every other.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
export PYTHONDONTWRITEBYTECODE=1
# every incremental re-parse of a class (src/py/reparse.c) is checked against a fresh parse
export PGCI_VERIFY_REPARSE=1
tf=$(corpus_wheel transformers 5.9.0) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg
corpus_patchgen "$tmp/pg" || exit 1
python3 tests/corpus/patchgen_stubbed.py "$tmp/pg" "$ws" "$tf" "$tmp/patchgen" >"$tmp/n" 2>"$tmp/err" ||
    { echo "FAIL: the real patchgen did not run:"; tail -5 "$tmp/err"; exit 1; }
status=0
for run in --no-cache cold warm; do
    arg=; [ "$run" = --no-cache ] && arg=--no-cache
    rm -rf "$tmp/pgci"
    "$PGCI" regen -C "$ws" --tag v5.9.0 --source "dir:$tf" --no-ruff $arg -o "$tmp/pgci" --write -q ||
        { echo "FAIL: pgci regen"; exit 1; }
    ok=0 n=0
    for f in "$tmp"/patchgen/*.py; do
        n=$((n + 1))
        cmp -s "$f" "$tmp/pgci/$(basename "$f")" && ok=$((ok + 1))
    done
    echo "real patchgen vs pgci regen --no-ruff (${run#--}): $ok/$n raw outputs byte-identical"
    [ "$ok" = "$n" ] && [ "$n" = "$(cat "$tmp/n")" ] && [ "$n" -gt 0 ] || status=1
done

# the newest release: the same outputs, and the same refusals
tf25=$(corpus_wheel transformers 5.25.0) || exit 1
: >"$tmp/refused"
python3 tests/corpus/patchgen_stubbed.py "$tmp/pg" "$ws" "$tf25" "$tmp/pg25" "$tmp/refused" >"$tmp/n25" 2>"$tmp/err" ||
    { echo "FAIL: the real patchgen did not run at 5.25.0:"; tail -5 "$tmp/err"; exit 1; }
rc=0
"$PGCI" regen -C "$ws" --tag v5.25.0 --source "dir:$tf25" --no-ruff --no-cache -o "$tmp/pgci25" --write -q \
    >"$tmp/out25" 2>"$tmp/err25" || rc=$?
refused=$(cut -f1 "$tmp/refused" | sort)
pgci_refused=$(grep -o '^pgci: error: [^:]*' "$tmp/err25" | sed 's/^pgci: error: //' | sort)
ok=0 n=0
for f in "$tmp"/pg25/*.py; do
    n=$((n + 1))
    cmp -s "$f" "$tmp/pgci25/$(basename "$f")" && ok=$((ok + 1))
done
written=$(find "$tmp/pgci25" -name '*.py' | wc -l)
echo "real patchgen vs pgci regen --no-ruff at 5.25.0: $ok/$n raw outputs byte-identical; patchgen refused $(grep -c '' "$tmp/refused"), pgci $(grep -c . <<<"$pgci_refused") (exit $rc)"
if [ "$ok" != "$n" ] || [ "$n" != "$(cat "$tmp/n25")" ] || [ "$written" != "$n" ] || [ "$n" -eq 0 ] ||
    [ "$refused" != "$pgci_refused" ] || { [ -n "$refused" ] && [ "$rc" = 0 ]; }; then
    echo "FAIL: patchgen refused:"; sed 's/^/  /' "$tmp/refused"
    echo "      pgci refused:"; sed 's/^/  /' "$tmp/err25"
    status=1
fi
exit $status
