#!/usr/bin/env bash
# End to end: a config pgci cannot evaluate is one clear error through the CLI
# (`pgci regen`): exit status 2, the evaluator's "file:line:col: what" line on
# stderr, and nothing written. Covers the error fixtures (missing source_module,
# syntax error, import cycle, self import, missing sibling, undefined name) and the
# hostile ones (loops, conditionals, computed and f-string targets, targets with
# newlines or shell metacharacters, an empty name_map key, a target_file leaving its
# directory). The workspace's files are byte for byte what they were.
set -eu
cd "$(dirname "$0")/../.."
PGCI=${PGCI:-bin/pgci}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r fixtures/configs "$tmp/ws"
before=$(cd "$tmp/ws" && find . -type f | sort | xargs sha256sum)

check() {
    local config=$1 want=$2 rc=0
    "$PGCI" regen -q -C "$tmp/ws" "cfgfix/$config" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" != 2 ]; then
        echo "cfgfix/$config: expected exit 2, got $rc" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    if ! grep -Fxq -- "pgci: error: $want" "$tmp/err"; then
        echo "cfgfix/$config: expected the line"
        echo "  pgci: error: $want"
        echo "on stderr; got:"
        cat "$tmp/err"
        exit 1
    fi >&2
    echo "ok  cfgfix/$config"
}

E=cfgfix/errors
H=cfgfix/hostile
check errors/no_source_patch_gen_config.py \
    "$E/no_source_patch_gen_config.py:5:10: PatchConfig() is missing source_module (the upstream module to patch)"
check errors/syntax_error_patch_gen_config.py \
    "$E/syntax_error_patch_gen_config.py:8:15: syntax error: invalid syntax"
check errors/cycle_b_patch_gen_config.py \
    "$E/cycle_a_patch_gen_config.py:2:1: import cycle between patch configs: cfgfix.errors.cycle_b_patch_gen_config -> cfgfix.errors.cycle_a_patch_gen_config -> cfgfix.errors.cycle_b_patch_gen_config (imported from $E/cycle_b_patch_gen_config.py:2:1)"
check errors/self_import_patch_gen_config.py \
    "$E/self_import_patch_gen_config.py:2:1: config 'cfgfix.errors.self_import_patch_gen_config' imports itself"
check errors/missing_sibling_patch_gen_config.py \
    "$E/missing_sibling_patch_gen_config.py:2:1: cannot find sibling config 'cfgfix.errors.nowhere_patch_gen_config': $E/nowhere_patch_gen_config.py does not exist"
check errors/undefined_name_patch_gen_config.py \
    "$E/undefined_name_patch_gen_config.py:6:54: name 'never_defined' is not defined"
check hostile/loop_patch_gen_config.py \
    "$H/loop_patch_gen_config.py:6:1: unsupported construct in patch config: for name in [\"A\", \"B\"]:..."
check hostile/conditional_patch_gen_config.py \
    "$H/conditional_patch_gen_config.py:7:1: unsupported construct in patch config: if USE_FUSED:..."
check hostile/computed_target_patch_gen_config.py \
    "$H/computed_target_patch_gen_config.py:8:23: unsupported construct in patch config: PREFIX + \"RMSNorm\" (patch target must be a constant string)"
check hostile/fstring_target_patch_gen_config.py \
    "$H/fstring_target_patch_gen_config.py:8:25: unsupported construct in patch config: f\"{PREFIX}MLP.forward\" (patch target must be a constant string)"
check hostile/newline_target_patch_gen_config.py \
    "$H/newline_target_patch_gen_config.py:7:26: invalid patch target \"apply_rotary_pos_emb\\nimport os\": not a dotted Python name"
check hostile/shell_target_patch_gen_config.py \
    "$H/shell_target_patch_gen_config.py:5:28: invalid name \"Toy; rm -rf / #\": not a Python name"
check hostile/empty_key_name_map_patch_gen_config.py \
    "$H/empty_key_name_map_patch_gen_config.py:7:52: name_map has an empty key: it would rewrite every position of the replacement's source"
check hostile/escaping_target_file_patch_gen_config.py \
    "$H/escaping_target_file_patch_gen_config.py:6:17: target_file '../../../etc/passwd' escapes its root with '..'"
