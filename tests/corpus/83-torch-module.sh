#!/usr/bin/env bash
# checks/external_bases.c names the methods torch.nn.Module defines, so that a
# model class that stopped overriding one (its call still binds, to torch's) is not
# reported as an AttributeError. The list must be torch's own: read from the
# registry's torch (the venv 80-hf-parity.sh installs), the same names, in the
# byte order the C table's binary search needs.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
. tests/corpus/lib.sh
PY=$(corpus_hf_venv) || exit 1
"$PY" - checks/external_bases.c <<'PY'
import re, sys
import torch

src = open(sys.argv[1]).read()
body = re.search(r"torch_module_methods\[\] = \{(.*?)\};", src, re.S).group(1)
ours = re.findall(r'"([^"]+)"', body)
theirs = sorted(n for n, v in vars(torch.nn.Module).items()
                if callable(v) or isinstance(v, (property, staticmethod, classmethod)))
print(f"torch {torch.__version__}: torch.nn.Module defines {len(theirs)} methods, "
      f"checks/external_bases.c lists {len(ours)}")
assert ours == sorted(ours, key=lambda s: s.encode()), "the C table is not in byte order"
missing, extra = sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))
assert not missing and not extra, f"missing {missing}, not torch's {extra}"
PY
