#include "py/pynode.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"

int pynode_is_comment(TSNode n)
{
    return strcmp(ts_node_type(n), "comment") == 0;
}

TSPoint pynode_code_end(TSNode n, uint32_t *end_byte)
{
    /* Descend through the last child that is code until a token is reached. */
    for (;;) {
        uint32_t c = ts_node_child_count(n);
        int found = 0;
        for (uint32_t i = c; i-- > 0;) {
            TSNode ch = ts_node_child(n, i);
            if (!pynode_is_comment(ch) && ts_node_end_byte(ch) > ts_node_start_byte(ch)) {
                n = ch;
                found = 1;
                break;
            }
        }
        if (!found)
            break;
    }
    if (end_byte)
        *end_byte = ts_node_end_byte(n);
    return ts_node_end_point(n);
}

unsigned pynode_end_line(TSNode n)
{
    TSPoint p = pynode_code_end(n, NULL);
    return p.row + 1;
}

TSNode pynode_named_child(TSNode n, uint32_t want)
{
    uint32_t c = ts_node_named_child_count(n), seen = 0;
    for (uint32_t i = 0; i < c; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (pynode_is_comment(ch))
            continue;
        if (seen++ == want)
            return ch;
    }
    TSNode null = {0};
    return null;
}

typedef struct clean_state {
    strbuf *out;
    const char *src;
    uint32_t prev_end; /* end byte of the last token copied; UINT32_MAX before any */
    char prev_last;    /* its last character */
} clean_state;

static int is_open(char c)
{
    return c == '(' || c == '[' || c == '{';
}

static int is_close(char c)
{
    return c == ')' || c == ']' || c == '}';
}

/* Copies one token, with the gap before it joined when it breaks a line. */
static void clean_token(clean_state *st, uint32_t a, uint32_t b)
{
    if (st->prev_end != UINT32_MAX && a > st->prev_end) {
        const char *g = st->src + st->prev_end;
        size_t glen = a - st->prev_end;
        if (memchr(g, '\n', glen) || memchr(g, '\r', glen)) {
            if (!is_open(st->prev_last) && !is_close(st->src[a]))
                strbuf_addc(st->out, ' ');
        } else {
            strbuf_add(st->out, g, glen);
        }
    }
    strbuf_add(st->out, st->src + a, b - a);
    st->prev_end = b;
    st->prev_last = b > a ? st->src[b - 1] : st->prev_last;
}

static void clean_walk(clean_state *st, TSTreeCursor *cur)
{
    TSNode n = ts_tree_cursor_current_node(cur);
    const char *type = ts_node_type(n);
    /* comments go; a backslash continuation is a line break like any other */
    if (!strcmp(type, "comment") || !strcmp(type, "line_continuation"))
        return;
    if (ts_node_child_count(n) == 0 || !strcmp(type, "string")) {
        clean_token(st, ts_node_start_byte(n), ts_node_end_byte(n));
        return;
    }
    if (ts_tree_cursor_goto_first_child(cur)) {
        do
            clean_walk(st, cur);
        while (ts_tree_cursor_goto_next_sibling(cur));
        ts_tree_cursor_goto_parent(cur);
    }
}

void pynode_text_clean(strbuf *out, const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    if (!memchr(s, '\n', len) && !memchr(s, '#', len) && !memchr(s, '\r', len)) {
        strbuf_add(out, s, len); /* the common case: one line, no comment */
        return;
    }
    clean_state st = {out, t->src, UINT32_MAX, 0};
    TSTreeCursor cur = ts_tree_cursor_new(n);
    clean_walk(&st, &cur);
    ts_tree_cursor_delete(&cur);
}

size_t pynode_children(TSNode n, int named_only, TSNode **out)
{
    VEC(TSNode) v = VEC_INIT;
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&cur);
            if ((named_only && !ts_node_is_named(ch)) || pynode_is_comment(ch))
                continue;
            VEC_PUSH(&v, ch);
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    *out = v.items;
    return v.len;
}

TSNode pynode_docstring(const py_tree *t, TSNode body)
{
    TSNode null = {0};
    TSNode first = pynode_named_child(body, 0);
    if (!py_is(first, "expression_statement") || !ts_node_is_null(pynode_named_child(first, 1)))
        return null;
    TSNode lit = pynode_named_child(first, 0);
    if (!py_is(lit, "string") && !py_is(lit, "concatenated_string"))
        return null;
    TSNode *parts = &lit;
    size_t np = 1;
    TSNode *kids = NULL;
    if (py_is(lit, "concatenated_string")) {
        np = pynode_children(lit, 1, &kids);
        parts = kids;
    }
    int ok = 1;
    for (size_t i = 0; i < np && ok; i++) {
        size_t len;
        const char *s = py_text(t, parts[i], &len);
        for (size_t k = 0; k < len && s[k] != '\'' && s[k] != '"'; k++)
            if (s[k] == 'b' || s[k] == 'B' || s[k] == 'f' || s[k] == 'F')
                ok = 0;
    }
    free(kids);
    return ok ? lit : null;
}

int pynode_depth_bounded(TSNode n, unsigned depth, unsigned limit)
{
    uint32_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
    return len < limit && depth + 4 * len + 32 <= limit && !ts_node_has_error(n);
}

int pynode_deeper_than(TSNode n, unsigned limit)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    unsigned depth = 0;
    int deeper = 0;
    for (;;) {
        if (!pynode_depth_bounded(ts_tree_cursor_current_node(&cur), depth, limit) &&
            ts_tree_cursor_goto_first_child(&cur)) {
            if (++depth > limit) {
                deeper = 1;
                break;
            }
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (depth == 0 || !ts_tree_cursor_goto_parent(&cur))
                goto done;
            depth--;
        }
    }
done:
    ts_tree_cursor_delete(&cur);
    return deeper;
}

int pynode_is_import(TSNode n)
{
    return py_is(n, "import_statement") || py_is(n, "import_from_statement") ||
           py_is(n, "future_import_statement");
}

int pynode_holds_statements(TSNode n)
{
    static const char *const types[] = {
        "module",          "block",          "if_statement",        "elif_clause",
        "else_clause",     "try_statement",  "except_clause",       "except_group_clause",
        "finally_clause",  "with_statement", "for_statement",       "while_statement",
        "match_statement", "case_clause",    "decorated_definition"};
    if (ts_node_is_null(n))
        return 0;
    const char *t = ts_node_type(n);
    for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
        if (!strcmp(t, types[i]))
            return 1;
    return 0;
}

int pynode_function_at(const py_tree *t, uint32_t at, TSNode *def)
{
    TSNode n = ts_node_descendant_for_byte_range(py_root(t), at, at);
    for (; !ts_node_is_null(n) && ts_node_start_byte(n) == at; n = ts_node_parent(n)) {
        TSNode d = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
        if (py_is(d, "function_definition")) {
            *def = d;
            return 0;
        }
    }
    return pgci_error_set(PGCI_ENOTFOUND, "%s: no function at byte %u", t->path, at);
}

int pynode_is_real(TSNode n)
{
    return !ts_node_is_null(n) && !ts_node_is_missing(n) &&
           ts_node_end_byte(n) > ts_node_start_byte(n);
}
