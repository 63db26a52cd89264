#!/usr/bin/env bash
# libcurl, libgit2 and libxml2 are opened on first use, not at startup
# (src/core/lazylib.h): pgci's executable does not need them (readelf), the gate
# and the survey run with none of them loadable, and a fetch that needs one it
# cannot load fails with one line naming the library, what it is for and why,
# exit status 2 and nothing written. `verify --tag` copies a workspace outside
# any repository without libgit2 (the same output as with it), and one inside a
# repository fails so. "Cannot load" is made here by putting a text file under
# each library's name first on LD_LIBRARY_PATH.
set -u
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-$PWD/bin/pgci}
[ -x "$PGCI" ] || { echo "FAIL: $PGCI not built"; exit 1; }
T=$(mktemp -d /tmp/pgci-e2e-lazy-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# --- not needed at startup ------------------------------------------------------------
needed=$(readelf -d "$PGCI" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf shows no NEEDED entry in $PGCI"
for lib in libcurl libgit2 libxml2; do
    if grep -q "^$lib\." <<<"$needed"; then
        fail "$PGCI needs $lib at startup: $(tr '\n' ' ' <<<"$needed")"
    fi
done
echo "ok   the executable needs none of libcurl, libgit2, libxml2"

# --- the libraries made unloadable ------------------------------------------------------
sonames=$(bash scripts/sonames.sh) || fail "scripts/sonames.sh failed"
mkdir -p "$T/bogus"
for lib in CURL GIT2 XML2; do
    name=$(sed -n "s/^#define PGCI_SONAME_$lib \"\(.*\)\"$/\1/p" <<<"$sonames")
    [ -n "$name" ] || { fail "scripts/sonames.sh names no $lib"; continue; }
    echo "not a shared library" >"$T/bogus/$name"
    eval "so_$lib=\$name"
done
bogus() { LD_LIBRARY_PATH="$T/bogus${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }

# the gate and the survey on the demo workspace (a dir: source) load none of them
ws=fixtures/workspace
for cmd in check survey; do
    "$PGCI" "$cmd" -C "$ws" --no-ruff -q --format json >"$T/$cmd.want" 2>/dev/null
    want=$?
    bogus "$PGCI" "$cmd" -C "$ws" --no-ruff -q --format json >"$T/$cmd.got" 2>"$T/$cmd.err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$cmd: exit $got without the libraries, $want with: $(cat "$T/$cmd.err")"
    [ -s "$T/$cmd.got" ] || fail "$cmd: no output without the libraries"
    echo "ok   $cmd runs without them (exit $got)"
done

# expect_load_fail NAME WHAT-REGEX pgci args...: exit 2, one line, nothing written
expect_load_fail() {
    local name=$1 re=$2
    shift 2
    XDG_CACHE_HOME=$T/$name/cache bogus "$PGCI" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    [ "$rc" -eq 2 ] || fail "$name: exit $rc, wanted 2"
    local lines
    lines=$(grep -c '^pgci: error: ' "$T/$name.err")
    [ "$lines" -eq 1 ] || fail "$name: $lines error lines: $(cat "$T/$name.err")"
    grep -Eq "^pgci: error: $re$" "$T/$name.err" || fail "$name: message: $(cat "$T/$name.err")"
    [ ! -e "$T/$name/cache" ] || fail "$name: wrote $(find "$T/$name/cache" -type f | head -3)"
    [ ! -s "$T/$name.out" ] || fail "$name: printed $(head -3 "$T/$name.out")"
    echo "ok   $name: $(grep '^pgci: error: ' "$T/$name.err")"
}
M=transformers.models.llama.modeling_llama
esc() { sed 's/[.]/\\./g' <<<"$1"; }
expect_load_fail http \
    "cannot fetch transformers@v1 src/transformers/models/llama/modeling_llama\.py from http://127\.0\.0\.1:9/v1/transformers/models/llama/modeling_llama\.py: cannot load $(esc "$so_CURL") \(to fetch over HTTP\): $T/bogus/$(esc "$so_CURL"): .+" \
    fetch --source 'http://127.0.0.1:9/{tag}/{path}' --tag v1 --module "$M" --print
mkdir -p "$T/repo"
expect_load_fail git \
    "cannot load $(esc "$so_GIT2") \(to read git: sources and check trees out\): $T/bogus/$(esc "$so_GIT2"): .+" \
    fetch --source "git:$T/repo" --tag v1 --module "$M" --print

# verify --tag copies a workspace outside any repository without libgit2, exactly as
# with it; inside a repository it needs libgit2 (HEAD plus the working tree), and
# says so
mkdir -p "$T/plain"
cp -r fixtures/workspace "$T/plain/ws"
cp -r fixtures/upstream "$T/plain/upstream"
cat >"$T/plain/ws/suite.sh" <<'SH'
printf '<testsuite tests="1"><testcase classname="t" name="ok"/></testsuite>\n' >"$1"
SH
printf '\n[tool.pgci.verify]\none = { argv = ["sh", "suite.sh", "{junit}"] }\n' >>"$T/plain/ws/pyproject.toml"
mkdir -p "$T/bogus-git"
cp "$T/bogus/$so_GIT2" "$T/bogus-git/"
nogit() { LD_LIBRARY_PATH="$T/bogus-git${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
tagged() { "$@" verify -C "$T/plain/ws" one --tag v1.1.0 --source "dir:$T/plain/upstream/{tag}" --no-ruff; }
tagged "$PGCI" >"$T/tag.want" 2>"$T/tag.want.err"
want=$?
tagged nogit "$PGCI" >"$T/tag.got" 2>"$T/tag.err"
got=$?
[ "$got" -eq "$want" ] || fail "verify --tag, plain copy: exit $got without libgit2, $want with: $(cat "$T/tag.err")"
cmp -s "$T/tag.want" "$T/tag.got" || fail "verify --tag, plain copy: output differs without libgit2: $(diff "$T/tag.want" "$T/tag.got" | head -5)"
if grep -q "passed  one: 1/1 passed" "$T/tag.got"; then
    echo "ok   verify --tag copies a workspace outside a repository without libgit2 (exit $got)"
else
    fail "verify --tag, plain copy: the suite did not run: $(cat "$T/tag.got" "$T/tag.err" | head -5)"
fi
git init -q "$T/plain/ws" || fail "git init"
expect_load_fail verify-git \
    "cannot copy the workspace $(esc "$T")/plain/ws for verification: cannot load $(esc "$so_GIT2") \(to read git: sources and check trees out\): $T/bogus(-git)?/$(esc "$so_GIT2"): .+" \
    verify -C "$T/plain/ws" one --tag v1.1.0 --source "dir:$T/plain/upstream/{tag}" --no-ruff

[ "$fails" -eq 0 ] || { echo "lazy_libraries: $fails failure(s)"; exit 1; }
echo "lazy_libraries: ok"
