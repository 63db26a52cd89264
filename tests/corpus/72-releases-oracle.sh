#!/usr/bin/env bash
# The survey against an oracle pgci does not share: the real transformers
# releases, imported (tests/corpus/releases_oracle.py). For every pair below:
#  - every call an override body of the real VeOmni configs makes through `self`
#    that bound at the old release and does not at the new one (hasattr on the
#    real class, its whole MRO) is an error of the survey, and every
#    `callee-vanished` error is such a call (callees_oracle.py);
#  - every parameter change of a patch target (`inspect.signature` of the real
#    function: removed, added, kind, default, order) is a finding of the survey on
#    that config and target, and every such finding is one; every call of an
#    override body that binds at the old release and not at the new one
#    (`Signature.bind`, through upstream's `@deprecate_kwarg` shims) is an error,
#    and every error that a call no longer binds is one (signatures_oracle.py);
#  - every module-level name a patch body reads (symtable: CPython's scoping,
#    decorators kept by patchgen included) that the real module had at the old
#    release and not at the new one is an error (`name-removed`,
#    `import-removed`), and every such error is one (names_oracle.py);
#  - every call `Name(...)` of a dataclass a patch body builds (the real class,
#    the config's helper subclasses executed over the real module, the
#    workspace's modules executed statement by statement) that binds at the old
#    release and raises at the new one, called with the body's keywords, is a
#    `dataclass-field-removed` error, and every such error is one (fields_oracle.py);
#  - every `from transformers.<module> import NAME` at the top level of a module of
#    the workspace that a config's generated module loads (its checked-in imports of
#    the workspace run for real, in a process of its own) that runs at the old
#    release and cannot import at the new one is a `ws-import-removed` error of that
#    config, and every such error is one (ws_imports_oracle.py).
# The releases are imported with the torch of the venv 80-hf-parity.sh installs,
# each beside the huggingface_hub and tokenizers its version check asks for
# (pinned, into the corpus cache); each release is imported once per workspace.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/setup.sh
PY=$(corpus_hf_venv) || exit 1
# what releases older than the venv's transformers need besides: huggingface_hub
# 1.x with its httpx stack, and tokenizers 0.22; and what veomni's own modules
# import besides torch (psutil), for ws_imports_oracle.py
hub1=$PGCI_CORPUS_CACHE/hf-extra-hub1
tok=$PGCI_CORPUS_CACHE/hf-extra-tokenizers0.22
psutil=$PGCI_CORPUS_CACHE/hf-extra-psutil
for spec in "$hub1|httpx==0.28.1 httpcore==1.0.9 h11==0.16.0 anyio==4.11.0 sniffio==1.3.1 certifi==2024.8.30 idna==3.10 huggingface_hub==1.33.0" \
    "$tok|tokenizers==0.22.1" "$psutil|psutil==7.0.0"; do
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
for v in 5.2.0 5.9.0 5.10.4 5.12.1 5.14.1 5.16.1 5.18.0 5.20.2 5.22.2 5.24.0 5.25.0; do
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

oracle=tests/corpus/releases_oracle.py
# at WSNAME TAG: the oracles' answers under release TAG, asked once
at() {
    local f=$tmp/$1-$2.json pp
    if [ ! -f "$f" ]; then
        pp=$(pythonpath "$2") || return 1
        PYTHONPATH=$pp:$psutil "$PY" $oracle probe "$tmp/$1.scan.json" > "$f" 2> "$f.err" ||
            { tail -n 5 "$f.err" >&2; rm -f "$f"; return 1; }
        python3 - "$f" <<'PY' || return 1
import json, sys
got = json.load(open(sys.argv[1]))
n = sum(v == "unimportable" for part in got.values() for v in part.values())
assert n == 0, f"{sys.argv[1]}: {n} modules did not import"
PY
    fi
    echo "$f"
}

rc=0
python3 $oracle scan "$ws" > "$tmp/ws.scan.json" || exit 1
python3 $oracle scan "$ws11" > "$tmp/ws11.scan.json" || exit 1
pair() { # WSNAME FROM TO
    local w=$ws a=$2 b=$3 n=$2-$3 fa fb
    [ "$1" = ws11 ] && w=$ws11
    echo "survey of veomni $([ "$1" = ws ] && echo 0.1.12 || echo 0.1.11), transformers $a -> $b:"
    "$PGCI" survey -C "$w" --from "v$a" --to "v$b" --source "dir:$tmp/tags/{tag}" --ruff "$RUFF" \
        --format json --run-json "$tmp/$n.run.json" > /dev/null 2> "$tmp/$n.err"
    [ $? -le 1 ] || { cat "$tmp/$n.err"; return 1; }
    fa=$(at "$1" "$a") && fb=$(at "$1" "$b") || return 1
    python3 $oracle compare "$tmp/$1.scan.json" "$fa" "$fb" "$tmp/$n.run.json"
}
pair ws11 5.2.0 5.9.0 || rc=1
# release by release, then the jumps the corpus surveys
prev=5.9.0
for v in 5.10.4 5.12.1 5.14.1 5.16.1 5.18.0 5.20.2 5.22.2 5.24.0 5.25.0; do
    pair ws "$prev" "$v" || rc=1
    prev=$v
done
pair ws 5.9.0 5.16.1 || rc=1
pair ws 5.16.1 5.24.0 || rc=1
pair ws 5.9.0 5.25.0 || rc=1
exit $rc
