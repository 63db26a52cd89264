#!/usr/bin/env bash
# pgci check and the generated files it compares and --fix writes: two configs
# writing one file, a deleted file whose model has a sibling, --fix without ruff,
# a --fix that cannot write everything, and a generated path that is not a
# plain file. Each is one clear line (or one "not fixed:" line), and nothing is
# written that the run does not report.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
LLAMA=demo/models/llama
LPY=$LLAMA/generated/patched_modeling_llama_gpu.py
LCFG=$LLAMA/llama_gpu_patch_gen_config.py
fail() { echo "FAIL: $*" >&2; exit 1; }

fresh() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1"
    cp -r fixtures/workspace "$T/$1/workspace"
    cp -r fixtures/upstream "$T/$1/upstream"
    W=$T/$1/workspace
}
# tree_sum: one line per file of the workspace with its hash
tree_sum() { (cd "$W" && find . -type f -exec sha256sum {} + | sort); }

# --- two configs writing one generated file --------------------------------------------
# a copy of the llama config under another name, one string changed: each config's
# regeneration would pass while the other drifts, and --fix would write one over
# the other run after run. One line naming both configs and the file, exit 2,
# nothing written (check, check --fix, regen --write)
fresh twice
L2=$LLAMA/llama2_gpu_patch_gen_config.py
sed 's/Llama with kernel hooks for the pgci demo/Llama, a second opinion/' "$W/$LCFG" > "$W/$L2"
! cmp -s "$W/$LCFG" "$W/$L2" || fail "the copy is not different"
tree_sum > "$T/twice.before"
for cmd in "check" "check --fix" "regen --write --diff"; do
    expect_fail 2 "^pgci: error: $L2 and $LCFG both write $LPY, so each regeneration overwrites the other's: give one of them another target_file$" \
        "$PGCI" $cmd -C "$W" --ruff "$RUFF"
done
tree_sum | cmp -s - "$T/twice.before" || fail "two configs on one file: something was written"
# sharded, each shard sees its own configs (llama2 in 1/2, llama in 2/2) and does
# not stop; the merge of the shards sees every config's output and fails the merged
# run with the unsharded gate's line: on stderr (exit 2, the reports written), as
# run.json's error and in the report
twice_line="$L2 and $LCFG both write $LPY, so each regeneration overwrites the other's: give one of them another target_file"
shards_twice() { # name
    local k rc
    for k in 1 2; do
        rc=0
        "$PGCI" check -C "$W" --ruff "$RUFF" --shard $k/2 --run-json "$T/$1-$k.json" > /dev/null 2>&1 || rc=$?
        [ "$rc" != 2 ] || fail "$1: shard $k/2 stopped by itself: the test does not split the two configs"
    done
    expect_fail 2 "^pgci: error: $twice_line$" \
        "$PGCI" report --merge "$T/$1-1.json" "$T/$1-2.json" --format json,md -o "$T/$1-merged"
    python3 - "$T/$1-merged/run.json" "$twice_line" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["error"] == sys.argv[2], run["error"]
assert "shard" not in run and len(run["configs"]) == 5, run["configs"]
PY
    grep -q '^\*\*The gate could not run\*\*: .*both write .*give one of them another target' "$T/$1-merged/report.md" ||
        fail "$1: the merged report does not say the gate could not run"
    # unsharded: the same line in run.json
    "$PGCI" check -C "$W" --ruff "$RUFF" --run-json "$T/$1-whole.json" > /dev/null 2>&1 || true
    python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["error"]; assert e == sys.argv[2], e' \
        "$T/$1-whole.json" "$twice_line"
}
shards_twice twice
# the same two as runs over named configs (`pgci check CONFIG`, one job each): the
# merge fails with the same line; each run alone passes
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" "$L2" --run-json "$T/named-1.json" > /dev/null 2>&1 || rc=$?
[ "$rc" != 2 ] || fail "check $L2 alone stopped"
"$PGCI" check -C "$W" --ruff "$RUFF" "$LCFG" --run-json "$T/named-2.json" > /dev/null 2>&1 || rc=$?
[ "$rc" != 2 ] || fail "check $LCFG alone stopped"
expect_fail 2 "^pgci: error: $twice_line$" \
    "$PGCI" report --merge "$T/named-1.json" "$T/named-2.json" --format json -o "$T/named-merged"
for f in named-1.json named-merged/run.json; do
    python3 tests/tools/validate_json.py docs/run.schema.json "$T/$f" > /dev/null || fail "$f: not run.schema.json's"
