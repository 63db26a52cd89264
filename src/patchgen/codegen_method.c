/*
 * codegen_method.c - in-place method overrides on class source text.
 *
 * Why text and not an AST: patchgen keeps the upstream class byte for byte
 * (comments, formatting) and splices the override's source lines in, re-indented
 * to the upstream method's indentation. Every index below mirrors a Python slice
 * over class_source.splitlines().
 */
#include "patchgen/codegen_method.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchgen/codegen_syntax.h"
#include "patchgen/codegen_text.h"
#include "py/reparse.h"
#include "py/py.h"

static int has_function(TSNode n)
{
    if (py_is(n, "function_definition"))
        return 1;
    uint32_t c = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < c; i++)
        if (has_function(ts_node_named_child(n, i)))
            return 1;
    return 0;
}

int cgm_parses_with_function(const char *src, size_t len)
{
    py_tree t;
    if (py_parse(&t, src, len, "<replacement>") < 0)
        return 0;
    int ok = cgsyn_python_accepts(&t) && has_function(py_root(&t));
    py_tree_free(&t);
    return ok;
}

/* last non-comment token row + 1 (Python's end_lineno) */
static unsigned end_line(TSNode n)
{
    for (;;) {
        uint32_t c = ts_node_child_count(n);
        int found = 0;
        for (uint32_t i = c; i-- > 0;) {
            TSNode k = ts_node_child(n, i);
            if (py_is(k, "comment") || ts_node_end_byte(k) == ts_node_start_byte(k))
                continue;
            n = k;
            found = 1;
            break;
        }
        if (!found)
            break;
    }
    TSPoint e = ts_node_end_point(n), s = ts_node_start_point(n);
    return (e.column == 0 && e.row > s.row) ? e.row : e.row + 1;
}

/* len(line) - len(line.lstrip()) in code points */
static size_t indent_of(cg_span l)
{
    return cgtext_cplen(l.p, cgtext_lstrip_off(l.p, l.n));
}

/* _indent_preserved_source(): appends the re-indented lines to out (owned). */
static void indent_preserved(strvec *out, const char *text, size_t n, size_t target)
{
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, text, n);
    size_t pin = 0;
    for (size_t i = 0; i < lines.len; i++)
        if (!cgtext_is_blank(lines.items[i].p, lines.items[i].n)) {
            pin = indent_of(lines.items[i]);
            break;
        }
    for (size_t i = 0; i < lines.len; i++) {
        cg_span l = lines.items[i];
        if (cgtext_is_blank(l.p, l.n)) {
            strvec_push(out, "");
            continue;
        }
        strbuf b = STRBUF_INIT;
        strbuf_addrep(&b, " ", target);
        if (cgtext_cplen(l.p, l.n) >= pin) {
            size_t off = cgtext_cpoff(l.p, l.n, pin);
            strbuf_add(&b, l.p + off, l.n - off);
        } else {
            size_t off = cgtext_lstrip_off(l.p, l.n);
            strbuf_add(&b, l.p + off, l.n - off);
        }
        strvec_push_owned(out, strbuf_detach(&b, NULL));
    }
    VEC_FREE(&lines);
}

static int starts_with_span(cg_span l, const char *pre)
{
    size_t k = strlen(pre);
    return l.n >= k && memcmp(l.p, pre, k) == 0;
}

static TSNode first_class(TSNode root)
{
    uint32_t c = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < c; i++) {
        TSNode n = ts_node_named_child(root, i);
        if (py_is(n, "decorated_definition"))
            n = py_field(n, "definition");
        if (py_is(n, "class_definition"))
            return n;
    }
    TSNode none = {{0}, NULL, NULL};
    return none;
}

static void push_span(strvec *v, cg_span l)
{
    strvec_pushn(v, l.p, l.n);
}

static void push_range(strvec *v, const cg_lines *lines, size_t a, size_t b)
{
    if (b > lines->len)
        b = lines->len;
    for (size_t i = a; i < b; i++)
        push_span(v, lines->items[i]);
}

static int is_empty_body_node(TSNode n)
{
    if (py_is(n, "pass_statement"))
        return 1;
    if (py_is(n, "expression_statement") && ts_node_named_child_count(n) == 1) {
        TSNode e = ts_node_named_child(n, 0);
        while (py_is(e, "parenthesized_expression") && ts_node_named_child_count(e) == 1)
            e = ts_node_named_child(e, 0);
        return py_is(e, "ellipsis");
    }
    return 0;
}

/* The class has the method: the preserved source replaces it, its leading comments
 * above the method's decorators (patchgen's _split_leading_comments()). */
