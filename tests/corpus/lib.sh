# Shared helpers for corpus tests and benches: fetch registry distributions into
# the corpus cache (never into the repository).
PGCI_CORPUS_CACHE=${PGCI_CORPUS_CACHE:-$HOME/.cache/pgci-corpus}

# corpus_patchgen DIR -> the real patchgen alone, importable from DIR: veomni
# 0.1.11's veomni/patchgen/ (from the registry) under an empty veomni package, so
# nothing else of veomni, and no torch, is imported.
corpus_patchgen() {
    local wheel
    wheel=$(corpus_wheel veomni 0.1.11) || { echo "cannot get veomni 0.1.11 from the registry" >&2; return 1; }
    mkdir -p "$1/veomni" && : >"$1/veomni/__init__.py" && cp -r "$wheel/veomni/patchgen" "$1/veomni/"
}

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

# corpus_hf_venv -> prints the python of a venv in the cache with torch and
# transformers at the pinned versions (the registry's wheels; ~3 GB on first use).
PGCI_HF_TORCH=2.15.0
PGCI_HF_TRANSFORMERS=5.24.0
corpus_hf_venv() {
    local venv="$PGCI_CORPUS_CACHE/hf-torch$PGCI_HF_TORCH-tf$PGCI_HF_TRANSFORMERS"
    if [ ! -f "$venv/.done" ]; then
        rm -rf "$venv"
        python3 -m venv "$venv" || return 1
        "$venv/bin/python" -m pip install --quiet "torch==$PGCI_HF_TORCH" \
            "transformers==$PGCI_HF_TRANSFORMERS" > "$venv.log" 2>&1 ||
            { echo "cannot install torch==$PGCI_HF_TORCH transformers==$PGCI_HF_TRANSFORMERS: $(tail -n 1 "$venv.log")" >&2; return 1; }
        touch "$venv/.done"
    fi
    echo "$venv/bin/python"
}
