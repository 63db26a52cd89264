/*
 * codegen_syntax.c - CPython's indentation rules over a tree-sitter tree.
 *
 * We walk the leaves in order. A row starts a logical line when its first leaf
 * (not a comment) is outside brackets and strings and the previous line did not
 * end with a backslash. For each logical line the tokenizer's two columns are
 * checked by pytok_indent_line (src/py/pytok.c), as Parser/tokenizer.c checks
 * it (TabError, "unindent does not match any outer indentation level"), with the
 * parser's rules: "unexpected indent" (an indent not right after a line ending in
 * ':') and "expected an indented block". And the characters tree-sitter skips as
 * blank between tokens where CPython's tokenizer refuses them (U+000B, U+FEFF,
 * U+2060, U+200B: "invalid non-printable character").
 */
#include "patchgen/codegen_syntax.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/pytok.h"

typedef struct indent_state {
    pytok_indent ind;
    int prev_opens_block; /* the previous logical line ended with ':' */
    unsigned bad_line;
    const char *why;
} indent_state;

static int check_line(indent_state *s, const char *src, size_t off, unsigned row)
{
    int parser;
    const char *why = pytok_indent_line(&s->ind, src + off, s->prev_opens_block, &parser);
    if (why) {
        s->bad_line = row + 1;
        s->why = why;
        return -1;
    }
    return 0;
}

/* What a leaf is to the walk below, by its type's name: one table for the
 * grammar, made once and indexed by symbol (comparing names per leaf was most of
 * the walk's time). */
typedef enum leaf_class {
    L_OTHER,
    L_COMMENT,
    L_CONTINUATION,
    L_OPEN,  /* ( [ { */
    L_CLOSE, /* ) ] } */
    L_STRING_START,
    L_STRING_END,
    L_COLON
} leaf_class;

static struct {
    pthread_once_t once;
    unsigned char *cls;
    unsigned char *holder; /* a node of this symbol may hold statements (see skippable) */
    uint32_t n;
} leaves = {PTHREAD_ONCE_INIT, NULL, NULL, 0};

static leaf_class class_of(const char *type)
{
    static const struct {
        const char *name;
        leaf_class c;
    } names[] = {{"comment", L_COMMENT},
                 {"line_continuation", L_CONTINUATION},
                 {"(", L_OPEN},
                 {"[", L_OPEN},
                 {"{", L_OPEN},
                 {")", L_CLOSE},
                 {"]", L_CLOSE},
                 {"}", L_CLOSE},
                 {"string_start", L_STRING_START},
                 {"string_end", L_STRING_END},
                 {":", L_COLON}};
    for (size_t i = 0; type && i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(type, names[i].name))
            return names[i].c;
    return L_OTHER;
}

/* Statements live in blocks, and blocks in compound statements, their clauses and
 * definitions: by name, with room to spare (a simple statement or a
 * comprehension's for_in_clause counts too, which only costs a walk into it). */
static int may_hold_statements(const char *type)
{
    return !type || !strcmp(type, "module") || !strcmp(type, "block") || !strcmp(type, "ERROR") ||
           pgci_ends_with(type, "_statement") || pgci_ends_with(type, "_clause") ||
           pgci_ends_with(type, "_definition");
}

static void leaves_init(void)
{
    const TSLanguage *lang = tree_sitter_python();
    leaves.n = ts_language_symbol_count(lang);
    leaves.cls = pgci_calloc(leaves.n ? leaves.n : 1, 1);
    leaves.holder = pgci_calloc(leaves.n ? leaves.n : 1, 1);
    for (uint32_t i = 0; i < leaves.n; i++) {
        const char *name = ts_language_symbol_name(lang, (TSSymbol)i);
        leaves.cls[i] = (unsigned char)class_of(name);
        leaves.holder[i] = (unsigned char)may_hold_statements(name);
    }
}

static leaf_class leaf_of(TSNode n)
{
    TSSymbol sym = ts_node_symbol(n);
    return sym < leaves.n ? (leaf_class)leaves.cls[sym] : L_OTHER;
}

/* The state of the walk over leaves: brackets and strings open, a backslash seen. */
typedef struct leaf_walk {
    int brackets, strings, continued, have_last, last_colon;
    long last_row;
    int clean; /* the tree has no error anywhere (see skippable) */
} leaf_walk;

/* One leaf (not a comment); -1 when its row starts a logical line that breaks a
 * rule (s says which). */
static int visit_leaf(leaf_walk *w, indent_state *s, const py_tree *t, TSNode n, leaf_class c)
{
    TSPoint p = ts_node_start_point(n);
    if ((long)p.row != w->last_row) {
        if (w->brackets == 0 && w->strings == 0 && !w->continued) {
            s->prev_opens_block = w->have_last && w->last_colon;
            size_t off = ts_node_start_byte(n) - p.column;
            if (check_line(s, t->src, off, p.row) < 0)
                return -1;
        }
        w->continued = 0;
        w->last_row = (long)p.row;
    }
    if (c == L_CONTINUATION) {
        w->continued = 1;
    } else {
        if (c == L_OPEN)
            w->brackets++;
        else if (c == L_CLOSE && w->brackets > 0)
            w->brackets--;
        else if (c == L_STRING_START)
            w->strings++;
        else if (c == L_STRING_END && w->strings > 0)
            w->strings--;
        w->last_colon = c == L_COLON;
        w->have_last = 1;
    }
    /* a leaf spanning rows (string content) moves the current row */
    w->last_row = (long)ts_node_end_point(n).row;
    return 0;
}

