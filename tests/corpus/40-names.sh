#!/usr/bin/env bash
# Proof 2, names vs ruff: pgci's F821 and F811 must equal real ruff 0.13.2's
# (`ruff check --isolated --select F821,F811`) - same file, line, column and name - on
#
#   - every transformers/models/*/modeling_*.py of the transformers 5.9.0 and 5.16.1
#     wheels and every generated file of the veomni 0.1.12 wheel, as released (these
#     are clean: the interesting result is that pgci reports nothing either);
#   - "noimports": the same files with every import statement deleted, so that every
#     imported name becomes undefined wherever Python's scoping rules make it so
#     (about 200,000 F821s: module order, class bodies, deferred function bodies,
#     annotations, string annotations, comprehensions, noqa comments, ...);
#   - "redefs": the same files with a stub `def NAME(): pass` / `class NAME: pass` for
#     every top-level def and class, and a copy of every single-line top-level import,
#     appended at the end, so that every definition or import not read at module level
#     before the end is reported as redefined (about 20,000 F811s: deferred bodies,
#     branches of if/try, overloads, submodule imports, ...).
#
# Differences fail the test unless listed, with their reason, in 40-names.allow
# (FILE:LINE:CODE:NAME per line); that list is empty. Prints the agreement.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/corpus/lib.sh
PGCI=${PGCI:?PGCI must point at the built binary}
RUFF=${PGCI_RUFF:-${PGCI_BUILD:-build}/deps/ruff}
[ -x "$RUFF" ] || { echo "40-names: ruff not found at $RUFF (run make deps)" >&2; exit 1; }
RUFF=$(cd "$(dirname "$RUFF")" && pwd)/$(basename "$RUFF")
"$RUFF" --version | grep -q '^ruff 0\.13\.2$' || { echo "40-names: need ruff 0.13.2, $RUFF is $("$RUFF" --version)" >&2; exit 1; }
ALLOW=tests/corpus/40-names.allow

t59=$(corpus_wheel transformers 5.9.0)
t516=$(corpus_wheel transformers 5.16.1)
veo=$(corpus_wheel veomni 0.1.12)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The corpus, as links named after their origin (so that reports read well).
mkdir -p "$tmp/released"
n=0
for f in "$t59"/transformers/models/*/modeling_*.py "$t516"/transformers/models/*/modeling_*.py \
         "$veo"/veomni/models/transformers/*/generated/*.py; do
    [ -f "$f" ] || continue
    rel=${f#"$PGCI_CORPUS_CACHE"/}
    ln -s "$f" "$tmp/released/${rel//\//__}"
    n=$((n + 1))
done
[ "$n" -gt 900 ] || { echo "40-names: only $n corpus files found" >&2; exit 1; }

python3 - "$tmp" <<'PY'
# The two mutants of every released file (see the header of this script).
import os, re, sys
root = sys.argv[1]
os.makedirs(f"{root}/noimports"); os.makedirs(f"{root}/redefs")
for name in sorted(os.listdir(f"{root}/released")):
    src = open(f"{root}/released/{name}", encoding="utf-8").read()
    kept, skipping = [], False
    for line in src.split("\n"):
        if skipping:
            skipping = ")" not in line
            continue
        if re.match(r"(import |from \S+ import )", line):
            skipping = "(" in line and ")" not in line
            continue
        kept.append(line)
    open(f"{root}/noimports/{name}", "w", encoding="utf-8").write("\n".join(kept))
    stubs = []
    for line in src.split("\n"):
        if m := re.match(r"(?:async )?def (\w+)", line):
            stubs.append(f"def {m.group(1)}(): pass")
        elif m := re.match(r"class (\w+)", line):
            stubs.append(f"class {m.group(1)}: pass")
        elif re.match(r"(import |from \S+ import )", line) and "(" not in line and "\\" not in line:
            stubs.append(line)
    open(f"{root}/redefs/{name}", "w", encoding="utf-8").write(src + "\n\n" + "\n".join(stubs) + "\n")
PY

status=0
for variant in released noimports redefs; do
    set +e
    (cd "$tmp/$variant" && "$PGCI" names --select F821,F811 -- *.py > "$tmp/$variant.pgci" 2> "$tmp/$variant.err")
    rc=$?
    (cd "$tmp/$variant" && "$RUFF" check --isolated --no-cache --select F821,F811 \
        --output-format concise -- *.py > "$tmp/$variant.ruff" 2> "$tmp/$variant.ruff-err")
    rrc=$?
    set -e
    if [ $rrc -ge 2 ]; then
        echo "40-names: ruff failed on $variant (exit $rrc):" >&2
        head -5 "$tmp/$variant.ruff-err" >&2
        exit 1
    fi
    if [ $rc -ge 2 ]; then
        echo "40-names: pgci names failed on $variant:" >&2
        head -5 "$tmp/$variant.err" >&2
        exit 1
    fi
    python3 - "$variant" "$tmp/$variant.pgci" "$tmp/$variant.ruff" "$ALLOW" "$n" <<'PY' || status=1
import re, sys
variant, pgci_out, ruff_out, allow_file, nfiles = sys.argv[1:]
def key(path, line, col, code, name):
    return (path.replace("__", "/"), int(line), int(col), code, name)
pgci = set()
for line in open(pgci_out, encoding="utf-8"):
    m = re.match(r"(.*?):(\d+):(\d+): (F821|F811) (.*)$", line.rstrip("\n"))
    n = re.match(r"undefined name '(.*)'$|redefinition of unused '(.*)' from line \d+$", m.group(5))
    pgci.add(key(*m.group(1, 2, 3, 4), n.group(1) if n.group(1) is not None else n.group(2)))
ruff = set()
for line in open(ruff_out, encoding="utf-8"):
    m = re.match(r"(.*?):(\d+):(\d+): (F821|F811) (?:\[\*\] )?[^`]*`([^`]*)`", line)
    if m:
        ruff.add(key(*m.group(1, 2, 3, 4, 5)))
allowed = set()
for line in open(allow_file, encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if line:
        f, l, code, name = line.split(":", 3)
        allowed.add((f, int(l), code, name))
common = pgci & ruff
diff = [("ruff only", d) for d in sorted(ruff - pgci)] + [("pgci only", d) for d in sorted(pgci - ruff)]
unexplained = [(w, d) for w, d in diff if (d[0], d[1], d[3], d[4]) not in allowed]
by_code = lambda s, c: sum(1 for d in s if d[3] == c)
print(f"  {variant:9s} {nfiles} files  ruff {len(ruff)} (F821 {by_code(ruff, 'F821')}, "
      f"F811 {by_code(ruff, 'F811')})  pgci {len(pgci)}  matching {len(common)}  "
      f"different {len(diff)} ({len(diff) - len(unexplained)} allow-listed)")
for w, d in unexplained[:20]:
    print(f"    {w}: {d[0]}:{d[1]}:{d[2]}: {d[3]} {d[4]}")
if variant != "released" and len(ruff) < 1000:
    print(f"    the {variant} mutant should make ruff report thousands of findings")
    sys.exit(1)
sys.exit(1 if unexplained else 0)
PY
done
[ $status -eq 0 ] && echo "  names vs ruff: no unexplained difference" || echo "  names vs ruff: UNEXPLAINED DIFFERENCES"
exit $status
