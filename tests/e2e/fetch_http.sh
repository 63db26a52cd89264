#!/usr/bin/env bash
# pgci fetch over HTTP against the scripted local server: every fault of the list
# gives its one-line message, exit status 2, the right number of requests (no
# retry where a retry cannot help) and nothing in the cache; good files are
# fetched in parallel, cached by content, and a warm run makes no request.
set -u
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-$PWD/bin/pgci}
. tests/server/lib.sh

T=$(mktemp -d /tmp/pgci-e2e-fetch-XXXXXX)
trap 'server_stop; rm -rf "$T"' EXIT
LOG=$T/requests.log
server_start "$LOG" || exit 1
BASE="http://127.0.0.1:$SERVER_PORT"
M=transformers.models.llama.modeling_llama
P=src/transformers/models/llama/modeling_llama.py
fails=0

fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# run_fetch NAME BEHAVIOUR [pgci args...]: runs with a fresh cache in $T/NAME
run_fetch() {
    local name=$1 behaviour=$2
    shift 2
    CACHE=$T/$name/cache
    mkdir -p "$T/$name"
    XDG_CACHE_HOME=$T/$name/cache "$PGCI" fetch --source "$BASE/$behaviour/{tag}/src/{path}" \
        --retry-delay 50 "$@" >"$T/$name/out" 2>"$T/$name/err"
    RC=$?
}

cache_files() {
    find "$1" -type f 2>/dev/null | wc -l | tr -d ' '
}

