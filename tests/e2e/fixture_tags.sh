#!/usr/bin/env bash
# The fixture tag v1.1.0 is built from v1.0.0 and a patch (scripts/fixture-tags.sh).
# - round trip: `diff -ruN` of the two trees gives back the committed patch exactly;
# - a patch that no longer applies exactly (a changed context line, or an offset)
#   stops with one line naming the patch, exit 2, and leaves any earlier v1.1.0
#   and no temporary directory behind.
set -u
cd "$(dirname "$0")/../.."
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts" "$tmp/fixtures"
cp scripts/fixture-tags.sh "$tmp/scripts/"
cp -R fixtures/upstream "$tmp/fixtures/upstream"
rm -rf "$tmp/fixtures/upstream/v1.1.0" "$tmp"/fixtures/upstream/.v1.1.0*
up=$tmp/fixtures/upstream

bash "$tmp/scripts/fixture-tags.sh" 2>"$tmp/err" || fail "clean build: $(cat "$tmp/err")"
[ -f "$up/v1.1.0/transformers/models/qwen3/modeling_qwen3.py" ] || fail "v1.1.0 not built"
(cd "$up" && diff -ruN v1.0.0 v1.1.0 | sed -E 's/^((---|\+\+\+) [^\t]*)\t.*/\1/') > "$tmp/again.patch"
cmp -s "$tmp/again.patch" "$up/v1.0.0-to-v1.1.0.patch" || fail "diff of the built trees is not the committed patch"
grep -q '__version__ = "1.1.0"' "$up/v1.1.0/transformers/__init__.py" || fail "v1.1.0 does not say 1.1.0"

# a context line the patch expects is gone: nothing changes
before=$(cd "$up" && find v1.1.0 -type f -exec sha256sum {} + | sort)
sed -i "s/^class LlamaRMSNorm(nn.Module):/class LlamaRMSNormX(nn.Module):/" "$up/v1.0.0/transformers/models/llama/modeling_llama.py"
bash "$tmp/scripts/fixture-tags.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "a patch that does not apply: exit $rc"
head -1 "$tmp/err" | grep -q "v1.0.0-to-v1.1.0.patch does not apply exactly" || fail "message: $(cat "$tmp/err")"
after=$(cd "$up" && find v1.1.0 -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || fail "the earlier v1.1.0 was changed"
ls -a "$up" | grep -q '\.tmp' && fail "a temporary directory was left"

# an offset (lines added above a hunk) is refused too: the drift must be exact
cp -R fixtures/upstream/v1.0.0/. "$up/v1.0.0/"
sed -i '1i # one more line' "$up/v1.0.0/transformers/models/qwen3/modeling_qwen3.py"
bash "$tmp/scripts/fixture-tags.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "an offset hunk: exit $rc ($(cat "$tmp/out" "$tmp/err"))"

[ $fails -eq 0 ] && echo "fixture tags: v1.1.0 = v1.0.0 + patch, round trip exact; a stale patch is refused"
exit $((fails > 0))
