/*
 * config_object.c - the lines of a def or class exactly as Python's inspect reports
 * them, because patchgen takes a replacement's source from
 * inspect.getsourcelines(obj).
 *
 * Start (CPython 3.8+): a function's co_firstlineno is its first decorator's line
 * (the def line when undecorated). A class is found by qualified name (3.9-3.12's
 * _ClassFinder): the FIRST class in the file with that name, outside any def or
 * class body, wins, even when a later definition rebinds the name.
 *
 * End (inspect.getblock's BlockFinder): the last logical line of the body, then any
 * comment lines that follow it, before the next code line, whose column is at least
 * the body's indentation (a comment at column 0 does not end the scan, it is merely
 * not the last line). A one-line body (`def f(): ...`) has no indentation, so no
 * trailing comment counts.
 */
#include <stdlib.h>
#include <string.h>

#include "patchgen/config_internal.h"

static int skip_child(TSNode c)
{
    return py_is(c, "comment") || ts_node_start_byte(c) == ts_node_end_byte(c);
}

/* 0-based row of the last character of the last non-comment token under n. */
static unsigned last_code_row(TSNode n)
{
    for (;;) {
        uint32_t k = ts_node_child_count(n);
        TSNode next = {0};
        int found = 0;
        for (uint32_t i = k; i-- > 0;) {
            TSNode ch = ts_node_child(n, i);
            if (!skip_child(ch)) {
                next = ch;
                found = 1;
                break;
            }
        }
        if (!found)
            break;
        n = next;
    }
    TSPoint e = ts_node_end_point(n);
    TSPoint s = ts_node_start_point(n);
    if (e.column == 0 && e.row > s.row)
        return e.row - 1;
    return e.row;
}

/* The body's indentation column (BlockFinder.body_col0), or -1 when the body sits
 * on the header line. */
static long body_column(TSNode def)
{
    TSNode body = py_field(def, "body");
    if (ts_node_is_null(body))
        return -1;
    unsigned colon_row = 0;
    uint32_t k = ts_node_child_count(def);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_child(def, i);
        if (ts_node_eq(ch, body))
            break;
        if (!strcmp(ts_node_type(ch), ":"))
            colon_row = ts_node_start_point(ch).row;
    }
    uint32_t m = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < m; i++) {
        TSNode st = ts_node_named_child(body, i);
        if (py_is(st, "comment"))
            continue;
        TSPoint p = ts_node_start_point(st);
        return p.row > colon_row ? (long)p.column : -1;
    }
    return -1;
}

/* Byte offset of the start of 0-based row `row`, or len when past the end. */
static size_t row_offset(const char *s, size_t len, unsigned row)
{
    size_t off = 0;
    for (unsigned r = 0; r < row && off < len; r++) {
        const char *nl = memchr(s + off, '\n', len - off);
        if (!nl)
            return len;
        off = (size_t)(nl - s) + 1;
    }
    return off;
}

/* Extends the last row over trailing comments indented at least body_col. */
static unsigned trailing_comments(const py_tree *t, unsigned last, long body_col)
{
    if (body_col < 0)
        return last;
    size_t off = row_offset(t->src, t->len, last + 1);
    unsigned row = last + 1;
    while (off < t->len) {
        const char *line = t->src + off;
        const char *nl = memchr(line, '\n', t->len - off);
        size_t n = nl ? (size_t)(nl - line) : t->len - off;
        size_t i = 0;
        while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f'))
            i++;
        if (i < n && line[i] == '#') {
            if ((long)i >= body_col)
                last = row;
        } else if (!(i == n || (i + 1 == n && line[i] == '\r'))) {
            break; /* a code line: the block has ended */
        }
        if (!nl)
            break;
        off += n + 1;
        row++;
    }
    return last;
}

static TSNode definition_of(TSNode n)
{
    return py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
}

/* _ClassFinder: the first module-scope class (not inside a def or class body) with
 * each name, in source order. Built once per module (one walk), so a config with
 * many classes stays linear. Values are arena-allocated TSNode copies. */
static void index_classes(const py_tree *t, arena *mem, hashmap *first)
{
    /* An explicit stack keeps hostile nesting from exhausting the C stack. */
    TSNode stack[CE_MAX_TREE_DEPTH + 8];
    uint32_t idx[CE_MAX_TREE_DEPTH + 8];
    int sp = 0;
    stack[0] = py_root(t);
    idx[0] = 0;
    while (sp >= 0) {
        TSNode cur = stack[sp];
        if (idx[sp] >= ts_node_named_child_count(cur)) {
            sp--;
            continue;
        }
        TSNode ch = ts_node_named_child(cur, idx[sp]++);
        TSNode def = definition_of(ch);
        if (py_is(def, "class_definition") || py_is(def, "function_definition")) {
            if (py_is(def, "class_definition")) {
                size_t len;
                const char *name = py_text(t, py_field(def, "name"), &len);
                if (!hashmap_getn(first, name, len)) {
                    TSNode *keep = arena_alloc(mem, sizeof(*keep));
                    *keep = ch;
                    hashmap_putn(first, name, len, keep);
                }
            }
            continue; /* do not descend into def/class bodies */
        }
        if (sp + 1 < CE_MAX_TREE_DEPTH) {
            stack[++sp] = ch;
            idx[sp] = 0;
        }
    }
}

void ce_object_lines(const py_tree *t, arena *mem, hashmap *first_class, int *indexed, TSNode node,
                     pg_object *obj)
{
    TSNode def = definition_of(node);
    if (py_is(def, "class_definition")) {
        if (!*indexed) {
            index_classes(t, mem, first_class);
            *indexed = 1;
        }
        size_t len;
        const char *name = py_text(t, py_field(def, "name"), &len);
        TSNode *first = hashmap_getn(first_class, name, len);
        if (first) {
            node = *first;
            def = definition_of(*first);
        }
    }
    obj->start_line = ts_node_start_point(node).row + 1;
    unsigned last = last_code_row(def);
    last = trailing_comments(t, last, body_column(def));
    obj->end_line = last + 1;
}
