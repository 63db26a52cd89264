#!/usr/bin/env bash
# pgci fetch driven by a workspace: the modules are the configs' source_module
# literals, the source is [tool.pgci] upstream, the tag is v<pin>. On the bundled
# demo workspace (a dir: source) and on a copy of it whose upstream is the local
# HTTP server (then a warm run makes no request).
set -u
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-$PWD/bin/pgci}
. tests/server/lib.sh
T=$(mktemp -d /tmp/pgci-e2e-fetchws-XXXXXX)
trap 'server_stop; rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache
FX=$PWD/fixtures/upstream
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# the modules the demo configs name, sorted and de-duplicated (grep is the oracle)
mapfile -t mods < <(grep -rhoE 'source_module="[A-Za-z0-9_.]+"' fixtures/workspace --include='*_patch_gen_config.py' |
    sed 's/source_module="\(.*\)"/\1/' | sort -u)
[ "${#mods[@]}" -ge 3 ] || fail "demo: only ${#mods[@]} source modules found by grep"
expect=$T/expect
: >"$expect"
for m in "${mods[@]}"; do cat "$FX/v1.0.0/${m//.//}.py" >>"$expect"; done

# the demo workspace as it is: dir:../upstream/{tag} at v1.0.0 (the pin 1.0.0)
"$PGCI" fetch -C fixtures/workspace --print >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] || fail "demo: exit $rc: $(cat "$T/err")"
cmp -s "$expect" "$T/out" || fail "demo: the printed sources are not the fixture files at v1.0.0"
grep -qF "fetch: ${#mods[@]} modules x 1 tag from directory $PWD/fixtures/workspace/../upstream/{tag}: ${#mods[@]} fetched, 0 from cache, 0 failed, $(wc -c <"$expect") bytes, 0 requests" "$T/err" ||
    fail "demo: summary $(cat "$T/err")"
# from a subdirectory of the workspace, and another tag given on the command line
(cd fixtures/workspace/demo/models && "$PGCI" fetch --tag v1.1.0) >"$T/out" 2>&1 ||
    fail "demo subdir: $(cat "$T/out")"
grep -qF ": ${#mods[@]} fetched, 0 from cache, 0 failed" "$T/out" || fail "demo v1.1.0: $(cat "$T/out")"
echo "ok   demo workspace: ${#mods[@]} modules at v<pin> from its dir: upstream"

# --format json: every file with its SHA-256 (hashlib is the oracle), or its error
"$PGCI" fetch -C fixtures/workspace --format json --tag v1.0.0 --tag v9 >"$T/json" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] || fail "json: exit $rc"
python3 - "$T/json" "$FX" "${mods[@]}" <<'PY' || fail "json: $(cat "$T/json")"
import hashlib, json, sys
doc = json.load(open(sys.argv[1]))
fx, mods = sys.argv[2], sys.argv[3:]
files = doc["files"]
assert [(f["tag"], f["module"]) for f in files] == [(t, m) for t in ("v1.0.0", "v9") for m in mods], files
for f in files:
    if f["tag"] == "v1.0.0":
        data = open(f"{fx}/v1.0.0/{f['path']}", "rb").read()
        assert f["path"] == f["module"].replace(".", "/") + ".py"
        assert f["sha256"] == hashlib.sha256(data).hexdigest() and f["bytes"] == len(data), f
        assert "error" not in f
    else:
        assert f["error"].endswith("/upstream/v9: no such directory") and "sha256" not in f, f
s = doc["summary"]
assert (s["fetched"], s["from_cache"], s["failed"], s["requests"]) == (len(mods), 0, len(mods), 0), s
PY
[ "$(grep -c '^pgci: error: ' "$T/err")" -eq "${#mods[@]}" ] || fail "json: errors not on stderr"
"$PGCI" fetch -C fixtures/workspace --format json --print >/dev/null 2>"$T/err"
{ [ $? -eq 2 ] && grep -qF -- "--print and --format json both want stdout" "$T/err"; } || fail "json+print"
echo "ok   --format json checked against hashlib"

