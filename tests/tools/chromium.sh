# Headless Chromium (Debian's package) for tests that load pages as a browser does.
# pgci_chromium prints the command to use, installing the package first if needed.
pgci_chromium() {
    local c
    c=$(command -v chromium || command -v chromium-browser || true)
    if [ -z "$c" ]; then
        if [ "$(id -u)" = 0 ]; then
            echo "installing Debian's chromium for the HTML report test" >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
                { apt-get update -qq >/dev/null 2>&1 &&
                  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } ||
                { echo "cannot install chromium" >&2; return 1; }
            c=$(command -v chromium)
        else
            echo "chromium is not installed (apt-get install chromium)" >&2
            return 1
        fi
    fi
    echo "$c"
}

# chromium_run CHROMIUM ARGS...: headless, no sandbox (root in CI), no network use.
chromium_run() {
    local c=$1
    shift
    timeout 120 "$c" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-extensions --disable-background-networking \
        --user-data-dir="$(mktemp -d)" "$@" 2>/dev/null
}
