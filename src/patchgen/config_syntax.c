/*
 * config_syntax.c - refusing a config exactly where Python refuses to compile it.
 *
 * patchgen imports the config, so a config Python cannot compile must be an error
 * here too, at Python's line. tree-sitter-python is lenient where CPython is not
 * (indentation, a statement that runs on past the end of its line: `x = 1 +`
 * then the next line), and where it does find an error its ERROR node can start
 * far from the token CPython names. So three sources are weighed, as CPython
 * 3.11's parser weighs them (Parser/pegen_errors.c):
 *
 *  - the tokenizer (src/py/pytok.c): unterminated strings, unmatched brackets,
 *    bad number literals, TabError, a dedent to no outer level. Raised where the
 *    parser reaches them, and those but the indentation errors, found after the
 *    parser's error by _PyPegen_tokenize_full_source_to_check_for_errors,
 *    instead of any parser error but "unexpected indent";
 *  - the parser: "unexpected indent", "expected an indented block" (pytok), the
 *    tree's first error, a logical line that does not start a statement, a
 *    Python 2 print or exec statement (tree-sitter-python still parses them);
 *  - a bracket open at the end: "'(' was never closed", instead of a parser error
 *    on a later line.
 */
#include <string.h>

#include "core/error.h"
#include "patchgen/config_compile.h"
#include "patchgen/config_internal.h"
#include "py/pytok.h"

static int before(const pytok_error *a, const pytok_error *b)
{
    return a->line && (!b->line || a->line < b->line || (a->line == b->line && a->col < b->col));
}

/* The parser's indentation error (tok's) before b, or at b's token: CPython's
 * "expected an indented block" is raised at the token tree-sitter's own error
 * may name too (a `case` whose body is not indented). */
static int indent_first(const pytok_error *a, const pytok_error *b)
{
    return before(a, b) || (a->line && a->line == b->line && a->col == b->col);
}

/* The byte at 1-based line and column. */
static uint32_t byte_at(const py_tree *t, unsigned line, unsigned col)
{
    size_t i = 0;
    for (unsigned l = 1; l < line && i < t->len; i++)
        l += t->src[i] == '\n';
    i += col > 0 ? col - 1 : 0;
    return (uint32_t)(i < t->len ? i : t->len);
}

static void set(pytok_error *e, TSPoint p, const char *why)
{
    e->line = p.row + 1;
    e->col = p.column + 1;
    e->parser = 1;
    snprintf(e->why, sizeof(e->why), "%s", why);
}

/* The point just after the last byte of code before offset at. */
static TSPoint end_of_code_before(const py_tree *t, size_t at)
{
    while (at > 0 && strchr(" \t\f\n", t->src[at - 1]))
        at--;
    TSPoint p = {0, 0};
    for (size_t i = 0; i < at; i++) {
        if (t->src[i] == '\n')
            p.row++, p.column = 0;
        else
            p.column++;
    }
    return p;
}

/* When the logical line holding the leaf at byte `at` of ERROR node err begins in
 * the middle of a construct err holds, which started on an earlier line: sets e
 * at the end of the line before (tree-sitter read on where CPython stops). */
static int error_runs_on(const py_tree *t, const pytok_result *tok, TSNode err, size_t at,
                         pytok_error *e)
{
    size_t b = SIZE_MAX;
    for (size_t k = 0; k < tok->lines.len && tok->lines.items[k] <= at; k++)
        b = tok->lines.items[k];
    if (b == SIZE_MAX || b <= ts_node_start_byte(err))
        return 0;
    uint32_t k = ts_node_child_count(err);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(err, i);
        if (ts_node_start_byte(c) < b && ts_node_end_byte(c) > b && ts_node_child_count(c) > 0) {
            set(e, end_of_code_before(t, b), "invalid syntax");
            return 1;
        }
    }
    return 0;
}

/* A node in error with no child in error holds a token tree-sitter inserted that
 * no walk sees: a newline between two statements on one line (`import a as f()`
 * is `import a as f` and `()`), where CPython stops at the second. */
static int missing_newline(TSNode n, pytok_error *e)
{
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 1; i < k; i++) {
        TSNode a = ts_node_child(n, i - 1), b = ts_node_child(n, i);
        if (!ts_node_is_named(a) || !ts_node_is_named(b) || ts_node_is_extra(b))
            continue;
        if (ts_node_end_point(a).row == ts_node_start_point(b).row) {
            set(e, ts_node_start_point(b), "invalid syntax");
            return 1;
        }
    }
    return 0;
}

/* The deepest first error node, and where in it to point: a missing token where
 * tree-sitter inserted it; in an ERROR node, the last token it swallowed (it
 * holds what parsed before the error as well), or the end of the line before
 * when that token's line is the rest of a construct begun earlier. */
static void tree_error(const py_tree *t, const pytok_result *tok, pytok_error *e)
{
    TSNode n;
    py_first_error(t, &n);
    n = cc_deepest_error(n);
    if (ts_node_is_missing(n)) {
        char why[64];
        snprintf(why, sizeof(why), "invalid syntax (expected '%s')", ts_node_type(n));
        set(e, ts_node_start_point(n), why);
        return;
    }
    if (strcmp(ts_node_type(n), "ERROR") && missing_newline(n, e))
        return;
    TSNode err = n;
    for (uint32_t k; (k = ts_node_child_count(n)) > 0;)
        n = ts_node_child(n, k - 1);
    if (error_runs_on(t, tok, err, ts_node_start_byte(n), e))
        return;
    size_t len;
    const char *s = py_text(t, n, &len);
    size_t show = 0;
    while (show < len && show < 40 && s[show] != '\n')
        show++;
    char why[96];
    if (show)
        snprintf(why, sizeof(why), "invalid syntax near '%.*s'", (int)show, s);
    else
        snprintf(why, sizeof(why), "invalid syntax");
    set(e, ts_node_start_point(n), why);
}

