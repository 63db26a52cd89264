#!/usr/bin/env bash
# pgci fetch from local sources: a throwaway git clone with tags (made here with
# the git command line, read by pgci through libgit2) and directories laid out as a
# checkout per tag or as a site-packages. Found files, missing tags and paths, a
# corrupt repository, --list-tags, --git-fetch, relative specs under -C.
set -u
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-$PWD/bin/pgci}
T=$(mktemp -d /tmp/pgci-e2e-local-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/cache
M=transformers.models.llama.modeling_llama
P=src/transformers/models/llama/modeling_llama.py
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
g() { git -C "$1" -c user.name=pgci -c user.email=pgci@example.org -c init.defaultBranch=main "${@:2}"; }

# --- a repository with three releases ----------------------------------------------------
R=$T/ws/upstream
mkdir -p "$R"
g "$R" init -q
mkdir -p "$R/src/transformers/models/llama"
printf 'class LlamaModel:\n    version = 1\n' >"$R/$P"
g "$R" add -A && g "$R" commit -qm one && g "$R" tag -a v5.9.0 -m v5.9.0
printf 'class LlamaModel:\n    version = 2\n' >"$R/$P"
mkdir -p "$R/src/transformers/models/qwen3"
printf 'X = 1\n' >"$R/src/transformers/models/qwen3/modeling_qwen3.py"
g "$R" add -A && g "$R" commit -qm two && g "$R" tag v5.10.0
printf '<!DOCTYPE html>\n<html></html>\n' >"$R/$P"
g "$R" add -A && g "$R" commit -qm three && g "$R" tag v5.11.0

"$PGCI" fetch --source "git:$R" --tag v5.9.0 --tag v5.10.0 --module "$M" --print >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] || fail "git found: exit $rc: $(cat "$T/err")"
printf 'class LlamaModel:\n    version = 1\nclass LlamaModel:\n    version = 2\n' | cmp -s - "$T/out" ||
    fail "git found: wrong bytes: $(cat "$T/out")"
grep -qF "fetch: 1 module x 2 tags from git repository $R: 2 fetched, 0 from cache, 0 failed" "$T/err" ||
    fail "git found: summary $(cat "$T/err")"
[ ! -e "$T/cache" ] || fail "git: the local source wrote a cache"
echo "ok   git: blobs at two tags"

# relative spec under -C: the path hangs off the workspace
(cd / && "$PGCI" fetch -C "$T/ws" --source git:upstream --tag v5.10.0 --module transformers.models.qwen3.modeling_qwen3 --print) >"$T/out" 2>"$T/err"
{ [ $? -eq 0 ] && [ "$(cat "$T/out")" = "X = 1" ]; } || fail "git relative: $(cat "$T/err")"
echo "ok   git: relative spec resolved under -C"

"$PGCI" fetch --source "git:$R" --tag v9.0.0 --module "$M" >/dev/null 2>"$T/err"
rc=$?
want="pgci: error: cannot fetch transformers@v9.0.0 $P from git repository $R (refs/tags/v9.0.0:$P): no tag v9.0.0 in the clone (fetch it, or use --git-fetch)"
{ [ "$rc" -eq 2 ] && grep -qxF "$want" "$T/err"; } || fail "git missing tag: exit $rc: $(cat "$T/err")"
echo "ok   git: missing tag"

"$PGCI" fetch --source "git:$R" --tag v5.9.0 --module transformers.models.qwen3.modeling_qwen3 >/dev/null 2>"$T/err"
rc=$?
want="pgci: error: cannot fetch transformers@v5.9.0 src/transformers/models/qwen3/modeling_qwen3.py from git repository $R (refs/tags/v5.9.0:src/transformers/models/qwen3/modeling_qwen3.py): tag v5.9.0 has neither src/transformers/models/qwen3/modeling_qwen3.py nor transformers/models/qwen3/modeling_qwen3.py"
{ [ "$rc" -eq 2 ] && grep -qxF "$want" "$T/err"; } || fail "git missing path: exit $rc: $(cat "$T/err")"
echo "ok   git: missing path"

"$PGCI" fetch --source "git:$R" --tag v5.11.0 --module "$M" >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "modeling_llama.py is an HTML page, not Python" "$T/err"; } ||
    fail "git html: exit $rc: $(cat "$T/err")"
echo "ok   git: an HTML blob is refused"

# a symlink in the tree: its blob is the target's name ("impl.py", which parses), so
# it is refused rather than returned as the module
S=$T/symlinked
mkdir -p "$S/src/transformers/models/llama"
g "$S" init -q
printf 'class LlamaModel:\n    pass\n' >"$S/src/transformers/models/llama/impl.py"
ln -s impl.py "$S/$P"
g "$S" add -A && g "$S" commit -qm sl && g "$S" tag v1
"$PGCI" fetch --source "git:$S" --tag v1 --module "$M" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c '^pgci: error:' "$T/err")" -eq 1 ] &&
    grep -qxF "pgci: error: cannot fetch transformers@v1 $P from git repository $S (refs/tags/v1:$P): ${P#src/} is a symlink in the tree at v1" "$T/err" ||
    fail "git symlink: exit $rc: $(cat "$T/err")"
echo "ok   git: a symlink in the tree is refused"

"$PGCI" fetch --source "git:$R" --list-tags >"$T/out" 2>"$T/err" || fail "list-tags: $(cat "$T/err")"
printf 'v5.9.0\nv5.10.0\nv5.11.0\n' | cmp -s - "$T/out" || fail "list-tags: order $(cat "$T/out")"
echo "ok   git: --list-tags in version order"

