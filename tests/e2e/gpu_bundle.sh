#!/usr/bin/env bash
# End-to-end: scripts/gpu-bundle.sh (make gpu-bundle), what a GPU machine without
# this project's packages is given. The bundle's pgci must load its libraries from
# the bundle's lib/ (its DT_RPATH), the libraries it opens on first use too
# (libxml2, read by `pgci verify`), every file in lib/ must find what it needs, and
# gpu_check.sh's build with GPU_CHECK_DEPS set to the bundle must compile against
# its headers and link its libraries. This machine has all of them installed as
# well, so each check asks the loader where it found the library, not only
# whether it ran.
set -u
cd "$(dirname "$0")/../.."
BUILD=${PGCI_BUILD:-build}
# the build's program, where the Makefile links it (bin/pgci for build/ only)
if [ "$BUILD" = build ]; then bin=bin/pgci; else bin=$BUILD/bin/pgci; fi
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
# The bundle is of the plain build: under `make asan`/`make tsan` the program and
# the objects are instrumented, and a sanitizer's runtime is not something to carry.
if readelf -d "$bin" | grep -qE 'NEEDED.*lib(a|t|ub)san' ||
    nm "$BUILD/obj/src/main.o" 2>/dev/null | grep -qE ' U __(a|t|ub)san'; then
    echo "gpu_bundle: not run under a sanitizer build (the bundle is the plain build's)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

PGCI_BUILD=$BUILD bash scripts/gpu-bundle.sh --dir-only "$tmp/out" >"$tmp/log" 2>&1 ||
    { echo "FAIL: gpu-bundle.sh: $(tail -n 5 "$tmp/log")"; exit 1; }
b=$tmp/out/bundle
for f in bin/pgci bin/ruff lib/libjansson.so lib/libcrypto.so include/jansson.h include/openssl/evp.h \
    include/openssl/configuration.h; do
    [ -e "$b/$f" ] || fail "the bundle has no $f"
done
readelf -d "$b/bin/pgci" | grep -q 'RPATH.*\[\$ORIGIN/../lib\]' || fail "bin/pgci has no DT_RPATH \$ORIGIN/../lib"
readelf -d "$b/bin/pgci" | grep -q RUNPATH && fail "bin/pgci has a DT_RUNPATH (not followed by the libraries it opens)"

# every library in lib/ resolves, and nothing of glibc's was copied
for f in "$b"/lib/*.so*; do
    [ -L "$f" ] && continue
    ldd "$f" 2>&1 | grep -q "not found" && fail "$(basename "$f"): $(ldd "$f" | grep "not found" | head -2)"
done
ls "$b/lib" | grep -qE '^(libc|libm|libpthread|libdl|librt)\.so|^ld-linux' && fail "glibc's libraries were copied"

# the bundle's pgci runs, with its libraries from lib/ (moved elsewhere first: $ORIGIN)
mv "$b" "$tmp/moved"
b=$tmp/moved
"$b/bin/pgci" --version >"$tmp/ver" 2>&1 || fail "the bundle's pgci --version: $(cat "$tmp/ver")"
LD_DEBUG=libs "$b/bin/pgci" --version 2>"$tmp/ld" >/dev/null
for lib in libcmark libtree-sitter libjansson libutf8proc libcrypto; do
    grep -q "calling init: $b/bin/\.\./lib/$lib" "$tmp/ld" || fail "$lib was not loaded from the bundle: $(grep "calling init: .*$lib" "$tmp/ld" | head -1)"
done
# libxml2 (and ICU), opened on first use: pgci verify reads a suite's JUnit XML
ws=$tmp/ws
cp -r fixtures/workspace "$ws"
cat >"$ws/suite.sh" <<'SH'
printf '<testsuite tests="1"><testcase classname="t" name="ok"/></testsuite>\n' >"$1"
SH
cat >>"$ws/pyproject.toml" <<'TOML'

[tool.pgci.verify]
one = { argv = ["sh", "suite.sh", "{junit}"] }
TOML
LD_DEBUG=libs "$b/bin/pgci" verify -C "$ws" one >"$tmp/verify.out" 2>"$tmp/verify.ld"
rc=$?
[ $rc -eq 0 ] || fail "the bundle's pgci verify exited $rc: $(grep -v '^ *[0-9]*:' "$tmp/verify.ld" | tail -3) $(cat "$tmp/verify.out")"
grep -q "1/1 passed" "$tmp/verify.out" || fail "the bundle's pgci verify did not read the suite: $(cat "$tmp/verify.out")"
grep -q "calling init: $b/bin/\.\./lib/libxml2" "$tmp/verify.ld" || fail "libxml2 was not opened from the bundle"

# gpu_check.sh's build against the bundle's headers and libraries
PGCI_BUILD=$tmp/build GPU_CHECK_DEPS=$b GPU_CHECK_BUILD_ONLY=1 GPU_CHECK_NVCC=0 \
    bash tests/gpu/gpu_check.sh >"$tmp/gc.log" 2>&1 ||
    fail "gpu_check.sh's build with GPU_CHECK_DEPS: $(tail -n 5 "$tmp/gc.log"; tail -n 10 "$tmp/build/gpu/build.log" 2>/dev/null)"
if [ -x "$tmp/build/gpu/bin/pgci-logits" ]; then
    ldd "$tmp/build/gpu/bin/pgci-logits" | grep -q "libjansson.so.4 => $b/lib/" ||
        fail "pgci-logits did not link the bundle's jansson: $(ldd "$tmp/build/gpu/bin/pgci-logits" | grep jansson)"
fi

[ $fails -eq 0 ] || exit 1
echo "gpu_bundle: ok ($(du -sh "$b" | cut -f1) unpacked)"