# a copy whose upstream is HTTP
LOG=$T/requests.log
server_start "$LOG" --root "$FX" || exit 1
cp -r fixtures/workspace "$T/ws"
sed -i "s|^upstream = .*|upstream = \"http://127.0.0.1:$SERVER_PORT/files/{tag}/{path}\"|" "$T/ws/pyproject.toml"
grep -q "^upstream = \"http://127.0.0.1:$SERVER_PORT/" "$T/ws/pyproject.toml" || fail "could not point the copy at the server"
"$PGCI" fetch -C "$T/ws" --tag v1.0.0 --tag v1.1.0 >"$T/out" 2>"$T/err" || fail "http ws: $(cat "$T/err")"
n2=$((2 * ${#mods[@]}))
grep -q ": $n2 fetched, 0 from cache, 0 failed, .* $n2 requests$" "$T/out" || fail "http ws: $(cat "$T/out")"
"$PGCI" fetch -C "$T/ws" --tag v1.0.0 --tag v1.1.0 >"$T/out" 2>"$T/err" || fail "http ws warm: $(cat "$T/err")"
grep -q ": 0 fetched, $n2 from cache, 0 failed, .* 0 requests$" "$T/out" || fail "http ws warm: $(cat "$T/out")"
[ "$(server_count "$LOG" files)" -eq "$n2" ] || fail "http ws warm: the server saw $(server_count "$LOG" files) requests"
echo "ok   workspace with an HTTP upstream: $n2 files, then a warm run without a request"
# --no-cache fetches upstream files again (a moving ref), in every command that has it:
# more requests than a warm run (a first run fills the cache with what fetch did not;
# a module missing at a tag is asked again every time, its 404 is never cached)
for cmd in "regen --no-ruff" "check --no-ruff" "survey --no-ruff --to v1.1.0"; do
    # shellcheck disable=SC2086
    "$PGCI" $cmd -C "$T/ws" >/dev/null 2>&1
    seen=()
    for nc in "" --no-cache; do
        before=$(server_count "$LOG" files)
        # shellcheck disable=SC2086
        "$PGCI" $cmd $nc -C "$T/ws" >"$T/out" 2>"$T/err"
        seen+=($(($(server_count "$LOG" files) - before)))
    done
    [ "${seen[1]}" -gt "${seen[0]}" ] ||
        fail "$cmd --no-cache read upstream from the cache: ${seen[1]} requests, warm ${seen[0]}"
done
echo "ok   regen, check and survey --no-cache fetch upstream again (more requests than warm)"

# a copy whose upstream is a git clone of the fixture trees (root layout, one commit
# and tag per fixture tag): modules at v<pin>, and --list-tags from the workspace
G=$T/upstream.git
mkdir -p "$G"
git -C "$G" init -q
for tag in v1.0.0 v1.1.0; do
    find "$G" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -r "$FX/$tag/." "$G/"
    git -C "$G" add -A
    git -C "$G" -c user.name=pgci -c user.email=pgci@example.org commit -qm "$tag"
    git -C "$G" tag "$tag"
done
cp -r fixtures/workspace "$T/wsgit"
sed -i "s|^upstream = .*|upstream = \"git:$G\"|" "$T/wsgit/pyproject.toml"
"$PGCI" fetch -C "$T/wsgit" --print >"$T/out" 2>"$T/err" || fail "git ws: $(cat "$T/err")"
cmp -s "$expect" "$T/out" || fail "git ws: not the fixture files at v1.0.0"
"$PGCI" fetch -C "$T/wsgit" --list-tags >"$T/out" 2>"$T/err" || fail "git ws tags: $(cat "$T/err")"
printf 'v1.0.0\nv1.1.0\n' | cmp -s - "$T/out" || fail "git ws tags: $(cat "$T/out")"
echo "ok   workspace with a git: upstream: modules at v<pin>, --list-tags"

# --source overrides the workspace's upstream; a tag the source lacks fails per module
"$PGCI" fetch -C "$T/ws" --source "dir:$FX/{tag}" --tag v9.9.9 >"$T/out" 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && [ "$(grep -c "^pgci: error: cannot fetch transformers@v9.9.9 .* from $FX/v9.9.9: no such directory$" "$T/err")" -eq "${#mods[@]}" ]; } ||
    fail "override: exit $rc: $(cat "$T/err")"
echo "ok   --source overrides [tool.pgci] upstream; every module reported"

# no pin and no --tag; no workspace at all
sed -i 's/"transformers==1.0.0",//' "$T/ws/pyproject.toml"
"$PGCI" fetch -C "$T/ws" >/dev/null 2>"$T/err"
{ [ $? -eq 2 ] && grep -qxF "pgci: error: fetch: no --tag given and the workspace has no transformers pin (see pgci fetch --help)" "$T/err"; } ||
    fail "no pin: $(cat "$T/err")"
mkdir -p "$T/empty"
"$PGCI" fetch -C "$T/empty" --tag v1 >/dev/null 2>"$T/err"
{ [ $? -eq 2 ] && grep -qF "pgci: error: fetch: no --module given and no workspace: " "$T/err"; } ||
    fail "no workspace: $(cat "$T/err")"
echo "ok   no pin, no workspace"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "fetch_workspace: all passed"
