# Shared by tests/corpus/50-regen.sh and bench/40-regen.sh: real VeOmni workspaces
# from the Python package registry, in the corpus cache.
#
# veomni_sdist VERSION: prints the directory of the unpacked `veomni` source
# distribution (its pyproject.toml - with VeOmni's [tool.patchgen] and [tool.ruff] -
# its *_patch_gen_config.py files and their checked-in generated/ outputs). The
# cache layout is the one tests/corpus/15-workspace-veomni.sh uses.
veomni_sdist() {
    local v=$1
    local dir="$PGCI_CORPUS_CACHE/veomni-$v-sdist"
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir" "$dir.part"
        mkdir -p "$dir.part"
        python3 -m pip download --quiet --no-deps --no-binary :all: "veomni==$v" -d "$dir.part/dl" \
            >/dev/null 2>&1 || { echo "cannot download the veomni==$v sdist" >&2; return 1; }
        tar xzf "$dir.part/dl/veomni-$v.tar.gz" -C "$dir.part" || return 1
        rm -rf "$dir.part/dl"
        touch "$dir.part/.done"
        mv "$dir.part" "$dir"
    fi
    echo "$dir/veomni-$v"
}
