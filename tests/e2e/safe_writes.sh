#!/usr/bin/env bash
# Issue 15, safe writes: no write mode (check --fix, regen --write, patchgen
# --check --fix, patchgen -o) creates or replaces a file whose directory resolves
# outside the tree it writes into; --fix writes nothing for a config with another
# error in the same run; a replaced file keeps its mode; temporary files and
# directories go away on SIGTERM and SIGINT too.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
export PATH="$(dirname "$RUFF"):$PATH" # patchgen finds ruff on PATH, as the real one does
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

# a generated/ that is a symlink out of the tree: every write mode refuses it with
# one line, exit 2, and writes nothing outside (nor inside)
fresh sym
mkdir "$T/outside"
cp -r "$W/$LLAMA/generated/." "$T/outside/"
rm -rf "$W/$LLAMA/generated"
ln -s "$T/outside" "$W/$LLAMA/generated"
echo "# drift" >> "$T/outside/patched_modeling_llama_gpu.py"
rm "$T/outside/patched_modeling_llama_gpu.diff"
(cd "$T/outside" && find . -type f -exec sha256sum {} + | sort) > "$T/outside.before"
for cmd in "check --ruff $RUFF --fix" "regen --ruff $RUFF --write --diff" "patchgen --check --fix" "patchgen --all --diff"; do
    rc=0
    PGCI_RUFF=$RUFF "$PGCI" $cmd -C "$W" > "$T/sym.out" 2> "$T/sym.err" || rc=$?
    [ "$rc" = 2 ] || [ "$rc" = 1 ] || fail "$cmd: exit $rc"
    grep -q "refusing to write .*outside" "$T/sym.err" || fail "$cmd: $(cat "$T/sym.err")"
    (cd "$T/outside" && find . -type f -exec sha256sum {} + | sort) > "$T/outside.after"
    cmp -s "$T/outside.before" "$T/outside.after" || fail "$cmd wrote outside the workspace"
done
[ "$(PGCI_RUFF=$RUFF "$PGCI" check --ruff "$RUFF" --fix -C "$W" 2>&1 >/dev/null | grep -c .)" = 1 ] ||
    fail "check --fix: the refusal is not one line"
echo "ok   symlinked generated/: refused by every write mode, nothing written outside"

# a sibling-config import that resolves outside the workspace (a symlinked package
# directory, a symlinked config file) is refused as discovery refuses such a config:
# one line naming the import, the resolved path and the workspace, exit 2, nothing
# written; the outside code never reaches a generated file
for how in dir file; do
    fresh "evil-$how"
    mkdir -p "$T/evil-$how/outside"
    printf 'def evil_helper():\n    return "OUTSIDE"\n' > "$T/evil-$how/outside/x_patch_gen_config.py"
    if [ $how = dir ]; then
        ln -s "$T/evil-$how/outside" "$W/demo/models/evil"
        mod=demo.models.evil.x_patch_gen_config
    else
        ln -s "$T/evil-$how/outside/x_patch_gen_config.py" "$W/$LLAMA/_x_patch_gen_config.py"
        mod=demo.models.llama._x_patch_gen_config
    fi
    sed -i "s/^from veomni.patchgen.patch_spec import PatchConfig\$/&\nfrom $mod import evil_helper/" "$W/$LCFG"
    echo 'config.add_helper(evil_helper)' >> "$W/$LCFG"
    (cd "$W" && find . -type f -exec sha256sum {} + | sort) > "$T/evil.before"
    real=$(cd "$T" && pwd -P)/evil-$how
    for fix in "" --fix; do
        expect_fail 2 "^pgci: error: $LCFG:[0-9]+:1: sibling config '$mod' resolves to $real/outside/x_patch_gen_config.py, outside $real/workspace \\(symlink\\?\\)$" \
            "$PGCI" check -C "$W" --ruff "$RUFF" $fix
    done
    (cd "$W" && find . -type f -exec sha256sum {} + | sort) > "$T/evil.after"
    cmp -s "$T/evil.before" "$T/evil.after" || fail "a sibling import through a $how symlink: something was written"
    if grep -rq OUTSIDE "$W"; then fail "the outside code reached the workspace"; fi
done
echo "ok   a sibling import through a symlink out of the workspace: refused, exit 2, nothing written"

# patchgen -o DIR: the files stay under DIR even through a symlink inside it
fresh outdir
mkdir -p "$T/o/demo/models" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/o/demo/models/llama"
rc=0
(cd "$T" && PGCI_RUFF=$RUFF "$PGCI" patchgen -C "$W" demo.models.llama.llama_gpu_patch_gen_config -o o) \
    > /dev/null 2> "$T/o.err" || rc=$?
