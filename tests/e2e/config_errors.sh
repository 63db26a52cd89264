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
G=cfgfix/basic/toy_gpu_patch_gen_config.py
n=0
mutate() { # after-line text (printf escapes)
    local after=$1 text=$2 rc=0 f
    rm -rf "$tmp/mut" && cp -r fixtures/configs "$tmp/mut"
    f="$tmp/mut/$G"
    { head -n "$after" "fixtures/configs/$G"; printf "$text\n"; tail -n +"$((after + 1))" "fixtures/configs/$G"; } >"$f"
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
    [ "$mut_before" = "$(cd "$tmp/mut" && find . -type f | sort | xargs sha256sum)" ] ||
        { echo "$text: the workspace changed" >&2; exit 1; }
    echo "ok  line $got: $(sed 's/^pgci: error: [^ ]* //' "$tmp/err")"
    n=$((n + 1))
}
mutate 11 '  y = 3'                                   # unexpected indent
mutate 11 'if True:\n\tx = 1\n        y = 2'        # TabError
mutate 11 'if True:\n    if True:\n        x = 1\n  y = 2' # unindent matches no level
mutate 37 '      zz = 1'                             # over-indented in a replacement
mutate 37 '    if x is None:\n\tx = 1'              # a tab after a space-indented if
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
echo "$n configs Python cannot compile refused at its line; workspace untouched"
