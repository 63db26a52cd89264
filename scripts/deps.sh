#!/usr/bin/env bash
# Installs what building and testing pgci needs, and nothing that is already there.
#
#  - the Debian -dev packages pgci links against (apt-get, only those missing);
#  - the tree-sitter-python grammar: the sdist from the Python package registry at a
#    pinned version, checked against a pinned SHA-256, unpacked into $BUILD/deps;
#  - ruff at the pinned version, installed into a cache outside the repository.
#
# Nothing downloaded here is ever committed: $BUILD is ignored by git and the cache
# lives under $PGCI_DEPS_CACHE (default ~/.cache/pgci-deps).
set -euo pipefail

BUILD=${1:-build}
TS_PY_VERSION=0.23.6
TS_PY_SHA256=354bfa0a2f9217431764a631516f85173e9711af2c13dbd796a8815acfe505d9
# The grammar's sdist ships parser.c without the tree_sitter/*.h headers it was
# generated against (the 0.23 ones, still ABI 14; Debian's 0.20.7 runtime loads ABI
# 14 but its headers predate TSCharacterRange). Those headers come from the py
# tree-sitter sdist of the same generation, also pinned by hash.
TS_CORE_VERSION=0.23.2
TS_CORE_SHA256=66bae8dd47f1fed7bdef816115146d3a41c39b5c482d7bad36d9ba1def088450
RUFF_VERSION=${PGCI_RUFF_VERSION:-0.13.2}
CACHE=${PGCI_DEPS_CACHE:-$HOME/.cache/pgci-deps}

say() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 2; }

# the libraries pgci links against, then the tools its tests use: clang with
# libFuzzer's runtime (fuzz-smoke), valgrind (make valgrind), openssl (the TLS
# fault test's certificate), git (throwaway repositories in the git source tests),
# patch (the fixture tag v1.1.0 is v1.0.0 plus a patch: scripts/fixture-tags.sh),
# clang-format (make check-format, in CI)
debs=(build-essential pkg-config libcurl4-openssl-dev libgit2-dev libcmark-dev
      libjansson-dev libxml2-dev libtree-sitter-dev libcmocka-dev libutf8proc-dev libssl-dev python3 python3-pip
      clang clang-format libclang-rt-14-dev valgrind openssl git bc patch)
# PGCI_DEPS=build: only what building pgci needs, for a CI job that runs pgci on a
# workspace and never its tests (.github/workflows/examples/veomni-pr.yml)
if [ "${PGCI_DEPS:-all}" = build ]; then
    debs=(build-essential pkg-config libcurl4-openssl-dev libgit2-dev libcmark-dev
          libjansson-dev libxml2-dev libtree-sitter-dev libutf8proc-dev libssl-dev python3 python3-pip)
fi
missing=()
for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# python3/pip may come from elsewhere (pyenv); only ask apt for them when absent.
if command -v python3 >/dev/null 2>&1; then
    missing=("${missing[@]/python3}")
fi
if python3 -m pip --version >/dev/null 2>&1; then
    missing=("${missing[@]/python3-pip}")
fi
want=()
for p in "${missing[@]}"; do [ -n "$p" ] && want+=("$p"); done
if [ ${#want[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing Debian packages: ${want[*]} (run as root or install them)"
    say "installing ${want[*]}"
    apt-get update -qq >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}" >/dev/null \
        || die "apt-get install ${want[*]} failed"
fi

# --- tree-sitter-python grammar ---------------------------------------------------
mkdir -p "$CACHE" "$BUILD/deps"

# sdist NAME VERSION FILE SHA256: downloads a source distribution once into the
# cache and checks its hash.
sdist() {
    local name=$1 version=$2 file=$3 sha=$4
    if [ ! -f "$CACHE/$file" ]; then
        say "downloading $name $version (sdist)"
        local tmp
        tmp=$(mktemp -d)
        python3 -m pip download --quiet --no-deps --no-binary :all: \
            "$name==$version" -d "$tmp" >/dev/null \
            || die "pip download $name==$version failed"
        mv "$tmp/$file" "$CACHE/$file.part"
        rm -rf "$tmp"
        mv "$CACHE/$file.part" "$CACHE/$file"
    fi
    echo "$sha  $CACHE/$file" | sha256sum -c --quiet - \
        || { rm -f "$CACHE/$file"; die "$name $version sdist SHA-256 mismatch (removed; run again)"; }
}
sdist tree-sitter-python "$TS_PY_VERSION" "tree_sitter_python-$TS_PY_VERSION.tar.gz" "$TS_PY_SHA256"
sdist tree-sitter "$TS_CORE_VERSION" "tree-sitter-$TS_CORE_VERSION.tar.gz" "$TS_CORE_SHA256"

ts_dir="$BUILD/deps/tree-sitter-python"
if [ ! -f "$ts_dir/src/tree_sitter/parser.h" ]; then
    rm -rf "$ts_dir" "$ts_dir.tmp"
    mkdir -p "$ts_dir.tmp/src/tree_sitter"
    tar -xzf "$CACHE/tree_sitter_python-$TS_PY_VERSION.tar.gz" -C "$ts_dir.tmp" \
        --strip-components=1 "tree_sitter_python-$TS_PY_VERSION/src"
    for h in parser.h alloc.h array.h ts_assert.h; do
        tar -xzOf "$CACHE/tree-sitter-$TS_CORE_VERSION.tar.gz" \
            "tree-sitter-$TS_CORE_VERSION/tree_sitter/core/lib/src/$h" \
            > "$ts_dir.tmp/src/tree_sitter/$h"
    done
    mv "$ts_dir.tmp" "$ts_dir"
fi

# --- ruff ---------------------------------------------------------------------------
ruff_dir="$CACHE/ruff-$RUFF_VERSION"
if [ ! -x "$ruff_dir/bin/ruff" ]; then
    say "installing ruff $RUFF_VERSION"
    rm -rf "$ruff_dir.part"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$ruff_dir.part" "ruff==$RUFF_VERSION" >/dev/null \
        || die "pip install ruff==$RUFF_VERSION failed"
    rm -rf "$ruff_dir"
    mv "$ruff_dir.part" "$ruff_dir"
fi
ln -sfn "$ruff_dir/bin/ruff" "$BUILD/deps/ruff"
"$BUILD/deps/ruff" --version >/dev/null || die "ruff at $ruff_dir does not run"
touch "$BUILD/deps/.stamp"
