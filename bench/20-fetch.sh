#!/usr/bin/env bash
# Fetch benchmark: every module of the fixture trees (fixtures/upstream, both tags)
# from the local test server, pgci fetching in parallel (one process, the curl multi
# interface) against a sequential shell loop of `curl -fsS` (one process per file).
# Run twice: with no added latency, and with 50 ms per request to stand in for a
# real network round trip. Prints wall times (median of 3) and their ratio; never
# fails on time.
set -u
cd "$(dirname "$0")/.."
PGCI=${PGCI:-$PWD/bin/pgci}
. tests/server/lib.sh
command -v curl >/dev/null || { echo "fetch bench: curl not installed, skipped"; exit 0; }
T=$(mktemp -d /tmp/pgci-bench-fetch-XXXXXX)
trap 'server_stop; rm -rf "$T"' EXIT

tags=(v1.0.0 v1.1.0)
mods=()
while IFS= read -r f; do
    m=${f%.py}
    mods+=("${m//\//.}")
done < <(cd fixtures/upstream/v1.0.0 && find . -name '*.py' | sed 's|^\./||' | sort)
n=$((${#mods[@]} * ${#tags[@]}))
bytes=$(find fixtures/upstream/v1.0.0 fixtures/upstream/v1.1.0 -name '*.py' -exec cat {} + | wc -c)

now_ms() { echo $(($(date +%s%N) / 1000000)); }
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

run_pgci() {
    local args=()
    for t in "${tags[@]}"; do args+=(--tag "$t"); done
    for m in "${mods[@]}"; do args+=(--module "$m"); done
    "$PGCI" fetch --no-cache -j 8 --source "$1/files/{tag}/{path}" "${args[@]}" >/dev/null
}

run_curl() {
    local t m
    for t in "${tags[@]}"; do
        for m in "${mods[@]}"; do
            curl -fsS -o /dev/null "$1/files/$t/${m//.//}.py" || return 1
        done
    done
}

printf '%-22s %10s %10s %8s\n' "latency per request" "pgci -j8" "curl loop" "ratio"
for delay in 0 50; do
    server_start "$T/log-$delay" --root fixtures/upstream --delay "$delay" || exit 0
    base="http://127.0.0.1:$SERVER_PORT"
    run_pgci "$base" || { echo "fetch bench: pgci failed"; exit 0; }
    run_curl "$base" || { echo "fetch bench: curl failed"; exit 0; }
    p=() c=()
    for i in 1 2 3; do
        t0=$(now_ms); run_pgci "$base"; p+=($(($(now_ms) - t0)))
        t0=$(now_ms); run_curl "$base"; c+=($(($(now_ms) - t0)))
    done
    pm=$(median3 "${p[@]}")
    cm=$(median3 "${c[@]}")
    ratio=$(awk -v a="$cm" -v b="$pm" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
    printf '%-22s %8d ms %7d ms %8s\n' "${delay} ms" "$pm" "$cm" "$ratio"
done
echo "($n files, ${#mods[@]} modules x ${#tags[@]} tags, $bytes bytes; wall time, median of 3;"
echo " ratio = curl loop / pgci; pgci also validates every file as UTF-8 Python)"
