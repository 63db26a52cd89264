#!/usr/bin/env bash
# Builds the fixture tag v1.1.0 of the mini upstream package from v1.0.0 and the
# hand-written change between them, fixtures/upstream/v1.0.0-to-v1.1.0.patch (the
# rows of fixtures/upstream/DRIFT.md), so that the repository holds one tree and
# the drift, not two copies of the same package. The result is
# fixtures/upstream/v1.1.0 (not tracked); it is replaced whole, through a
# temporary directory and a rename, and the patch must apply exactly (no fuzz,
# no offset) or nothing is written.
set -euo pipefail
cd "$(dirname "$0")/../fixtures/upstream"
patch_file=v1.0.0-to-v1.1.0.patch
tmp=.v1.1.0.tmp
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
cp -R v1.0.0 "$tmp"
if ! out=$(patch -d "$tmp" -p1 -F0 --no-backup-if-mismatch --reject-file=- <"$patch_file" 2>&1) ||
    grep -qiE 'offset|fuzz' <<<"$out"; then
    printf 'fixture-tags: %s does not apply exactly to fixtures/upstream/v1.0.0:\n%s\n' \
        "$patch_file" "$out" >&2
    exit 2
fi
rm -rf v1.1.0.old
[ -d v1.1.0 ] && mv v1.1.0 v1.1.0.old
mv "$tmp" v1.1.0
rm -rf v1.1.0.old
