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

# veomni_add_patchgen_table PYPROJECT: VeOmni's [tool.patchgen] table appended to a
# pyproject.toml that predates it (veomni 0.1.10 and 0.1.11, repository commits
# before it was added); one that has it is left as it is.
veomni_add_patchgen_table() {
    grep -q '^\[tool\.patchgen\]' "$1" ||
        printf '\n[tool.patchgen]\nsearch_root = "veomni/models/transformers"\npackage_prefix = "veomni.models.transformers"\n' >>"$1"
}

# veomni_models_ws VERSION DIR: a workspace in DIR with the models and the
# pyproject.toml of the veomni VERSION source distribution (with [tool.patchgen]);
# prints DIR.
veomni_models_ws() {
    local src
    src=$(veomni_sdist "$1") || return 1
    mkdir -p "$2/veomni/models"
    cp "$src/pyproject.toml" "$2/"
    cp -r "$src/veomni/models/transformers" "$2/veomni/models/"
    veomni_add_patchgen_table "$2/pyproject.toml"
    echo "$2"
}