done
# the same file named another way ("./"): still one file
sed -i 's/target_file="patched_modeling_llama_gpu.py"/target_file=".\/patched_modeling_llama_gpu.py"/' "$W/$L2"
grep -q 'target_file="./patched' "$W/$L2" || fail "the ./ edit did not apply"
tree_sum > "$T/twice.before"
expect_fail 2 "^pgci: error: $L2 and $LCFG both write $LPY, " "$PGCI" check -C "$W" --ruff "$RUFF" --fix
tree_sum | cmp -s - "$T/twice.before" || fail "two configs on one file (./): something was written"
shards_twice twice-dot
echo "ok   two configs writing one file: one line naming both, exit 2, nothing written; across shards or named runs, the merge's line"

# --- a deleted generated file whose model has a sibling ---------------------------------
# check says --fix writes it; the protocol-siblings error that its absence causes
# ("not checked in while its sibling's ... is") must not stop --fix from writing it
fresh sibling
QPY=demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py
rm "$W/$QPY"
expect_fail 2 "generated file $QPY is missing \\(pgci check --fix writes it\\)" "$PGCI" check -C "$W" --ruff "$RUFF"
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" --fix > "$T/sibling.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--fix of a deleted file with a sibling: exit $rc: $(cat "$T/sibling.out")"
expect_grep "^  wrote $QPY$" "$T/sibling.out"
! grep -q "not fixed" "$T/sibling.out" || fail "--fix refused: $(cat "$T/sibling.out")"
cmp "$W/$QPY" "fixtures/workspace/$QPY" || fail "--fix wrote other bytes"
"$PGCI" check -C "$W" --ruff "$RUFF" > /dev/null || fail "not clean after --fix"
echo "ok   a deleted generated file with a sibling: --fix writes it back"

# --- --fix --no-ruff ----------------------------------------------------------------------
# the checked-in files are ruff's output: without ruff --fix has nothing to write,
# which is a usage error up front, not "1 drifted" with nothing written and no word
fresh noruff
echo "# drift" >> "$W/$LPY"
tree_sum > "$T/noruff.before"
expect_fail 2 "^pgci: error: check: --fix needs ruff: the checked-in files are ruff's output \\(drop --no-ruff, or pass --ruff CMD\\)$" \
    "$PGCI" check -C "$W" --fix --no-ruff
tree_sum | cmp -s - "$T/noruff.before" || fail "--fix --no-ruff wrote something"
echo "ok   --fix --no-ruff: a usage error, exit 2, nothing written"

# --- a --fix that cannot write everything ------------------------------------------------
# two configs drifted, the second one's generated/ not writable (as an unprivileged
# user: root writes anywhere): every target is checked before the first write, so
# the run stops in one line naming the file and why, and the first config's file
# is not rewritten either
QPY=demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    fresh partial
    echo "# drift" >> "$W/$LPY"
    echo "# drift" >> "$W/$QPY"
    cp "$RUFF" "$T/ruff-copy"
    chmod 755 "$T" "$T/partial" "$T/ruff-copy"
    chown -R 65534:65534 "$W"
    chmod a-w "$W/demo/models/qwen3/generated"
    tree_sum > "$T/partial.before"
    expect_fail 2 "^pgci: error: cannot write $QPY: .*/demo/models/qwen3/generated is not writable \\(Permission denied\\); nothing was written$" \
        env HOME="$T" TMPDIR=/tmp setpriv --reuid 65534 --regid 65534 --clear-groups \
        "$PGCI" check -C "$W" --ruff "$T/ruff-copy" --fix
    tree_sum | cmp -s - "$T/partial.before" || fail "an unwritable generated/: something was written"
    chmod u+w "$W/demo/models/qwen3/generated"
    echo "ok   an unwritable generated/: refused before the first write, nothing written"
else
    echo "skip an unwritable generated/ (needs root and setpriv to run as nobody)"
fi
# a write that fails although every check passed (a file-size limit that the
# llama file fits and the qwen3 one does not): the error says which file this run
# did rewrite, so it is not taken for untouched
fresh full
echo "# drift" >> "$W/$LPY"
echo "# drift" >> "$W/$QPY"
lsize=$(stat -c %s "fixtures/workspace/$LPY")
qsize=$(stat -c %s "fixtures/workspace/$QPY")
limit=$(((lsize + 1023) / 1024))
[ "$qsize" -gt $((limit * 1024)) ] || fail "the fixture sizes no longer suit this test ($lsize, $qsize)"
# a warm result cache: ruff's temporary files are not written under the limit
"$PGCI" check -C "$W" --ruff "$RUFF" --cache-dir "$T/full/cache" > /dev/null || true
rc=0
(ulimit -f $limit; "$PGCI" check -C "$W" --ruff "$RUFF" --cache-dir "$T/full/cache" --fix > "$T/full.out" 2> "$T/full.err") || rc=$?
[ "$rc" = 2 ] || fail "a write that fails: exit $rc: $(cat "$T/full.out" "$T/full.err")"
expect_grep "^pgci: error: cannot write .*$QPY: File too large; rewritten before it: $LPY; the other files are unchanged$" "$T/full.err"
cmp -s "$W/$LPY" "fixtures/workspace/$LPY" || fail "the llama file was not rewritten"
[ -z "$(find "$W" -name '*.pgci-tmp-*')" ] || fail "a temporary file was left"
echo "ok   a write that fails partway: the error lists what was rewritten"

