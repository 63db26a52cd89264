# Python packages that tests need, installed from the Python package registry into
# a cache outside the repository (never into the system, never committed), and put
# on PYTHONPATH. Usage: . tests/tools/pyenv.sh; pgci_pydeps jsonschema==4.23.0 ...
pgci_pydeps() {
    local cache=${PGCI_DEPS_CACHE:-$HOME/.cache/pgci-deps}/pytest-libs
    local want=("$@") missing=()
    for spec in "${want[@]}"; do
        [ -f "$cache/.ok-$spec" ] || missing+=("$spec")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        mkdir -p "$cache"
        python3 -m pip install --quiet --disable-pip-version-check --target "$cache" \
            "${missing[@]}" >/dev/null 2>&1 || { echo "cannot install ${missing[*]} from the registry" >&2; return 1; }
        for spec in "${missing[@]}"; do touch "$cache/.ok-$spec"; done
    fi
    export PYTHONPATH="$cache${PYTHONPATH:+:$PYTHONPATH}"
}