[ -z "$(ls -A "$T/elsewhere")" ] || fail "patchgen -o wrote through a symlink: $(ls "$T/elsewhere")"
echo "ok   patchgen -o: confined to the output directory"

# --fix writes nothing for a config with another error in the same run: an
# upstream module that is empty (every target missing)
fresh errfix
echo "# drift" >> "$W/$LPY"
: > "$T/errfix/upstream/v1.0.0/transformers/models/llama/modeling_llama.py"
sha_before=$(sha256sum "$W/$LPY" "$W/${LPY%.py}.diff")
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" --source "dir:$T/errfix/upstream/{tag}" --fix > "$T/errfix.out" 2>&1 || rc=$?
# an empty upstream is the environment's failure: exit 2, one line, nothing written
[ "$rc" = 2 ] || fail "--fix with an empty upstream: exit $rc"
grep -q "^pgci: error: $LCFG: cannot fetch transformers@v1.0.0 .*: modeling_llama.py is empty: not a Python module$" "$T/errfix.out" ||
    fail "empty upstream: $(cat "$T/errfix.out")"
[ "$sha_before" = "$(sha256sum "$W/$LPY" "$W/${LPY%.py}.diff")" ] || fail "--fix rewrote a config with errors"
echo "ok   an empty upstream module: exit 2 in one line, --fix writes nothing"

# a misspelled target: the config has a targets error, --fix leaves its files
fresh typo
sed -i '0,/"LlamaMLP.forward"/s//"LlamaMLP.fowrard"/' "$W/$LCFG"
sha_before=$(sha256sum "$W/$LPY")
rc=0
"$PGCI" check -C "$W" --ruff "$RUFF" --fix > "$T/typo.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--fix with a misspelled target: exit $rc (its drift stays)"
[ "$sha_before" = "$(sha256sum "$W/$LPY")" ] || fail "--fix rewrote a config with a misspelled target"
grep -q "^not fixed: demo.models.llama.llama_gpu_patch_gen_config: not rewritten: .*did you mean \`forward\`?.*\[targets\]" "$T/typo.out" ||
    fail "--fix did not say why: $(cat "$T/typo.out")"
grep -q "^  warning $LCFG:62:1: \`LlamaMLP.fowrard\` is not defined upstream: did you mean \`forward\`?" "$T/typo.out" ||
    fail "no near-miss warning: $(cat "$T/typo.out")"
echo "ok   a misspelled target: a warning with did you mean, and --fix leaves the config alone"

# a replaced file keeps its mode
fresh mode
echo "# drift" >> "$W/$LPY"
chmod 664 "$W/$LPY"
"$PGCI" check -C "$W" --ruff "$RUFF" --fix > /dev/null || fail "--fix: exit $?"
[ "$(stat -c %a "$W/$LPY")" = 664 ] || fail "--fix: mode $(stat -c %a "$W/$LPY")"
echo "# drift" >> "$W/$LPY"
chmod 600 "$W/$LPY"
"$PGCI" regen -C "$W" --ruff "$RUFF" --write -q || fail "regen --write"
[ "$(stat -c %a "$W/$LPY")" = 600 ] || fail "regen --write: mode $(stat -c %a "$W/$LPY")"
echo "ok   --fix and regen --write keep the mode of the file they replace"

# temporary files and directories go away on SIGTERM and SIGINT: a ruff that
# hangs while pgci holds its temporary directory
fresh sig
mkdir -p "$T/tmp" "$T/bin"
cat > "$T/bin/ruff" <<SH
#!/bin/sh
case "\$1" in --version) echo "ruff 0.13.2"; exit 0;; esac
echo \$\$ > "$T/ruff-started"
exec sleep 30
SH
chmod +x "$T/bin/ruff"
for sig in TERM INT; do
    rm -f "$T/ruff-started"
    # a background job of a script starts with SIGINT ignored: restore the default
    TMPDIR=$T/tmp python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$PGCI" check -C "$W" --ruff "$T/bin/ruff" -j 1 > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do [ -e "$T/ruff-started" ] && break; sleep 0.1; done
    [ -e "$T/ruff-started" ] || fail "the fake ruff never started"
    [ -n "$(ls -A "$T/tmp")" ] || fail "no temporary directory while ruff runs"
    kill -s $sig $pid
    wait $pid 2>/dev/null || true
    kill "$(cat "$T/ruff-started")" 2>/dev/null || true # the fake ruff pgci left behind
    [ -z "$(ls -A "$T/tmp")" ] || fail "SIG$sig left $(ls "$T/tmp")"
done
echo "ok   SIGTERM and SIGINT remove the temporary directories"