check hostile/unknown_method_patch_gen_config.py \
    "$H/unknown_method_patch_gen_config.py:5:1: unsupported construct in patch config: config.replace_everything (not an attribute of PatchConfig that pgci models)"

after=$(cd "$tmp/ws" && find . -type f | sort | xargs sha256sum)
[ "$before" = "$after" ] || { echo "the workspace changed" >&2; exit 1; }
echo "15 configs refused with one clear error each; workspace untouched"

# A config Python cannot compile, made by inserting a line into a good one: exit 2,
# one "file:LINE:col: syntax error: ..." line at the line python3's compile() names
# (when there is a python3), nothing written. tree-sitter-python accepts the
# indentation errors (once they evaluated, and the override silently vanished).
# `exact` cases compare the column and the message too, with CPython 3.11's (the
# messages are its; with another python3 only the line is compared). `accept`
# cases are ones Python compiles: pgci must not refuse them for their syntax.
G=cfgfix/basic/toy_gpu_patch_gen_config.py
n=0
py311=0
python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null && py311=1
mutate() { # after-line text (printf escapes)
    local after=$1 text=$2 rc=0 f
    rm -rf "$tmp/mut" && cp -r fixtures/configs "$tmp/mut"
    f="$tmp/mut/$G"
    { head -n "$after" "fixtures/configs/$G"; printf -- "$text\n"; tail -n +"$((after + 1))" "fixtures/configs/$G"; } >"$f"
    local mut_before
    mut_before=$(cd "$tmp/mut" && find . -type f | sort | xargs sha256sum)
    "$PGCI" regen -q -C "$tmp/mut" "$G" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] || { echo "$text: expected exit 2, got $rc" >&2; cat "$tmp/err" >&2; exit 1; }
    [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq "^pgci: error: $G:[0-9]+:[0-9]+: syntax error: " "$tmp/err" ||
        { echo "$text: expected one syntax error line, got:" >&2; cat "$tmp/err" >&2; exit 1; }
    got=$(sed -E "s|^pgci: error: $G:([0-9]+):.*|\1|" "$tmp/err")
    if command -v python3 >/dev/null; then
        want=$(python3 -c 'import sys
try:
    compile(open(sys.argv[1]).read(), sys.argv[1], "exec")
    print(0)
except SyntaxError as e:
    print(e.lineno)' "$f")
        [ "$got" = "$want" ] || { echo "$text: python3 says line $want, pgci:" >&2; cat "$tmp/err" >&2; exit 1; }
    fi
    if [ "${exact:-}" ] && [ "$py311" = 1 ]; then
        want=$(python3 -c 'import sys
try:
    compile(open(sys.argv[1]).read(), sys.argv[1], "exec")
except SyntaxError as e:
    print("%s:%s: syntax error: %s" % (e.lineno, e.offset, e.msg) if e.offset else "%s:" % e.lineno)' "$f")
        local all
        all=$(sed -E "s|^pgci: error: $G:||" "$tmp/err")
        case $want in
        *": syntax error: "*) [ "$all" = "$want" ] ;;
        *) [ "${all%%:*}:" = "$want" ] ;;
        esac || { echo "$text: python3 says \"$want\", pgci:" >&2; cat "$tmp/err" >&2; exit 1; }
    fi
    [ "$mut_before" = "$(cd "$tmp/mut" && find . -type f | sort | xargs sha256sum)" ] ||
        { echo "$text: the workspace changed" >&2; exit 1; }
    echo "ok  line $got: $(sed 's/^pgci: error: [^ ]* //' "$tmp/err")"
    n=$((n + 1))
}
exact() { exact=1 mutate "$@"; }
a=0
accept() { # after-line text: Python compiles it, and pgci evaluates past its syntax
    local after=$1 text=$2 f
    rm -rf "$tmp/mut" && cp -r fixtures/configs "$tmp/mut"
    f="$tmp/mut/$G"
    { head -n "$after" "fixtures/configs/$G"; printf -- "$text\n"; tail -n +"$((after + 1))" "fixtures/configs/$G"; } >"$f"
    if command -v python3 >/dev/null && ! python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f"; then
        echo "$text: python3 refuses it: not a case to accept" >&2
        exit 1
    fi
    "${PGCI_BUILD:-build}/tests/tools/config_dump" -C "$tmp/mut" "$G" >"$tmp/err" 2>&1 || true
    if grep -q "syntax error" "$tmp/err"; then
        echo "$text: Python compiles it, pgci refused it:" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    a=$((a + 1))
}
exact 11 '  y = 3'                                   # unexpected indent
exact 11 'if True:\n\tx = 1\n        y = 2'        # TabError
exact 11 'if True:\n    if True:\n        x = 1\n  y = 2' # unindent matches no level
exact 37 '      zz = 1'                             # over-indented in a replacement
exact 37 '    if x is None:\n\tx = 1'              # a tab after a space-indented if
mutate 11 'x = (1, 2'
mutate 11 'x = """abc'
mutate 11 'def f(:'
mutate 11 'a b c'
mutate 11 'x = 08'
mutate 11 'def broken(:'
mutate 11 'x = 1 +'
mutate 38 'x = (1,\n  2)\nclass A:\n  def f(:'
# ...and what it refuses after parsing (a tree tree-sitter accepts whole)
mutate 11 'return 1'
mutate 11 'f(a=1,\n  2,\n)'
mutate 11 'f(a=1, a=2)'
mutate 11 'def g(a, b, a):\n    pass'
mutate 11 'def g(x=1, y):\n    pass'
mutate 11 'for i in range(2):\n    pass\nelse:\n    break'
mutate 37 '    (a, b) += 1'
mutate 11 'class K:\n    yield 1'
# ...with CPython's message and column: what its symbol table refuses
exact 11 'def f():\n    nonlocal x'
exact 11 'def f():\n    x = 1\n    def g():\n        def h():\n            nonlocal x\n        global x'
exact 11 'class A:\n    x = 1\n    def f():\n        nonlocal x'
exact 11 'def g():\n    x = 1\n    def a():\n        global x\n        def f():\n            nonlocal x'
exact 11 'def f():\n    x = 1\n    global x'
exact 11 'def f():\n    print(x)\n    global x'
exact 11 'def f():\n    x: int\n    global x'
exact 11 'def f():\n    global x\n    x: int'
exact 11 'def f():\n    x = 1\n    def g():\n        nonlocal x\n        x: int'
exact 11 'x: int\nglobal x'
exact 11 'print(x)\nglobal x'
exact 11 'def f(x):\n    global x'
exact 11 'def f(x):\n    nonlocal x'
exact 11 'def f():\n    x = 1\n    def g():\n        global x\n        nonlocal x'
exact 11 'def f():\n    nonlocal x\n    global x'
exact 11 'def f():\n    del x\n    global x'
exact 11 'def f():\n    for x in y:\n        pass\n    global x'
exact 11 'def f():\n    with a as x:\n        pass\n    global x'
exact 11 'def f():\n    try:\n        pass\n    except E as x:\n        pass\n    global x'
exact 11 'def f():\n    def g(a=x):\n        pass\n    global x'
exact 11 'def f():\n    [y := 1 for z in w]\n    global y'
exact 11 'def f():\n    x.y = 1\n    global x'
exact 11 'def f():\n    nonlocal y\nnonlocal x'
exact 11 '[y := 1 for y in z]'
exact 11 '[x for y in z if (y := 1)]'
exact 11 '[[(y := 1) for w in u] for y in z]'
exact 11 '{(y := 1): x for y in z}'
exact 11 'class A:\n    [y := 1 for x in z]'
exact 11 '[x for x in (y := z)]'
exact 11 '[x for x in (lambda: (y := 1))()]'
exact 11 '[i for i in z if (j := 0) for (k, j) in u]'
exact 11 'def f():\n    [(yield x) for x in y]'
exact 11 'def f():\n    {x: (yield) for x in y}'
exact 11 'def f():\n    from os import *'
# ...its compiler
exact 11 'def f():\n    [await x for x in y]'
exact 11 'def f():\n    [x async for x in y]'
exact 11 'def f():\n    [[await x for x in y] for z in w]'
exact 11 'def f():\n    async with a:\n        pass'
exact 11 'async def f():\n    yield from x'
exact 11 'async def f():\n    return 2\n    yield 1'
exact 11 '*a = b'
exact 11 'a, *b, *c = d'
exact 11 '*a = *b'
exact 11 'x = *a'
exact 11 'for *a in b:\n    pass'
exact 11 '[x for *a in b]'
exact 11 'def f():\n    return *a'
exact 11 'try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass'
exact 11 'from __future__ import annotations'
exact 11 'return 1\ndef f(a, a):\n    pass'
# ...and its parser: targets it cannot assign to or delete
exact 11 'del f()'
exact 11 'del (a, f())'
exact 11 'del *a, b'
exact 11 'del x if y else z'
exact 11 'with a as f():\n    pass'
exact 11 'with a as (b, *c, *d):\n    pass'
exact 11 'with a as (*b):\n    pass'
exact 11 'x = (*a)'
exact 11 'try:\n    pass\nexcept E as f():\n    pass'
exact 11 'f() = 1'
exact 11 '(a, 1) = x'
exact 11 'None = 1'
exact 11 'x = f() = 1'
exact 11 'a, f() = 1'
exact 11 'f(), a = 1'
exact 11 'f() = lambda: 1'
exact 11 'x + 1 += 2'
exact 11 '(f()) += 1'
exact 11 'x = [a] += 1'
exact 11 'for f() in y:\n    pass'
exact 37 '    for (a, 1) in y:\n        pass'
exact 11 '[x for a, f() in y]'
exact 11 'def f():\n    yield = 1'
exact 11 'def f(*):\n    pass'
exact 11 'def f(**k, a):\n    pass'
exact 11 'f = lambda *: 1'
exact 11 '[*a for a in b]'
exact 11 'def f[T](x):\n    pass'
exact 11 'type X = int'
# characters Python does not print, outside strings and comments: tree-sitter skips
# four of them as blank (U+000B, U+FEFF, U+2060, U+200B: evaluated before), the
# others it stopped on with its own "invalid syntax"
exact 11 'y =\x0b 1'
exact 11 'y = 1\xe2\x80\x8b'
exact 11 'y = 0x1\xe2\x80\x8b'
exact 11 'y = 1\xe2\x82\xac'
exact 11 'y = f(1,\n\xef\xbb\xbf  2)'
exact 11 'y\xe2\x81\xa0 = 1'
exact 11 'y =\xc2\xa01'
exact 11 'y =\x01 1'
echo "$n configs Python cannot compile refused at its line; workspace untouched"

