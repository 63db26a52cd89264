#!/usr/bin/env bash
# scripts/gpu-bundle.sh [--dir-only] OUT: what a GPU machine that has none of this
# project's Debian packages needs, packed from this machine's build. The lent H200
# (docs/logits.md) is such a machine: no network, no jansson or OpenSSL headers,
# no libcmark, libtree-sitter, libgit2 or libxml2. Writes OUT/bundle.tar.xz of:
#
#   include/   jansson's and OpenSSL's headers, and lib/ the libraries to link:
#              `GPU_CHECK_DEPS=DIR make gpu-check` builds its standalone program
#              against them (tests/gpu/gpu_check.sh);
#   lib/       every shared library bin/pgci needs, and libcurl, libgit2 and
#              libxml2 (which it opens on first use), with all of theirs but
#              glibc's and the C++ runtime's;
#   bin/pgci   relinked with DT_RPATH $ORIGIN/../lib: it, and what it opens, find
#              lib/ wherever the bundle is unpacked, and nothing leaks into the
#              environment of the suites it runs (LD_LIBRARY_PATH would);
#   bin/ruff   the pinned ruff (survey --verify regenerates with it).
#
# Packed with xz: ICU's data and ruff are most of it, and a device call carries
# at most 64 MiB. On the GPU machine:
#   mkdir -p /tmp/gpu && tar xJf bundle.tar.xz -C /tmp/gpu
#   GPU_CHECK_DEPS=/tmp/gpu make gpu-check
#   /tmp/gpu/bin/pgci verify ...
# --dir-only leaves the tree in OUT/bundle and writes no archive (the test does).
set -euo pipefail
cd "$(dirname "$0")/.."
dir_only=0
if [ "${1:-}" = --dir-only ]; then
    dir_only=1
    shift
fi
[ $# -eq 1 ] || { echo "usage: scripts/gpu-bundle.sh [--dir-only] OUT" >&2; exit 2; }
out=$1
BUILD=${PGCI_BUILD:-build}
CC=${CC:-cc}
# the build's program, where the Makefile links it (bin/pgci for build/ only)
if [ "$BUILD" = build ]; then bin=bin/pgci; else bin=$BUILD/bin/pgci; fi
for f in "$BUILD/obj/src/main.o" "$BUILD/libpgci.a" "$bin" "$BUILD/deps/ruff"; do
    [ -e "$f" ] || { echo "scripts/gpu-bundle.sh: $f is missing: run make first" >&2; exit 1; }
done
b=$out/bundle
rm -rf "$b"
mkdir -p "$b/bin" "$b/lib" "$b/include"

# glibc's libraries and the C++ runtime are on every machine that can run CUDA,
# and a copy of glibc's must not be mixed with the machine's own loader.
system_lib() {
    case $1 in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | \
        ld-linux*.so.* | libstdc++.so.* | libgcc_s.so.* | linux-vdso.so.*) return 0 ;;
    esac
    return 1
}

# The program, linked as the Makefile links it, with the same libraries (its
# NEEDED entries, by file name), and the run path of the bundle.
libs=()
while read -r name; do
    system_lib "$name" || libs+=("-l:$name")
done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016 # $ORIGIN is for the dynamic loader, not the shell
"$CC" -o "$b/bin/pgci" "$BUILD/obj/src/main.o" "$BUILD/libpgci.a" "${libs[@]}" \
    -lpthread -ldl -lm -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib'
cp -L "$BUILD/deps/ruff" "$b/bin/ruff"

# Every library the program needs or opens, and theirs, as the loader finds them here.
soname_file() { "$CC" -print-file-name="lib$1.so"; }
todo=("$b/bin/pgci")
for lib in curl git2 xml2; do
    f=$(readlink -f "$(soname_file "$lib")")
    [ -f "$f" ] || { echo "scripts/gpu-bundle.sh: lib$lib.so not found" >&2; exit 1; }
    n=$(readelf -d "$f" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    cp -L "$f" "$b/lib/$n"
    todo+=("$b/lib/$n")
done
while [ ${#todo[@]} -gt 0 ]; do
    elf=${todo[0]}
    todo=("${todo[@]:1}")
    while read -r name path; do
        system_lib "$name" && continue
        [ -e "$b/lib/$name" ] && continue
        [ -f "$path" ] || { echo "scripts/gpu-bundle.sh: $name (for $elf) not found" >&2; exit 1; }
        cp -L "$path" "$b/lib/$name"
        todo+=("$b/lib/$name")
    done < <(ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
done

# What gpu_check.sh's build compiles and links against: the headers, and the
# link-time names of jansson and libcrypto.
for h in jansson.h jansson_config.h; do
    cp "$(echo "#include <$h>" | "$CC" -M -x c - | tr ' \\' '\n\n' | grep "/$h\$" | head -1)" "$b/include/"
done
evp=$(echo "#include <openssl/evp.h>" | "$CC" -M -x c - | tr ' \\' '\n\n' | grep '/openssl/evp.h$' | head -1)
mkdir -p "$b/include/openssl"
cp "$(dirname "$evp")"/*.h "$b/include/openssl/"
conf=$(echo "#include <openssl/configuration.h>" | "$CC" -M -x c - | tr ' \\' '\n\n' |
    grep '/openssl/configuration.h$' | head -1)
cp "$(dirname "$conf")"/*.h "$b/include/openssl/"
for lib in jansson crypto; do
    n=$(readelf -d "$(readlink -f "$(soname_file "$lib")")" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ -e "$b/lib/$n" ] || cp -L "$(soname_file "$lib")" "$b/lib/$n"
    ln -sf "$n" "$b/lib/lib$lib.so"
done

if [ $dir_only -eq 1 ]; then
    echo "scripts/gpu-bundle.sh: $b ($(du -sh "$b" | cut -f1))"
    exit 0
fi
tar -C "$b" -cJf "$out/bundle.tar.xz.tmp" . && mv "$out/bundle.tar.xz.tmp" "$out/bundle.tar.xz"
rm -rf "$b"
echo "scripts/gpu-bundle.sh: $out/bundle.tar.xz ($(du -sh "$out/bundle.tar.xz" | cut -f1))"
