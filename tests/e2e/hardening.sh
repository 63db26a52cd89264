#!/usr/bin/env bash
# Hardening (issue 8): processes, filesystem faults, determinism, no shell.
#  - a hanging ruff is killed at --ruff-timeout and reported; a crashing ruff is
#    reported with its signal; neither leaves a file behind;
#  - --fix into a read-only directory, a file replaced by a directory, and past
#    `ulimit -f` (a full disk):
#    a clear error and the checked-in files byte for byte as before;
#  - a generated file that is a symlink out of the workspace is refused;
#  - a config path with '..' is refused;
#  - two runs give byte-identical run.json and reports; -j 1 and -j 8 agree;
#  - no system() or popen() anywhere in the sources.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
RUFF=$PWD/${PGCI_BUILD:-build}/deps/ruff
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
LPY=demo/models/llama/generated/patched_modeling_llama_gpu.py

fresh() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1"
    cp -r fixtures/workspace "$T/$1/workspace"
    cp -r fixtures/upstream "$T/$1/upstream"
    W=$T/$1/workspace
}

snapshot() { (cd "$W" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# --- processes -----------------------------------------------------------------------
cat > "$T/ruff-hang" <<'SH'
#!/bin/sh
case "$1" in --version) echo "ruff 0.13.2" ;; *) exec sleep 60 ;; esac
SH
cat > "$T/ruff-crash" <<'SH'
#!/bin/sh
case "$1" in --version) echo "ruff 0.13.2" ;; *) kill -SEGV $$ ;; esac
SH
chmod +x "$T/ruff-hang" "$T/ruff-crash"
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp
fresh procs
before=$(snapshot)
start=$SECONDS
rc=0
"$PGCI" check -C "$W" --ruff "$T/ruff-hang" --ruff-timeout 2 -j 4 > "$T/hang.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "a hanging ruff: expected exit 1, got $rc" >&2; cat "$T/hang.out" >&2; exit 1; }
[ $((SECONDS - start)) -lt 50 ] || { echo "a hanging ruff was waited on" >&2; exit 1; }
expect_grep "cannot regenerate: .*ruff-hang check .*timed out after 2000 ms and was killed" "$T/hang.out"
rc=0
"$PGCI" check -C "$W" --ruff "$T/ruff-crash" > "$T/crash.out" 2>&1 || rc=$?
[ "$rc" = 1 ]
expect_grep "cannot regenerate: .*ruff-crash check .*killed by signal 11" "$T/crash.out"
[ "$before" = "$(snapshot)" ]
[ -z "$(ls -A "$T/tmp")" ] || { echo "temporary files were left behind: $(ls "$T/tmp")" >&2; exit 1; }

# --- filesystem faults under --fix ------------------------------------------------------
fresh isdir
echo "# drift" >> "$W/$LPY"
diff_file=${LPY%.py}.diff
rm "$W/$diff_file"
mkdir "$W/$diff_file"
before=$(snapshot)
expect_fail 2 "cannot write .*patched_modeling_llama_gpu.diff: it is a directory .*nothing was written" "$PGCI" check -C "$W" --ruff "$RUFF" --fix
# refused before the first write: the .py is not rewritten either
[ "$before" = "$(snapshot)" ]
[ -z "$(find "$W" -name '*.pgci-tmp-*')" ]

fresh full
echo "# drift" >> "$W/$LPY"
cp "$W/$LPY" "$T/drifted.py"
rc=0
(ulimit -f 8; "$PGCI" check -C "$W" --ruff "$RUFF" --fix > "$T/full.out" 2> "$T/full.err") || rc=$?
[ "$rc" != 0 ] || { echo "a full disk: expected a failure" >&2; exit 1; }
expect_grep "cannot write .*patched_modeling_llama_gpu.py: File too large" <(cat "$T/full.out" "$T/full.err")
cmp "$W/$LPY" "$T/drifted.py"
[ -z "$(find "$W" -name '*.pgci-tmp-*')" ]

# a read-only output directory: as an unprivileged user (root writes anywhere)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    fresh readonly
    echo "# drift" >> "$W/$LPY"
    cp "$RUFF" "$T/ruff-copy"
    chmod 755 "$T" "$T/readonly" "$T/ruff-copy"
    chmod -R a+rX "$T/readonly"
    chmod 555 "$W/demo/models/llama/generated"
    before=$(snapshot)
    rc=0
    HOME=$T TMPDIR=/tmp setpriv --reuid 65534 --regid 65534 --clear-groups \
        "$PGCI" check -C "$W" --ruff "$T/ruff-copy" --fix > "$T/ro.out" 2> "$T/ro.err" || rc=$?
    [ "$rc" = 2 ] || { echo "read-only output: expected exit 2, got $rc" >&2; cat "$T/ro.err" >&2; exit 1; }
    expect_grep "cannot write .*patched_modeling_llama_gpu.py.*Permission denied" "$T/ro.err"
    [ "$before" = "$(snapshot)" ]
    chmod 755 "$W/demo/models/llama/generated"
fi

# --- paths that escape the workspace -------------------------------------------------------
fresh symlink
cp "$W/$LPY" "$T/outside.py"
rm "$W/$LPY"
ln -s "$T/outside.py" "$W/$LPY"
expect_fail 2 "generated file .*resolves to .*outside.py, outside" "$PGCI" check -C "$W" --ruff "$RUFF"
fresh dotdot
expect_fail 2 "no config '../x_patch_gen_config.py'" "$PGCI" check -C "$W" --ruff "$RUFF" ../x_patch_gen_config.py

# --- determinism ---------------------------------------------------------------------------
fresh det
echo "# drift" >> "$W/$LPY"
for j in 1 8 1; do
    "$PGCI" check -C "$W" --ruff "$RUFF" -j $j --run-json "$T/run-$j.json" > "$T/out-$j.txt" || true
done
cmp "$T/run-1.json" "$T/run-8.json"
cmp "$T/out-1.txt" "$T/out-8.txt"
"$PGCI" report --in "$T/run-1.json" --format md,html,sarif,comment -o "$T/r1"
"$PGCI" report --in "$T/run-8.json" --format md,html,sarif,comment -o "$T/r8"
diff -r "$T/r1" "$T/r8"
grep -q '"timestamp": null' "$T/run-1.json"
SOURCE_DATE_EPOCH=1700000000 "$PGCI" check -C "$W" --ruff "$RUFF" --run-json "$T/sde.json" > /dev/null || true
grep -q '"timestamp": "2023-11-14T22:13:20Z"' "$T/sde.json"

# --- no shell, ever --------------------------------------------------------------------------
if grep -rnE '\b(system|popen)[[:space:]]*\(' src checks reports kernels --include='*.c' --include='*.h' --include='*.cu'; then
    echo "system()/popen() found: run processes through src/core/proc.h" >&2
    exit 1
fi
echo "hardening: ok"