# What Python compiles is not refused for its syntax: the symbol table's rules
# where a name is bound later, in an enclosing function, by an import...
accept 11 'def f():\n    def g():\n        nonlocal x\n    x = 1'
accept 11 'def f():\n    import os\n    global os'
accept 11 'def f():\n    global x, y\n    y = 1\n    print(x)'
accept 11 'def f():\n    (x): int\n    global x'
accept 11 'global x\nx: int'
accept 11 'def g():\n    x = 1\n    class A:\n        global x\n        def f():\n            nonlocal x'
accept 11 'def f():\n    lambda: y\n    global y'
accept 11 'def f():\n    [y for x in z]\n    global y'
accept 11 'def f():\n    f(y=1)\n    global y'
accept 11 '[i for i in z if [(j := 0) for q in r] for j in u]'
accept 11 'def f():\n    (await x for x in y)'
accept 11 'async def f():\n    [x async for x in y]\n    return 2'
accept 11 'def f(x=1, **kw: int):\n    pass'
accept 11 'f(a=1,\\\n  b=2)'
accept 11 '(a) += 1\n(a.b) += 1'
accept 11 'type(a).b = 1'
accept 11 '*a, = b\na[*b] = 1\nx = *a, b\ndel (a), [b]'
accept 0 '"""doc"""\nfrom __future__ import annotations'
accept 11 'y = "\xe2\x80\x8b\x0b"  # \xef\xbb\xbf\xc2\xa0'
echo "$a configs Python compiles evaluated past their syntax"