# --- a generated path that is not a plain file: the real reason ---------------------------
# a .diff that is a symlink out of the workspace (as the .py: not "missing")
LDIFF=${LPY%.py}.diff
fresh diffsym
mv "$W/$LDIFF" "$T/diffsym/outside.diff"
ln -s "$T/diffsym/outside.diff" "$W/$LDIFF"
out_sum=$(sha256sum < "$T/diffsym/outside.diff")
real=$(cd "$T/diffsym" && pwd -P)
expect_fail 2 "^pgci: error: generated file '$LDIFF' resolves to $real/outside.diff, outside $real/workspace \\(symlink\\?\\)$" \
    "$PGCI" check -C "$W" --ruff "$RUFF"
echo "# drift" >> "$W/$LPY"
tree_sum > "$T/diffsym.before"
expect_fail 2 "^pgci: error: refusing to write $LDIFF: generated file '$LDIFF' resolves to $real/outside.diff, outside $real/workspace \\(symlink\\?\\); nothing was written$" \
    "$PGCI" check -C "$W" --ruff "$RUFF" --fix
tree_sum | cmp -s - "$T/diffsym.before" || fail "a .diff symlinked out: something was written"
[ "$out_sum" = "$(sha256sum < "$T/diffsym/outside.diff")" ] || fail "the outside file changed"
[ -L "$W/$LDIFF" ] || fail "the symlink was replaced"
echo "ok   a .diff symlinked out of the workspace: 'resolves to ..., outside', exit 2, nothing written"
# a generated .py (and a .diff) that is a directory: "a directory", not "missing"
for f in "$LPY" "$LDIFF"; do
    fresh isdir
    rm "$W/$f"
    mkdir "$W/$f"
    tree_sum > "$T/isdir.before"
    expect_fail 2 "^pgci: error: $LCFG: generated file $f is a directory, not a file \\(remove it; pgci check --fix then writes it\\)$" \
        "$PGCI" check -C "$W" --ruff "$RUFF"
    expect_fail 2 "^pgci: error: $LCFG: cannot write generated file $f: it is a directory \\(remove it and run --fix again\\); nothing was written$" \
        "$PGCI" check -C "$W" --ruff "$RUFF" --fix
    tree_sum | cmp -s - "$T/isdir.before" || fail "a directory at $f: something was written"
done
echo "ok   a generated path that is a directory: said so, exit 2, nothing written"
# a dir: upstream that exists but this process cannot read (as nobody): not "no
# such directory"
fresh closed
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    cp "$RUFF" "$T/ruff-copy"
    chmod 755 "$T" "$T/closed" "$T/ruff-copy"
    chmod -R a+rX "$T/closed"
    UP=$T/closed/upstream/v1.0.0
    as_nobody() {
        env HOME="$T" TMPDIR=/tmp setpriv --reuid 65534 --regid 65534 --clear-groups "$@"
    }
    chmod 700 "$UP"
    expect_fail 2 "cannot fetch transformers@v1.0.0 src/transformers/models/llama/modeling_llama.py from .*/upstream/v1.0.0: cannot read the directory: Permission denied" \
        as_nobody "$PGCI" check -C "$W" --ruff "$T/ruff-copy" --no-cache
    chmod 755 "$UP"
    chmod 700 "$UP/transformers/models"
    expect_fail 2 "from .*/upstream/v1.0.0: cannot read transformers/models/llama/modeling_llama.py: Permission denied" \
        as_nobody "$PGCI" check -C "$W" --ruff "$T/ruff-copy" --no-cache
    chmod 755 "$UP/transformers/models"
    echo "ok   an upstream directory closed to the user: 'cannot read ...: Permission denied'"
else
    echo "skip an upstream directory closed to the user (needs root and setpriv to run as nobody)"
fi
rm -rf "$T/closed/upstream/v1.0.0"
expect_fail 2 "from .*/upstream/v1.0.0: no such directory" "$PGCI" check -C "$W" --ruff "$RUFF" --no-cache

echo "gate outputs: ok"