static void replace_existing(strvec *out, const cg_lines *lines, size_t row0, TSNode mnode,
                             TSNode mdecorated, const char *preserved, size_t plen,
                             size_t class_indent)
{
    size_t mstart = ts_node_start_point(mnode).row - row0;
    size_t mend = end_line(mnode) - row0;
    size_t mindent = mstart < lines->len ? indent_of(lines->items[mstart]) : class_indent + 4;
    /* _split_leading_comments() */
    cg_lines pl = VEC_INIT;
    cgtext_splitlines(&pl, preserved, plen);
    size_t i = 0;
    for (; i < pl.len; i++) {
        cg_span l = pl.items[i];
        size_t off = cgtext_lstrip_off(l.p, l.n);
        cg_span s = {l.p + off, l.n - off};
        if (starts_with_span(s, "def ") || starts_with_span(s, "async def ") ||
            starts_with_span(s, "@") || starts_with_span(s, "class "))
            break;
    }
    size_t nlead = i;
    while (nlead > 0 && cgtext_is_blank(pl.items[nlead - 1].p, pl.items[nlead - 1].n))
        nlead--;
    strbuf lead = STRBUF_INIT, defsrc = STRBUF_INIT;
    for (size_t k = 0; k < nlead; k++) {
        if (k)
            strbuf_addc(&lead, '\n');
        strbuf_add(&lead, pl.items[k].p, pl.items[k].n);
    }
    for (size_t k = i; k < pl.len; k++) {
        if (k > i)
            strbuf_addc(&defsrc, '\n');
        strbuf_add(&defsrc, pl.items[k].p, pl.items[k].n);
    }
    size_t dstart = ts_node_start_point(mdecorated).row - row0; /* first decorator, or the def */
    push_range(out, lines, 0, dstart);
    if (nlead)
        indent_preserved(out, lead.buf, lead.len, mindent);
    push_range(out, lines, dstart, mstart);
    indent_preserved(out, defsrc.buf, defsrc.len, mindent);
    push_range(out, lines, mend, lines->len);
    strbuf_free(&lead);
    strbuf_free(&defsrc);
    VEC_FREE(&pl);
}

/* The class lacks the method: the preserved source is added, in place of an empty
 * body (`pass`, `...`) when there is one, else at the end. */
static void add_new(strvec *out, const cg_lines *lines, size_t row0, TSNode empty, int have_empty,
                    const char *preserved, size_t plen, size_t class_indent)
{
    strvec ind = STRVEC_INIT;
    indent_preserved(&ind, preserved, plen, class_indent + 4);
    if (have_empty) {
        size_t estart = ts_node_start_point(empty).row - row0;
        size_t eend = end_line(empty) - row0;
        cg_span hl = estart < lines->len ? lines->items[estart] : (cg_span){"", 0};
        const char *colon = NULL;
        for (size_t k = hl.n; k-- > 0;)
            if (hl.p[k] == ':') {
                colon = hl.p + k;
                break;
            }
        int inline_form = 0;
        if (colon) {
            const char *a = colon + 1, *e = hl.p + hl.n;
            const char *hash = memchr(a, '#', (size_t)(e - a));
            if (hash)
                e = hash;
            cg_span st = cgtext_strip(a, (size_t)(e - a));
            inline_form =
                (st.n == 4 && !memcmp(st.p, "pass", 4)) || (st.n == 3 && !memcmp(st.p, "...", 3));
        }
        push_range(out, lines, 0, estart);
        if (inline_form) {
            cg_span h = cgtext_strip(hl.p, (size_t)(colon + 1 - hl.p));
            /* rstrip only */
            strvec_pushn(out, hl.p, (size_t)(h.p - hl.p) + h.n);
        }
        for (size_t k = 0; k < ind.len; k++)
            strvec_push(out, ind.items[k]);
        push_range(out, lines, eend, lines->len);
    } else {
        push_range(out, lines, 0, lines->len);
        if (out->len &&
            !cgtext_is_blank(out->items[out->len - 1], strlen(out->items[out->len - 1])))
            strvec_push(out, "");
        for (size_t k = 0; k < ind.len; k++)
            strvec_push(out, ind.items[k]);
    }
    strvec_free(&ind);
}

void cgm_state_free(cgm_state *st)
{
    if (st->have)
        py_tree_free(&st->t);
    memset(st, 0, sizeof(*st));
}

/* The tree of cls in st->t: re-parsed from the last one when there is one. */
static int class_tree(cgm_state *st, const strbuf *cls)
{
    if (st->have && py_reparse(&st->t, cls->buf, cls->len) == 0)
        return 0;
    cgm_state_free(st);
    if (py_parse(&st->t, cls->buf, cls->len, "<class>") < 0)
        return -1;
    st->have = 1;
    return 0;
}

