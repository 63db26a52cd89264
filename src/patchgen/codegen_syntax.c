/*
 * codegen_syntax.c - CPython's indentation rules over a tree-sitter tree.
 *
 * We walk the leaves in order. A row starts a logical line when its first leaf
 * (not a comment) is outside brackets and strings and the previous line did not
 * end with a backslash. For each logical line the tokenizer's two columns are
 * computed from its leading whitespace (col: tabs to the next multiple of 8;
 * altcol: tabs as 1; a form feed resets both) and checked against the indent
 * stack exactly as Parser/tokenizer.c does (TabError, "unindent does not match
 * any outer indentation level"); the parser's rules add "unexpected indent" (an
 * indent not right after a line ending in ':') and "expected an indented block".
 */
#include "patchgen/codegen_syntax.h"

#include <string.h>

#define MAX_DEPTH 512

typedef struct indent_state {
    int col[MAX_DEPTH], alt[MAX_DEPTH];
    int top;
    int prev_opens_block; /* the previous logical line ended with ':' */
    unsigned bad_line;
    const char *why;
} indent_state;

static int check_line(indent_state *s, const char *src, size_t off, unsigned row)
{
    int col = 0, alt = 0;
    for (size_t i = off;; i++) {
        char c = src[i];
        if (c == ' ')
            col++, alt++;
        else if (c == '\t')
            col = (col / 8 + 1) * 8, alt++;
        else if (c == '\f')
            col = alt = 0;
        else
            break;
    }
    const char *why = NULL;
    if (col == s->col[s->top]) {
        if (alt != s->alt[s->top])
            why = "inconsistent use of tabs and spaces in indentation";
        else if (s->prev_opens_block)
            why = "expected an indented block";
    } else if (col > s->col[s->top]) {
        if (!s->prev_opens_block)
            why = "unexpected indent";
        else if (alt <= s->alt[s->top])
            why = "inconsistent use of tabs and spaces in indentation";
        else if (s->top + 1 >= MAX_DEPTH)
            why = "too many levels of indentation";
        else {
            s->top++;
            s->col[s->top] = col;
            s->alt[s->top] = alt;
        }
    } else {
        if (s->prev_opens_block)
            why = "expected an indented block";
        while (s->top > 0 && col < s->col[s->top])
            s->top--;
        if (!why && col != s->col[s->top])
            why = "unindent does not match any outer indentation level";
        else if (!why && alt != s->alt[s->top])
            why = "inconsistent use of tabs and spaces in indentation";
    }
    if (why) {
        s->bad_line = row + 1;
        s->why = why;
        return -1;
    }
    return 0;
}

unsigned cgsyn_indent_error_line(const py_tree *t, const char **why)
{
    indent_state s;
    memset(&s, 0, sizeof(s));
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int brackets = 0, strings = 0, continued = 0, have_last = 0;
    long last_row = -1;
    const char *last_type = "";
    /* pre-order walk over leaves */
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (ts_node_child_count(n) == 0 && ts_node_end_byte(n) > ts_node_start_byte(n)) {
            const char *type = ts_node_type(n);
            TSPoint p = ts_node_start_point(n);
            if (strcmp(type, "comment") != 0) {
                if ((long)p.row != last_row) {
                    if (brackets == 0 && strings == 0 && !continued) {
                        s.prev_opens_block = have_last && !strcmp(last_type, ":");
                        size_t off = ts_node_start_byte(n) - p.column;
                        if (check_line(&s, t->src, off, p.row) < 0)
                            break;
                    }
                    continued = 0;
                    last_row = (long)p.row;
                }
                if (!strcmp(type, "line_continuation")) {
                    continued = 1;
                } else {
                    if (!strcmp(type, "(") || !strcmp(type, "[") || !strcmp(type, "{"))
                        brackets++;
                    else if ((!strcmp(type, ")") || !strcmp(type, "]") || !strcmp(type, "}")) &&
                             brackets > 0)
                        brackets--;
                    else if (!strcmp(type, "string_start"))
                        strings++;
                    else if (!strcmp(type, "string_end") && strings > 0)
                        strings--;
                    last_type = type;
                    have_last = 1;
                }
                /* a leaf spanning rows (string content) moves the current row */
                last_row = (long)ts_node_end_point(n).row;
            }
        }
        if (ts_tree_cursor_goto_first_child(&cur))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (!ts_tree_cursor_goto_parent(&cur)) {
                ts_tree_cursor_delete(&cur);
                goto done;
            }
        }
    }
    ts_tree_cursor_delete(&cur);
done:
    if (!s.bad_line && have_last && !strcmp(last_type, ":")) {
        s.bad_line = (unsigned)last_row + 1;
        s.why = "expected an indented block";
    }
    if (why)
        *why = s.why;
    return s.bad_line;
}

int cgsyn_python_accepts(const py_tree *t)
{
    TSNode err;
    if (py_first_error(t, &err))
        return 0;
    return cgsyn_indent_error_line(t, NULL) == 0;
}