# expect_fail NAME BEHAVIOUR REQUESTS MESSAGE [pgci args...]
expect_fail() {
    local name=$1 behaviour=$2 requests=$3 msg=$4
    shift 4
    local before
    before=$(server_count "$LOG" "$behaviour")
    run_fetch "$name" "$behaviour" --tag v1 --module "$M" "$@"
    local seen=$(($(server_count "$LOG" "$behaviour") - before))
    [ "$RC" -eq 2 ] || fail "$name: exit $RC, wanted 2"
    local prefix="pgci: error: cannot fetch transformers@v1 $P from $BASE/$behaviour/v1/$P: "
    local want="$prefix$msg" line matched=0
    # MESSAGE is matched exactly, or as an extended regex when it starts with "re:"
    while IFS= read -r line; do
        [[ "$line" == "$prefix"* ]] || continue
        local rest=${line#"$prefix"}
        if [[ "$msg" == re:* ]]; then
            [[ "$rest" =~ ^${msg#re:}$ ]] && matched=1
        else
            [ "$rest" = "$msg" ] && matched=1
        fi
    done <"$T/$name/err"
    [ "$matched" -eq 1 ] || fail "$name: stderr is
$(cat "$T/$name/err")
wanted the line
$want"
    [ "$(grep -c '^pgci: error:' "$T/$name/err")" -eq 1 ] || fail "$name: not one error line"
    [ "$seen" -eq "$requests" ] || fail "$name: server saw $seen requests, wanted $requests"
    [ "$(cache_files "$CACHE")" -eq 0 ] || fail "$name: something was cached: $(find "$CACHE" -type f)"
    echo "ok   $name"
}

# --- success, content, cache, warm run ------------------------------------------------
run_fetch ok ok --tag v1 --module "$M" --print
[ "$RC" -eq 0 ] || fail "ok: exit $RC: $(cat "$T/ok/err")"
head -n 1 "$T/ok/out" | grep -qxF "# generated for v1/$P" || fail "ok: unexpected body"
grep -q "^fetch: 1 module x 1 tag from $BASE/ok/{tag}/src/{path}: 1 fetched, 0 from cache, 0 failed, $(wc -c <"$T/ok/out") bytes, 1 request$" "$T/ok/err" ||
    fail "ok: summary: $(cat "$T/ok/err")"
# the cache holds the body under its SHA-256 (sha256sum is the oracle)
sum=$(sha256sum <"$T/ok/out" | cut -d' ' -f1)
[ -f "$T/ok/cache/pgci/objects/$sum" ] || fail "ok: no object $sum in the cache"
cmp -s "$T/ok/cache/pgci/objects/$sum" "$T/ok/out" || fail "ok: cached bytes differ"
[ "$(cache_files "$T/ok/cache")" -eq 2 ] || fail "ok: wanted one object and one key"
[ "$(server_count "$LOG" ok)" -eq 1 ] || fail "ok: $(server_count "$LOG" ok) requests"
# warm: same answer, no request
XDG_CACHE_HOME=$T/ok/cache "$PGCI" fetch --source "$BASE/ok/{tag}/src/{path}" --tag v1 \
    --module "$M" --print >"$T/ok/out2" 2>"$T/ok/err2" || fail "ok warm: exit $?"
cmp -s "$T/ok/out" "$T/ok/out2" || fail "ok warm: different bytes"
grep -q ": 0 fetched, 1 from cache, 0 failed, .* 0 requests$" "$T/ok/err2" || fail "ok warm: $(cat "$T/ok/err2")"
[ "$(server_count "$LOG" ok)" -eq 1 ] || fail "ok warm: the server saw a request"
# --no-cache asks again and writes nothing
XDG_CACHE_HOME=$T/ok/nocache "$PGCI" fetch --source "$BASE/ok/{tag}/src/{path}" --tag v1 \
    --module "$M" --no-cache >/dev/null 2>&1 || fail "ok --no-cache: exit $?"
[ "$(server_count "$LOG" ok)" -eq 2 ] || fail "ok --no-cache: no request"
[ ! -e "$T/ok/nocache" ] || fail "ok --no-cache: a cache was written"
echo "ok   200, cache by content, warm run without a request, --no-cache"

# an entry an older pgci cached for an empty body (it refused none then): a miss,
# fetched again, not returned as the module
cp -r "$T/ok/cache" "$T/ok/oldcache"
empty=$(printf '' | sha256sum | cut -d' ' -f1)
: >"$T/ok/oldcache/pgci/objects/$empty"
keyf=$(find "$T/ok/oldcache/pgci/keys" -type f)
{ echo "$empty"; tail -n +2 "$keyf"; } >"$keyf.new" && mv "$keyf.new" "$keyf"
before=$(server_count "$LOG" ok)
XDG_CACHE_HOME=$T/ok/oldcache "$PGCI" fetch --source "$BASE/ok/{tag}/src/{path}" --tag v1 \
    --module "$M" --print >"$T/ok/out3" 2>"$T/ok/err3" || fail "old empty entry: exit $?"
cmp -s "$T/ok/out" "$T/ok/out3" || fail "old empty entry: returned $(wc -c <"$T/ok/out3") bytes"
[ "$(($(server_count "$LOG" ok) - before))" -eq 1 ] || fail "old empty entry: not fetched again"
echo "ok   an empty body an older pgci cached: fetched again"

# many modules x tags in parallel; a later warm run with one more tag asks only for it
mods=()
for m in llama qwen3 mixtral gemma mistral phi; do mods+=(--module "transformers.models.$m.modeling_$m"); done
before=$(server_count "$LOG" ok)
run_fetch many ok --tag v1 --tag v2 "${mods[@]}" -j 6
[ "$RC" -eq 0 ] || fail "many: exit $RC: $(cat "$T/many/err")"
grep -q ": 6 modules x 2 tags from .*: 12 fetched, 0 from cache, 0 failed, .* 12 requests$" "$T/many/out" ||
    fail "many: $(cat "$T/many/out")"
[ $(($(server_count "$LOG" ok) - before)) -eq 12 ] || fail "many: wanted 12 requests"
XDG_CACHE_HOME=$T/many/cache "$PGCI" fetch --source "$BASE/ok/{tag}/src/{path}" --tag v1 --tag v2 \
    --tag v3 "${mods[@]}" >"$T/many/out2" 2>&1 || fail "many warm: exit $?"
grep -q ": 6 fetched, 12 from cache, 0 failed, .* 6 requests$" "$T/many/out2" || fail "many warm: $(cat "$T/many/out2")"
echo "ok   6 modules x 2 tags in parallel, then a third tag alone"

# redirects are followed; gzip is decoded
run_fetch redirect redirect --tag v1 --module "$M"
{ [ "$RC" -eq 0 ] && [ "$(cache_files "$CACHE")" -eq 2 ]; } || fail "redirect: exit $RC: $(cat "$T/redirect/err")"
run_fetch gzip gzip --tag v1 --module "$M" --print
{ [ "$RC" -eq 0 ] && head -n 1 "$T/gzip/out" | grep -qxF "# generated for v1/$P"; } || fail "gzip: exit $RC"
echo "ok   redirect followed, gzip decoded"

# --- transient failures that a retry fixes ----------------------------------------------
for b in fail-1-500 fail-2-503 fail-1-502 fail-1-429 fail-1-408; do
    before=$(server_count "$LOG" "$b")
    run_fetch "$b" "$b" --tag v1 --module "$M"
    want=$((${b:5:1} + 1))
    [ "$RC" -eq 0 ] || fail "$b: exit $RC: $(cat "$T/$b/err")"
    [ $(($(server_count "$LOG" "$b") - before)) -eq "$want" ] || fail "$b: wanted $want requests"
    [ "$(cache_files "$CACHE")" -eq 2 ] || fail "$b: not cached after the retry"
done
echo "ok   500, 503 twice, 502, 429, 408, each then 200: retried and cached"

# Retry-After is honoured (the backoff alone would be 50 ms) and capped
t0=$(date +%s%N)
run_fetch retry-after retry-after-1 --tag v1 --module "$M"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$RC" -eq 0 ] || fail "retry-after: exit $RC"
[ "$ms" -ge 950 ] || fail "retry-after: waited only $ms ms of Retry-After: 1"
[ "$(server_count "$LOG" retry-after-1)" -eq 2 ] || fail "retry-after: wanted 2 requests"
t0=$(date +%s%N)
run_fetch retry-after-cap retry-after-3600 --tag v1 --module "$M" --retry-after-max 1
ms2=$((($(date +%s%N) - t0) / 1000000))
{ [ "$RC" -eq 0 ] && [ "$ms2" -ge 900 ] && [ "$ms2" -lt 5000 ]; } || fail "retry-after cap: exit $RC after $ms2 ms"
echo "ok   429 with Retry-After: 1 waited $ms ms; Retry-After: 3600 capped at 1 s ($ms2 ms)"

# --- a token in the source template stays out of every message and the cache -----------
CRED="http://pgci:s3cret-token@127.0.0.1:$SERVER_PORT"
mkdir -p "$T/cred"
for behaviour in status-404 ok; do
    XDG_CACHE_HOME=$T/cred/cache "$PGCI" fetch --source "$CRED/$behaviour/{tag}/src/{path}" \
        --retry-delay 50 --tag v1 --module "$M" --print >"$T/cred/out" 2>"$T/cred/err" || true
    ! grep -q "s3cret" "$T/cred/err" || fail "credentials: the token is in the messages: $(cat "$T/cred/err")"
    grep -q "http://\*\*\*@127.0.0.1:$SERVER_PORT/$behaviour/" "$T/cred/err" ||
        fail "credentials: the source is not named, redacted: $(cat "$T/cred/err")"
done
[ -n "$(find "$T/cred/cache" -type f)" ] || fail "credentials: nothing cached"
! grep -rq "s3cret" "$T/cred/cache" || fail "credentials: the token is in the cache"
echo "ok   a token in the source template: redacted in messages and cache keys"

# --- failures -------------------------------------------------------------------------
expect_fail 404 status-404 1 "HTTP 404"
expect_fail 403 status-403 1 "HTTP 403"
expect_fail 410 status-410 1 "HTTP 410"
expect_fail 500-always fail-9-500 3 "HTTP 500, after 3 attempts" --retries 2
expect_fail html html 1 "modeling_llama.py is an HTML page, not Python (an error or login page served with a success status?)"
expect_fail binary binary 1 "modeling_llama.py is binary data (a NUL byte at offset 0), not Python source"
expect_fail badutf8 badutf8 1 "modeling_llama.py is not valid UTF-8 (byte 0xff at offset 11), not Python source"
expect_fail syntax syntax 1 "not valid Python: modeling_llama.py:1:7: syntax error near ''"
# valid Python that the bytes alone tell is no module: never returned, never cached
expect_fail empty empty 1 "modeling_llama.py is empty: not a Python module (an empty body served with a success status?)"
expect_fail nocontent nocontent 1 "modeling_llama.py is empty: not a Python module (an empty body served with a success status?)"
expect_fail blank blank 1 "modeling_llama.py is empty (only whitespace): not a Python module (an empty body served with a success status?)"
expect_fail json json 1 "modeling_llama.py is a JSON document, not a Python module (an error served with a success status?)"
expect_fail stall stall 2 "no data for 1000 ms (stalled after 20 bytes), after 2 attempts" --stall-timeout 1 --retries 1
expect_fail timeout stall 1 "re:Operation timed out after 10[0-9][0-9] milliseconds with 20 out of 1000 bytes received \(curl error 28\)" --timeout 1 --retries 0
expect_fail truncated truncated 2 "transfer closed with 4900 bytes remaining to read (curl error 18), after 2 attempts" --retries 1
expect_fail big big 1 "the body is over the 1048576-byte size cap" --max-size 1024
expect_fail bigstream bigstream 1 "the body is over the 1048576-byte size cap" --max-size 1024
expect_fail gzipbomb gzipbomb 1 "the body is over the 16777216-byte size cap"
expect_fail loop-302 loop-302 11 "Maximum (10) redirects followed (curl error 47)"
expect_fail loop-301 loop-301 11 "Maximum (10) redirects followed (curl error 47)"
# a Content-Length shorter than the body: HTTP cannot tell, the validation does
expect_fail shortlength shortlength 1 "re:not valid Python: modeling_llama.py:2:[0-9]+: syntax error near .*"

# a cache that cannot be written (a file where its directory should be): the good
# downloads are used, with one warning for the run that names the cache and why
echo x >"$T/cachefile"
before=$(server_count "$LOG" ok)
XDG_CACHE_HOME=$T/cachefile "$PGCI" fetch --source "$BASE/ok/{tag}/src/{path}" --tag v1 \
    --module "$M" --module transformers.models.qwen3.modeling_qwen3 --print \
    >"$T/unwritable.out" 2>"$T/unwritable.err"
rc=$?
[ "$rc" -eq 0 ] || fail "unwritable cache: exit $rc: $(cat "$T/unwritable.err")"
grep -qxF "# generated for v1/$P" "$T/unwritable.out" || fail "unwritable cache: no body"
[ "$(($(server_count "$LOG" ok) - before))" -eq 2 ] || fail "unwritable cache: wanted 2 requests"
[ "$(grep -c '^pgci: warning: ' "$T/unwritable.err")" -eq 1 ] &&
    grep -qxF "pgci: warning: cannot write the cache in $T/cachefile/pgci: cannot create directory $T/cachefile/pgci: Not a directory; going on without caching upstream files" "$T/unwritable.err" ||
    fail "unwritable cache: wanted one warning, got: $(cat "$T/unwritable.err")"
! grep -q '^pgci: error:' "$T/unwritable.err" || fail "unwritable cache: an error: $(cat "$T/unwritable.err")"
echo "ok   unwritable cache: files used, one warning"

# a git: clone whose origin accepts the connection and never answers: libgit2 1.5
# would wait forever; --timeout bounds the --git-fetch, with one line and exit 2
g() { git -C "$1" -c user.name=pgci -c user.email=pgci@example.org -c init.defaultBranch=main "${@:2}"; }
mkdir -p "$T/gitorigin/src/transformers/models/llama"
printf 'X = 1\n' >"$T/gitorigin/$P"
g "$T/gitorigin" init -q && g "$T/gitorigin" add -A && g "$T/gitorigin" commit -qm one &&
    g "$T/gitorigin" tag v1 && git clone -q "$T/gitorigin" "$T/gitclone" &&
    git -C "$T/gitclone" remote set-url origin "$BASE/silent/repo.git" || fail "silent origin: setup"
before=$(server_count "$LOG" silent)
start=$(date +%s)
timeout 30 "$PGCI" fetch --source "git:$T/gitclone" --git-fetch --tag v1 --module "$M" --timeout 2 \
    >"$T/silent.out" 2>"$T/silent.err"
rc=$? took=$(($(date +%s) - start))
[ "$rc" -eq 2 ] || fail "silent origin: exit $rc after $took s (124: still hung at 30 s)"
[ "$took" -le 10 ] || fail "silent origin: took $took s with --timeout 2"
# pgci's own lines only (an ASan build adds LeakSanitizer's report of the
# suppressed libgit2 leaks after them)
printf 'pgci: error: cannot fetch tags from %s into %s: no answer within 2 s (--timeout)\n' \
    "$BASE/silent/repo.git" "$T/gitclone" | cmp -s - <(grep '^pgci' "$T/silent.err") ||
    fail "silent origin: $(cat "$T/silent.err")"
[ "$(($(server_count "$LOG" silent) - before))" -eq 1 ] || fail "silent origin: the request never reached the server"
echo "ok   git: --git-fetch from an origin that never answers"

# connection refused: retried (the server may be restarting), then reported
port=$(free_port)
XDG_CACHE_HOME=$T/refused/cache "$PGCI" fetch --source "http://127.0.0.1:$port/{tag}/src/{path}" \
    --tag v1 --module "$M" --retries 1 --retry-delay 50 >"$T/refused.out" 2>"$T/refused.err"
rc=$?
[ "$rc" -eq 2 ] || fail "refused: exit $rc"
grep -q "^pgci: error: cannot fetch transformers@v1 $P from http://127.0.0.1:$port/v1/$P: Failed to connect to 127.0.0.1 port $port .*(curl error 7), after 2 attempts$" "$T/refused.err" ||
    fail "refused: $(cat "$T/refused.err")"
grep -q ": 0 fetched, 0 from cache, 1 failed, 0 bytes, 2 requests$" "$T/refused.out" || fail "refused: $(cat "$T/refused.out")"
[ "$(cache_files "$T/refused/cache")" -eq 0 ] || fail "refused: cached"
echo "ok   connection refused"

# DNS failure: not retried
XDG_CACHE_HOME=$T/dns/cache "$PGCI" fetch --source "http://pgci-test.invalid/{tag}/src/{path}" \
    --tag v1 --module "$M" --connect-timeout 5 >"$T/dns.out" 2>"$T/dns.err"
rc=$?
[ "$rc" -eq 2 ] || fail "dns: exit $rc"
grep -q "^pgci: error: cannot fetch transformers@v1 $P from http://pgci-test.invalid/v1/$P: .*(curl error 6)$" "$T/dns.err" ||
    fail "dns: $(cat "$T/dns.err")"
grep -q " 1 request$" "$T/dns.out" || fail "dns: retried: $(cat "$T/dns.out")"
echo "ok   DNS failure"

# TLS: a self-signed local HTTPS server is refused, not trusted
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || fail "tls: openssl could not make a certificate"
TLOG=$T/tls.log
server_start "$TLOG" --tls "$T/cert.pem" "$T/key.pem" || exit 1
XDG_CACHE_HOME=$T/tls/cache "$PGCI" fetch --source "https://127.0.0.1:$SERVER_PORT/ok/{tag}/src/{path}" \
    --tag v1 --module "$M" >"$T/tls.out" 2>"$T/tls.err"
rc=$?
[ "$rc" -eq 2 ] || fail "tls: exit $rc"
grep -q "^pgci: error: cannot fetch transformers@v1 $P from https://127.0.0.1:$SERVER_PORT/ok/v1/$P: SSL certificate problem: self-signed certificate (curl error 60)$" "$T/tls.err" ||
    fail "tls: $(cat "$T/tls.err")"
[ "$(server_count "$TLOG" ok)" -eq 0 ] || fail "tls: a request got through"
[ "$(cache_files "$T/tls/cache")" -eq 0 ] || fail "tls: cached"
# the same server is fine once its certificate is trusted: it was the verification
# that refused it, not anything else about the connection
XDG_CACHE_HOME=$T/tls/cache "$PGCI" fetch --source "https://127.0.0.1:$SERVER_PORT/ok/{tag}/src/{path}" \
    --tag v1 --module "$M" --cacert "$T/cert.pem" >"$T/tls.out" 2>"$T/tls.err"
rc=$?
{ [ "$rc" -eq 0 ] && [ "$(server_count "$TLOG" ok)" -eq 1 ] && [ "$(cache_files "$T/tls/cache")" -eq 2 ]; } ||
    fail "tls trusted: exit $rc: $(cat "$T/tls.err")"
"$PGCI" fetch --source "https://127.0.0.1:$SERVER_PORT/ok/{tag}/src/{path}" --tag v1 --module "$M" \
    --cacert "$T/nope.pem" >/dev/null 2>"$T/tls.err"
{ [ $? -eq 2 ] && grep -qF "CA certificate file $T/nope.pem does not exist" "$T/tls.err"; } || fail "tls: missing --cacert file"
echo "ok   TLS with a self-signed certificate refused; accepted with --cacert"

# --- every module is tried after a failure ----------------------------------------------
XDG_CACHE_HOME=$T/mixed/cache "$PGCI" fetch --source "$BASE/status-404/{tag}/src/{path}" --tag v1 \
    --tag v2 --module "$M" --module transformers.models.qwen3.modeling_qwen3 >/dev/null 2>"$T/mixed.err"
rc=$?
{ [ "$rc" -eq 2 ] && [ "$(grep -c '^pgci: error: .*HTTP 404$' "$T/mixed.err")" -eq 4 ]; } ||
    fail "mixed: exit $rc, $(cat "$T/mixed.err")"
echo "ok   every module and tag tried after a failure"

# --- the fixture trees served over HTTP: all of them at both tags, byte for byte -------
FX=$PWD/fixtures/upstream
FLOG=$T/files.log
server_start "$FLOG" --root "$FX" || exit 1
FBASE="http://127.0.0.1:$SERVER_PORT"
fmods=()
while IFS= read -r f; do
    m=${f%.py}
    fmods+=(--module "${m//\//.}")
done < <(cd "$FX/v1.0.0" && find . -name '*.py' | sed 's|^\./||' | sort)
nf=$((${#fmods[@]} / 2))
XDG_CACHE_HOME=$T/fx/cache "$PGCI" fetch --source "$FBASE/files/{tag}/{path}" --tag v1.0.0 --tag v1.1.0 \
    "${fmods[@]}" -j 8 >"$T/fx.out" 2>"$T/fx.err" || fail "fixtures: $(cat "$T/fx.err")"
grep -q ": $((2 * nf)) fetched, 0 from cache, 0 failed, .* $((2 * nf)) requests$" "$T/fx.out" || fail "fixtures: $(cat "$T/fx.out")"
for tag in v1.0.0 v1.1.0; do
    while IFS= read -r f; do
        sum=$(sha256sum <"$FX/$tag/$f" | cut -d' ' -f1)
        cmp -s "$T/fx/cache/pgci/objects/$sum" "$FX/$tag/$f" || fail "fixtures: $tag/$f not cached intact"
    done < <(cd "$FX/$tag" && find . -name '*.py' | sed 's|^\./||')
done
XDG_CACHE_HOME=$T/fx/cache "$PGCI" fetch --source "$FBASE/files/{tag}/{path}" --tag v1.0.0 --tag v1.1.0 \
    "${fmods[@]}" >"$T/fx.out" 2>"$T/fx.err" || fail "fixtures warm: $(cat "$T/fx.err")"
grep -q ": 0 fetched, $((2 * nf)) from cache, 0 failed, .* 0 requests$" "$T/fx.out" || fail "fixtures warm: $(cat "$T/fx.out")"
[ "$(server_count "$FLOG" files)" -eq $((2 * nf)) ] || fail "fixtures warm: the server saw more requests"
echo "ok   $nf fixture modules x 2 tags over HTTP, cached intact; warm run: no request"

# --- usage -------------------------------------------------------------------------------
"$PGCI" fetch --module "$M" >/dev/null 2>"$T/u1.err"
{ [ $? -eq 2 ] && grep -qF "no --tag given" "$T/u1.err"; } || fail "usage: no tag"
"$PGCI" fetch --tag v1 --module 'transformers/../../etc' --source "$BASE/ok/{tag}/{path}" >/dev/null 2>"$T/u2.err"
{ [ $? -eq 2 ] && grep -qF "module name 'transformers/../../etc' is not dotted identifiers" "$T/u2.err"; } ||
    fail "usage: bad module: $(cat "$T/u2.err")"
"$PGCI" fetch --tag ../v1 --module "$M" --source "$BASE/ok/{tag}/{path}" >/dev/null 2>"$T/u3.err"
{ [ $? -eq 2 ] && grep -qF "tag '../v1' must not start with '.'" "$T/u3.err"; } || fail "usage: bad tag: $(cat "$T/u3.err")"
"$PGCI" fetch --tag v1 --module "$M" --source "ftp://x/{path}" >/dev/null 2>"$T/u4.err"
{ [ $? -eq 2 ] && grep -qF "unknown upstream source 'ftp://x/{path}'" "$T/u4.err"; } || fail "usage: bad source"
echo "ok   usage errors"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "fetch_http: all passed"
