# Helpers for the fetch end-to-end tests and bench (sourced, not run).
#
#   server_start LOG [server args...]   starts http_fault_server.py; sets SERVER_PORT
#   server_count LOG BEHAVIOUR          requests the server saw for a behaviour
#   free_port                           a port nobody listens on
#
# The server exits by itself (--lifetime); server_stop (also run at exit) ends it
# earlier, by its own process id only.
# The servers are on 127.0.0.1: a proxy from the environment must not get in the way
# (libcurl honours these variables as curl does).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
SERVER_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/http_fault_server.py"
SERVER_PIDS=()

server_start() {
    local log=$1
    shift
    local portfile
    portfile=$(mktemp)
    python3 "$SERVER_PY" --log "$log" --lifetime "${SERVER_LIFETIME:-90}" "$@" >"$portfile" \
        2>/dev/null &
    SERVER_PIDS+=($!)
    local i
    for i in $(seq 1 100); do
        SERVER_PORT=$(head -n 1 "$portfile")
        [ -n "$SERVER_PORT" ] && break
        sleep 0.05
    done
    rm -f "$portfile"
    [ -n "$SERVER_PORT" ] || { echo "server did not start" >&2; return 1; }
}

server_stop() {
    local p
    for p in "${SERVER_PIDS[@]}"; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null || true # a killed server reports 143: not a failure
    done
    SERVER_PIDS=()
}

server_count() {
    [ -f "$1" ] || { echo 0; return; }
    awk -v b="$2" '$1 == b { n++ } END { print n + 0 }' "$1"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