void cgm_replace_method(strbuf *cls, const char *method, const char *preserved, int *added)
{
    cgm_state st = {0};
    cgm_replace_method_in(&st, cls, method, preserved, added);
    cgm_state_free(&st);
}

/* The rewrite itself, on the class_definition cdef of tree t, whose row row0 is
 * the first line of cls. */
static void rewrite_at(const py_tree *t, TSNode cdef, size_t row0, strbuf *cls, const char *method,
                       const char *preserved, int *added)
{
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, cls->buf, cls->len);
    size_t class_start = ts_node_start_point(cdef).row - row0;
    size_t class_indent = class_start < lines.len ? indent_of(lines.items[class_start]) : 0;

    TSNode body = py_field(cdef, "body");
    TSNode mnode = {{0}, NULL, NULL}, mdecorated = {{0}, NULL, NULL}, empty = {{0}, NULL, NULL};
    int have_m = 0, have_empty = 0;
    uint32_t c = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < c; i++) {
        TSNode item = ts_node_named_child(body, i);
        TSNode def = py_is(item, "decorated_definition") ? py_field(item, "definition") : item;
        if (!have_m && py_is(def, "function_definition")) {
            TSNode nm = py_field(def, "name");
            if (!ts_node_is_null(nm) && py_text_eq(t, nm, method)) {
                mnode = def;
                mdecorated = item;
                have_m = 1;
            }
        }
        if (!have_empty && is_empty_body_node(item)) {
            empty = item;
            have_empty = 1;
        }
    }

    strvec out = STRVEC_INIT;
    size_t plen = strlen(preserved);
    if (have_m) {
        replace_existing(&out, &lines, row0, mnode, mdecorated, preserved, plen, class_indent);
    } else {
        *added = 1;
        add_new(&out, &lines, row0, empty, have_empty, preserved, plen, class_indent);
    }
    strbuf_reset(cls);
    for (size_t k = 0; k < out.len; k++) {
        if (k)
            strbuf_addc(cls, '\n');
        strbuf_adds(cls, out.items[k]);
    }
    strvec_free(&out);
    VEC_FREE(&lines);
}

/* The rewrite on a fresh parse of cls (in st, for the next rewrite to re-parse
 * from). Leaves cls as it is when Python would not accept it. */
static void rewrite_parsed(cgm_state *st, strbuf *cls, const char *method, const char *preserved,
                           int *added)
{
    if (class_tree(st, cls) < 0)
        return;
    TSNode cdef = first_class(py_root(&st->t));
    if (!cgsyn_python_accepts(&st->t) || ts_node_is_null(cdef))
        return;
    rewrite_at(&st->t, cdef, 0, cls, method, preserved, added);
}

void cgm_state_view(cgm_state *st, const py_tree *module, TSNode cdef, size_t row0)
{
    st->module = module;
    st->cdef = cdef;
    st->row0 = row0;
}

/* PGCI_VERIFY_REPARSE: the rewrite through the module's tree is the one a fresh
 * parse of the class gives, or pgci aborts. */
static void verify_view(const strbuf *before, const strbuf *after, const char *method,
                        const char *preserved, int added)
{
    cgm_state fresh = {0};
    strbuf cls = STRBUF_INIT;
    strbuf_add(&cls, before->buf, before->len);
    int fadded = 0;
    rewrite_parsed(&fresh, &cls, method, preserved, &fadded);
    if (fadded != added || cls.len != after->len || memcmp(cls.buf, after->buf, cls.len)) {
        fprintf(stderr,
                "pgci: the rewrite of %s through the module's tree differs from the one "
                "through a fresh parse of its class\n",
                method);
        abort();
    }
    strbuf_free(&cls);
    cgm_state_free(&fresh);
}

void cgm_replace_method_in(cgm_state *st, strbuf *cls, const char *method, const char *preserved,
                           int *added)
{
    *added = 0;
    if (!st->module) {
        rewrite_parsed(st, cls, method, preserved, added);
        return;
    }
    /* the first rewrite: the class as the module's tree has it; the next one
     * parses the rewritten class */
    const py_tree *module = st->module;
    st->module = NULL;
    strbuf before = STRBUF_INIT;
    int verifying = getenv("PGCI_VERIFY_REPARSE") != NULL;
    if (verifying)
        strbuf_add(&before, cls->buf, cls->len);
    rewrite_at(module, st->cdef, st->row0, cls, method, preserved, added);
    if (verifying)
        verify_view(&before, cls, method, preserved, *added);
    strbuf_free(&before);
}