/* Whether a node of this type may start a logical line: a statement, a clause, a
 * decorator. */
static int starts_line(const char *type)
{
    return !strcmp(type, "module") || !strcmp(type, "block") || !strcmp(type, "decorator") ||
           pgci_ends_with(type, "_statement") || pgci_ends_with(type, "_definition") ||
           pgci_ends_with(type, "_clause");
}

/* Checks the nodes that begin at byte `at`, the cursor on the outermost: a Python
 * 2 print or exec statement is an error; 1 when one of them is a statement, a
 * clause or a decorator. Leaves the cursor on the innermost node holding `at`. */
static int line_starts_statement(TSTreeCursor *cur, uint32_t at, pytok_error *e)
{
    int starts = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(cur);
        if (ts_node_start_byte(n) == at) {
            const char *type = ts_node_type(n);
            if (!strcmp(type, "print_statement") || !strcmp(type, "exec_statement")) {
                set(e, ts_node_start_point(n),
                    "invalid syntax (a Python 2 statement: missing parentheses)");
                return 1;
            }
            starts |= starts_line(type);
        }
        if (!ts_tree_cursor_goto_first_child(cur))
            return starts;
        while (ts_node_end_byte(ts_tree_cursor_current_node(cur)) <= at &&
               ts_tree_cursor_goto_next_sibling(cur))
            ;
        TSNode c = ts_tree_cursor_current_node(cur);
        if (ts_node_start_byte(c) > at || ts_node_end_byte(c) <= at) {
            ts_tree_cursor_goto_parent(cur);
            return starts;
        }
    }
}

/* In a tree without error: the first logical line (tok->lines) whose first token
 * does not start a statement, which tree-sitter took as the rest of the one
 * before (`x = 1 +` and the next line); CPython stops at the end of the line. Or
 * a Python 2 print or exec statement. Only the nodes on the way to each line's
 * first byte are read: one cursor goes forward through the tree, passing the
 * subtrees between two lines' starts without entering them. */
static void line_run_on(const py_tree *t, const pytok_result *tok, pytok_error *e)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    for (size_t k = 0; k < tok->lines.len && !e->line; k++) {
        uint32_t at = (uint32_t)tok->lines.items[k];
        /* forward to the first node that ends past `at`: a later sibling, or an
         * ancestor's */
        int more = 1;
        while (more && ts_node_end_byte(ts_tree_cursor_current_node(&cur)) <= at)
            more = ts_tree_cursor_goto_next_sibling(&cur) || ts_tree_cursor_goto_parent(&cur);
        if (!more)
            break;
        if (ts_node_start_byte(ts_tree_cursor_current_node(&cur)) > at)
            continue; /* `at` falls between nodes */
        if (!line_starts_statement(&cur, at, e) && !e->line)
            set(e, end_of_code_before(t, at),
                "invalid syntax (the statement is cut off at the end of the line)");
    }
    ts_tree_cursor_delete(&cur);
}

int ce_check_syntax(const py_tree *t)
{
    pytok_result tok;
    pytok_scan(t->src, t->len, &tok);
    pytok_error parser = {0};
    TSNode err;
    if (py_first_error(t, &err)) {
        tree_error(t, &tok, &parser);
        cc_target_error(t, &tok, err, &parser); /* `f() = 1`, `for f() in x` */
        TSPoint at;
        char why[sizeof(parser.why)];
        if (cc_string_error(t, err, &at, why, sizeof(why))) { /* `f"{}"` */
            set(&parser, at, why);
            /* unless a line before runs on into the string's (`x = 1 +`) */
            pytok_error run = {0};
            line_run_on(t, &tok, &run);
            if (before(&run, &parser))
                parser = run;
        }
    } else
        line_run_on(t, &tok, &parser);
    /* what the parser refuses before any of these, in what tree-sitter took
     * (`x.None`): the compile walk finds it where there is none */
    const pytok_error *first = &parser;
    if (indent_first(&tok.parser_indent, first))
        first = &tok.parser_indent;
    if (before(&tok.error, first))
        first = &tok.error;
    if (first->line) {
        TSPoint at;
        char why[sizeof(parser.why)];
        if (cc_parse_error_before(t, byte_at(t, first->line, first->col), &at, why, sizeof(why))) {
            pytok_error k = {0};
            set(&k, at, why);
            if (before(&k, &parser) || !parser.line)
                parser = k;
        }
    }
    if (indent_first(&tok.parser_indent, &parser) || !parser.line)
        parser = tok.parser_indent;
    const pytok_error *e = &parser;
    if (tok.error.line && (before(&tok.error, &parser) ||
                           (tok.error.late && strcmp(parser.why, "unexpected indent"))))
        e = &tok.error;
    else if (tok.unclosed.line && (!parser.line || parser.line > tok.unclosed.line))
        e = &tok.unclosed;
    int r = 0;
    if (e->line)
        r = pgci_error_set(PGCI_EINVALID, "%s:%u:%u: syntax error: %s", t->path, e->line,
                           e->shown_col ? e->shown_col : e->col, e->why);
    pytok_result_free(&tok);
    return r;
}
