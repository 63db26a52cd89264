#!/usr/bin/env bash
# The survey's errors on calls through `self` against an oracle pgci does not
# share: the real transformers releases, imported (tests/corpus/callees_oracle.py).
# For every pair below, every call an override body of the real VeOmni configs
# makes through `self` that bound at the old release and does not at the new one
# (hasattr on the real class, its whole MRO) is an error of the survey, and every
# `callee-vanished` error is such a call. The releases are imported with the torch
# of the venv 80-hf-parity.sh installs, each beside the huggingface_hub and
# tokenizers its version check asks for (pinned, into the corpus cache).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/setup.sh
PY=$(corpus_hf_venv) || exit 1
# what releases older than the venv's transformers need besides: huggingface_hub
# 1.x with its httpx stack, and tokenizers 0.22
hub1=$PGCI_CORPUS_CACHE/hf-extra-hub1
tok=$PGCI_CORPUS_CACHE/hf-extra-tokenizers0.22
for spec in "$hub1|httpx==0.28.1 httpcore==1.0.9 h11==0.16.0 anyio==4.11.0 sniffio==1.3.1 certifi==2024.8.30 idna==3.10 huggingface_hub==1.33.0" \
    "$tok|tokenizers==0.22.1"; do
    dir=${spec%%|*}
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir"
        # shellcheck disable=SC2086
        "$PY" -m pip install --quiet --no-deps --target "$dir" ${spec#*|} > "$dir.log" 2>&1 ||
            { echo "cannot install ${spec#*|}: $(tail -n 1 "$dir.log")"; exit 1; }
        touch "$dir/.done"
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tags"
for v in 5.2.0 5.9.0 5.10.4 5.16.1 5.18.0 5.24.0 5.25.0; do
    d=$(corpus_wheel transformers $v) || exit 1
    ln -s "$d" "$tmp/tags/v$v"
done
ws=$(veomni_sdist 0.1.12) || exit 1
ws11=$(veomni_models_ws 0.1.11 "$tmp/veomni-0.1.11") || exit 1

# pythonpath TAG: the release first, then the fewest extras its import needs
pythonpath() {
    local extra
    for extra in "" ":$hub1" ":$hub1:$tok"; do
        if PYTHONPATH="$tmp/tags/v$1$extra" "$PY" -c "import transformers.modeling_utils" \
            > /dev/null 2>&1; then
            echo "$tmp/tags/v$1$extra"
            return 0
        fi
    done
    echo "transformers $1 does not import with torch $PGCI_HF_TORCH" >&2
    return 1
}

rc=0
pair() { # WS FROM TO
    local w=$1 a=$2 b=$3 n=$2-$3 pa pb
    echo "survey of veomni $([ "$w" = "$ws" ] && echo 0.1.12 || echo 0.1.11), transformers $a -> $b:"
    "$PGCI" survey -C "$w" --from "v$a" --to "v$b" --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
        --format json --run-json "$tmp/$n.run.json" > /dev/null 2> "$tmp/$n.err"
    [ $? -le 1 ] || { cat "$tmp/$n.err"; return 1; }
    python3 tests/corpus/callees_oracle.py scan "$w" > "$tmp/$n.q.json" || return 1
    pa=$(pythonpath "$a") && pb=$(pythonpath "$b") || return 1
    PYTHONPATH=$pa "$PY" tests/corpus/callees_oracle.py probe "$tmp/$n.q.json" > "$tmp/$n.a.json" 2> /dev/null || return 1
    PYTHONPATH=$pb "$PY" tests/corpus/callees_oracle.py probe "$tmp/$n.q.json" > "$tmp/$n.b.json" 2> /dev/null || return 1
    python3 - "$tmp/$n.a.json" "$tmp/$n.b.json" <<'PY' || return 1
import json, sys
for p in sys.argv[1:]:
    got = json.load(open(p)).values()
    n = sum(v == "unimportable" for v in got)
    assert n == 0, f"{p}: {n} modules did not import"
PY
    python3 tests/corpus/callees_oracle.py compare "$tmp/$n.q.json" "$tmp/$n.a.json" "$tmp/$n.b.json" \
        "$tmp/$n.run.json"
}
pair "$ws11" 5.2.0 5.9.0 || rc=1
pair "$ws" 5.9.0 5.10.4 || rc=1
pair "$ws" 5.9.0 5.16.1 || rc=1
pair "$ws" 5.16.1 5.18.0 || rc=1
pair "$ws" 5.16.1 5.24.0 || rc=1
pair "$ws" 5.24.0 5.25.0 || rc=1
exit $rc
