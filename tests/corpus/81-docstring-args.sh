#!/usr/bin/env bash
# The argument docs the survey's auto-docstring check reads, against the reader
# @auto_docstring itself uses: every function docstring of transformers' modeling
# files (the version in the corpus venv, from the registry) and of the veomni
# 0.1.12 configs, indexed by `pgci index`, compared with
# transformers.utils.auto_docstring.parse_docstring (tests/corpus/docstring_args.py).
# pgci may read more names (it then says less), never fewer, but for the reviewed
# exceptions in 81-docstring-args.expected.
set -u
cd "$(dirname "$0")/../.." && . tests/corpus/setup.sh
PY=$(corpus_hf_venv) || exit 1
ws=$(veomni_sdist 0.1.12) || exit 1
tf=$("$PY" -c 'import os, transformers; print(os.path.dirname(transformers.__file__))') || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ ls "$tf"/models/*/modeling_*.py; ls "$ws"/veomni/models/transformers/*/*_patch_gen_config.py; } > "$tmp/files"
"$PGCI" index --files-from "$tmp/files" --json > "$tmp/index.jsonl" || { echo "FAIL: pgci index"; exit 1; }
echo "$(grep -c '' "$tmp/files") files (transformers $("$PY" -c 'import transformers; print(transformers.__version__)'), veomni 0.1.12 configs)"
"$PY" tests/corpus/docstring_args.py "$tmp/index.jsonl" tests/corpus/81-docstring-args.expected