# pre-releases in core/version.c's order: before their release, rc2 before rc10
# (the git source used to sort v5.10.0 before v5.10.0rc1)
for t in v5.10.0rc10 v5.10.0rc1 v5.10.0rc2; do g "$R" tag "$t"; done
"$PGCI" fetch --source "git:$R" --list-tags >"$T/out" 2>"$T/err" || fail "list-tags rc: $(cat "$T/err")"
printf 'v5.9.0\nv5.10.0rc1\nv5.10.0rc2\nv5.10.0rc10\nv5.10.0\nv5.11.0\n' | cmp -s - "$T/out" ||
    fail "list-tags rc: order $(cat "$T/out")"
echo "ok   git: --list-tags puts pre-releases before their release"

# corrupt: the objects are gone, the tag refs are still there
C=$T/corrupt
cp -r "$R" "$C"
rm -rf "$C/.git/objects/"??
"$PGCI" fetch --source "git:$C" --tag v5.9.0 --module "$M" >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "from git repository $C (refs/tags/v5.9.0:$P): tag v5.9.0 is there but its commit cannot be read (a corrupt or shallow repository?): " "$T/err"; } ||
    fail "git corrupt: exit $rc: $(cat "$T/err")"
# not a repository at all
"$PGCI" fetch --source "git:$T/nothing" --tag v5.9.0 --module "$M" >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "pgci: error: cannot open git repository $T/nothing: " "$T/err"; } ||
    fail "git no repo: exit $rc: $(cat "$T/err")"
echo "ok   git: corrupt repository, no repository"

# --git-fetch: a clone learns a tag its origin got later
git clone -q "$R" "$T/clone"
printf 'class LlamaModel:\n    version = 6\n' >"$R/$P"
g "$R" add -A && g "$R" commit -qm six && g "$R" tag -a v6.0.0 -m v6.0.0
"$PGCI" fetch --source "git:$T/clone" --tag v6.0.0 --module "$M" >/dev/null 2>"$T/err"
[ $? -eq 2 ] || fail "git-fetch: the clone already had v6.0.0"
"$PGCI" fetch --source "git:$T/clone" --git-fetch --tag v6.0.0 --module "$M" --print >"$T/out" 2>"$T/err"
{ [ $? -eq 0 ] && grep -qxF "    version = 6" "$T/out"; } || fail "git-fetch: $(cat "$T/err")"
echo "ok   git: --git-fetch"

# --- dir sources --------------------------------------------------------------------------
D=$T/ws/trees
for tag in v1 v2; do
    mkdir -p "$D/checkout-$tag/src/transformers/models/llama"
    printf 'TAG = "%s"\n' "$tag" >"$D/checkout-$tag/$P"
done
mkdir -p "$D/site-packages/transformers/models/llama"
printf 'SITE = 1\n' >"$D/site-packages/transformers/models/llama/modeling_llama.py"
"$PGCI" fetch -C "$T/ws" --source 'dir:trees/checkout-{tag}' --tag v1 --tag v2 --module "$M" --print >"$T/out" 2>"$T/err"
{ [ $? -eq 0 ] && printf 'TAG = "v1"\nTAG = "v2"\n' | cmp -s - "$T/out"; } || fail "dir tag: $(cat "$T/err")"
"$PGCI" fetch -C "$T/ws" --source 'dir:trees/checkout-{tag}' --list-tags >"$T/out" 2>"$T/err" ||
    fail "dir list-tags: $(cat "$T/err")"
printf 'v1\nv2\n' | cmp -s - "$T/out" || fail "dir list-tags: $(cat "$T/out")"
"$PGCI" fetch --source "dir:$D/site-packages" --list-tags >/dev/null 2>"$T/err"
{ [ $? -ne 0 ] && grep -qxF "pgci: error: cannot list tags of directory $D/site-packages: no {tag} in it" "$T/err"; } ||
    fail "dir list-tags without {tag}: $(cat "$T/err")"
"$PGCI" fetch --source "dir:$D/site-packages" --tag anything --module "$M" --print >"$T/out" 2>"$T/err"
{ [ $? -eq 0 ] && [ "$(cat "$T/out")" = "SITE = 1" ]; } || fail "dir site-packages: $(cat "$T/err")"
"$PGCI" fetch -C "$T/ws" --source 'dir:trees/checkout-{tag}' --tag v3 --module "$M" >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -qxF "pgci: error: cannot fetch transformers@v3 $P from $T/ws/trees/checkout-v3: no such directory" "$T/err"; } ||
    fail "dir missing: exit $rc: $(cat "$T/err")"
ln -s /etc/passwd "$D/site-packages/transformers/models/llama/modeling_evil.py"
"$PGCI" fetch --source "dir:$D/site-packages" --tag x --module transformers.models.llama.modeling_evil >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "resolves to /etc/passwd, outside" "$T/err"; } || fail "dir symlink: exit $rc: $(cat "$T/err")"
echo "ok   dir: checkout per tag, --list-tags, site-packages, missing directory, symlink out refused"

# the bundled fixture trees (a site-packages per tag): every module at both tags,
# byte for byte
FX=$PWD/fixtures/upstream
n=0
for tag in v1.0.0 v1.1.0; do
    while IFS= read -r f; do
        m=${f%.py}
        m=${m//\//.}
        "$PGCI" fetch --source "dir:$FX/{tag}" --tag "$tag" --module "$m" --print -q >"$T/out" 2>"$T/err" ||
            fail "fixtures $tag $m: $(cat "$T/err")"
        cmp -s "$T/out" "$FX/$tag/$f" || fail "fixtures $tag $m: bytes differ"
        n=$((n + 1))
    done < <(cd "$FX/$tag" && find . -name '*.py' | sed 's|^\./||' | sort)
done
[ "$n" -ge 20 ] || fail "fixtures: only $n modules found"
echo "ok   dir: all $n fixture modules at both tags, byte for byte"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "fetch_local: all passed"
