# Shared helpers for corpus tests and benches: fetch registry distributions into
# the corpus cache (never into the repository).
PGCI_CORPUS_CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}

# corpus_wheel NAME VERSION -> prints the directory holding the unpacked wheel.
corpus_wheel() {
    local name=$1 version=$2
    local dir="$PGCI_CORPUS_CACHE/$name-$version"
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir" "$dir.part"
        mkdir -p "$dir.part"
        python3 -m pip download --quiet --no-deps --only-binary :all: "$name==$version" \
            -d "$dir.part/whl" >/dev/null 2>&1 || { echo "cannot download $name==$version" >&2; return 1; }
        (cd "$dir.part" && python3 -m zipfile -e whl/*.whl . ) || return 1
        rm -rf "$dir.part/whl"
        touch "$dir.part/.done"
        mv "$dir.part" "$dir"
    fi
    echo "$dir"
}
