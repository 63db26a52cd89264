#!/usr/bin/env bash
# Corpus: pgci fetch on two real transformers releases (5.9.0 and 5.16.1, wheels from
# the Python package registry, cached outside the repository). Every .py file of the
# package, served by the local test server and read from the unpacked wheel as a
# dir: source:
#   - no real file is refused by the validation (UTF-8, not HTML, parses as Python);
#   - over HTTP every file lands in the cache intact (sha256sum is the oracle) and a
#     warm run makes no request;
#   - the dir: source gives the same bytes (the JSON digests agree with sha256sum).
# Prints the counts and the times.
set -eu
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
. tests/server/lib.sh
PGCI=${PGCI:-$PWD/bin/pgci}
T=$(mktemp -d /tmp/pgci-corpus-fetch-XXXXXX)
trap 'server_stop; rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache
now_ms() { echo $(($(date +%s%N) / 1000000)); }

for v in 5.9.0 5.16.1; do
    dir=$(corpus_wheel transformers "$v")
    (cd "$dir" && find transformers -name '*.py' | sort) >"$T/files-$v"
done
# one server over the corpus cache: /files/transformers-<version>/<path>
SERVER_LIFETIME=1200 server_start "$T/requests.log" --root "$PGCI_CORPUS_CACHE" || exit 1
base="http://127.0.0.1:$SERVER_PORT/files/transformers-{tag}/{path}"

for v in 5.9.0 5.16.1; do
    dir=$PGCI_CORPUS_CACHE/transformers-$v
    n=$(wc -l <"$T/files-$v")
    [ "$n" -gt 1000 ] || { echo "transformers $v: only $n .py files" >&2; exit 1; }
    args=()
    while IFS= read -r f; do
        m=${f%.py}
        args+=(--module "${m//\//.}")
    done <"$T/files-$v"
    t0=$(now_ms)
    "$PGCI" fetch --source "$base" --tag "$v" -j 16 "${args[@]}" >"$T/out" 2>"$T/err" ||
        { head -n 20 "$T/err" >&2; echo "transformers $v: fetch over HTTP failed" >&2; exit 1; }
    t_http=$(($(now_ms) - t0))
    grep -q ": $n fetched, 0 from cache, 0 failed, .* $n requests$" "$T/out" ||
        { cat "$T/out" >&2; exit 1; }
    # every file in the cache under its sha256sum, byte for byte
    (cd "$dir" && xargs -d '\n' sha256sum <"$T/files-$v") >"$T/sums-$v"
    while read -r sum path; do
        cmp -s "$XDG_CACHE_HOME/pgci/objects/$sum" "$dir/$path" ||
            { echo "transformers $v: $path not cached intact" >&2; exit 1; }
    done <"$T/sums-$v"
    before=$(server_count "$T/requests.log" files)
    t0=$(now_ms)
    "$PGCI" fetch --source "$base" --tag "$v" "${args[@]}" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
    t_warm=$(($(now_ms) - t0))
    grep -q ": 0 fetched, $n from cache, 0 failed, .* 0 requests$" "$T/out" || { cat "$T/out" >&2; exit 1; }
    [ "$(server_count "$T/requests.log" files)" -eq "$before" ] || { echo "warm run made requests" >&2; exit 1; }
    # the unpacked wheel as a dir: source (site-packages layout); digests as sha256sum
    t0=$(now_ms)
    "$PGCI" fetch --source "dir:$PGCI_CORPUS_CACHE/transformers-{tag}" --tag "$v" --format json \
        "${args[@]}" >"$T/json" 2>"$T/err" || { head -n 20 "$T/err" >&2; exit 1; }
    t_dir=$(($(now_ms) - t0))
    python3 - "$T/json" "$T/sums-$v" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    s, p = line.rstrip("\n").split("  ", 1)
    want[p] = s
got = {f["path"]: f["sha256"] for f in doc["files"]}
assert got == want, "digests differ"
PY
    bytes=$(awk '{ print }' "$T/out" | sed -n 's/.* \([0-9]*\) bytes,.*/\1/p')
    echo "transformers $v: $n files, $bytes bytes, all valid UTF-8 Python;" \
        "HTTP -j16 ${t_http} ms, warm ${t_warm} ms (0 requests), dir ${t_dir} ms"
done