/* Whether the walk may step over n without visiting its leaves: n starts on the
 * row the walk is on (whose line was checked), has no error, and either lies on
 * that row or, in a tree without any error, holds no statement (an expression over
 * several rows: in Python that parses, every row after its first is inside its
 * brackets or a string, or continued by a backslash, and starts no logical line;
 * around an error tree-sitter may leave rows to a string or a bracket that CPython
 * would read otherwise); and its last leaf is neither a comment, a backslash,
 * empty nor a colon. A node without error holds both brackets of a pair or
 * neither, and both ends of a string or neither, so the counts come out as they
 * were; the last leaf leaves what it would have. */
static int skippable(const leaf_walk *w, TSNode n)
{
    if (w->last_row < 0 || (long)ts_node_start_point(n).row != w->last_row || ts_node_has_error(n))
        return 0;
    TSSymbol sym = ts_node_symbol(n);
    if ((long)ts_node_end_point(n).row != w->last_row &&
        (!w->clean || sym >= leaves.n || leaves.holder[sym]))
        return 0;
    TSNode k = n;
    for (uint32_t c; (c = ts_node_child_count(k)) > 0;)
        k = ts_node_child(k, c - 1);
    leaf_class c = leaf_of(k);
    return c != L_COMMENT && c != L_COLON && c != L_CONTINUATION &&
           ts_node_end_byte(k) > ts_node_start_byte(k);
}

/* Whether byte at of t is a token's own: a comment's or a string's text. */
static int in_token(const py_tree *t, uint32_t at)
{
    TSNode n = ts_node_descendant_for_byte_range(py_root(t), at, at + 1);
    if (ts_node_is_null(n) || ts_node_start_byte(n) > at || ts_node_end_byte(n) <= at)
        return 0;
    if (py_is(n, "comment") || py_is(n, "string_content"))
        return 1;
    TSNode up = ts_node_parent(n); /* an escape sequence's */
    return !ts_node_is_null(up) && py_is(up, "string_content");
}

/* The 1-based line of the first character tree-sitter skipped as blank outside
 * every token (py_next_ts_blank; 0: none), *why CPython's message for it. Most texts
 * hold none of them at all. */
static unsigned blank_error_line(const py_tree *t, const char **why)
{
    const char *e = t->src + t->len, *p = t->src;
    unsigned cp = 0;
    while ((p = py_next_ts_blank(p, e, &cp)) && in_token(t, (uint32_t)(p - t->src)))
        p++;
    if (!p)
        return 0;
    *why = cp == 0x0B     ? "invalid non-printable character U+000B"
           : cp == 0xFEFF ? "invalid non-printable character U+FEFF"
           : cp == 0x2060 ? "invalid non-printable character U+2060"
                          : "invalid non-printable character U+200B";
    unsigned line = 1;
    for (const char *q = t->src; (q = memchr(q, '\n', (size_t)(p - q))) != NULL; q++)
        line++;
    return line;
}

static unsigned indent_error_line(const py_tree *t, const char **why, int skip)
{
    pthread_once(&leaves.once, leaves_init);
    indent_state s;
    memset(&s, 0, sizeof(s));
    leaf_walk w = {0, 0, 0, 0, 0, -1, !ts_node_has_error(py_root(t))};
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    /* pre-order walk over leaves */
    int down;
    do {
        TSNode n = ts_tree_cursor_current_node(&cur);
        down = 1;
        if (ts_node_child_count(n) == 0) {
            if (ts_node_end_byte(n) > ts_node_start_byte(n)) {
                leaf_class c = leaf_of(n);
                if (c != L_COMMENT && visit_leaf(&w, &s, t, n, c) < 0)
                    break;
            }
        } else if (skip && skippable(&w, n)) {
            w.have_last = 1;
            w.last_colon = 0;
            w.last_row = (long)ts_node_end_point(n).row;
            down = 0;
        }
    } while (py_cursor_next(&cur, down));
    ts_tree_cursor_delete(&cur);
    if (!s.bad_line && w.have_last && w.last_colon) {
        s.bad_line = (unsigned)w.last_row + 1;
        s.why = "expected an indented block";
    }
    /* the tokenizer stops at the first; on one line the indentation comes first */
    const char *blank_why = NULL;
    unsigned blank = blank_error_line(t, &blank_why);
    if (blank && (!s.bad_line || blank < s.bad_line)) {
        s.bad_line = blank;
        s.why = blank_why;
    }
    if (why)
        *why = s.why;
    return s.bad_line;
}

unsigned cgsyn_indent_error_line(const py_tree *t, const char **why)
{
    return indent_error_line(t, why, 1);
}

unsigned cgsyn_indent_error_line_every_leaf(const py_tree *t, const char **why)
{
    return indent_error_line(t, why, 0);
}

int cgsyn_python_accepts(const py_tree *t)
{
    TSNode err;
    if (py_first_error(t, &err))
        return 0;
    return cgsyn_indent_error_line(t, NULL) == 0;
}
