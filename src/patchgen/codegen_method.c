/*
 * codegen_method.c - in-place method overrides on class source text.
 *
 * Why text and not an AST: patchgen keeps the upstream class byte for byte
 * (comments, formatting) and splices the override's source lines in, re-indented
 * to the upstream method's indentation. Every index below mirrors a Python slice
 * over class_source.splitlines().
 */
#include "patchgen/codegen_method.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"

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

/* ---- the class as a list of body items ----------------------------------------------
 *
 * What a rewrite reads of a class's tree: where the class starts, and its body's
 * statements in order (a def's name, the rows of its first decorator, of `def` and
 * of its end; whether it is an empty `pass` / `...`). A rewrite of a method the
 * class has changes one item, so the list after it can often be worked out without
 * parsing the class again (model_update), where patchgen re-parses. */

typedef struct cgm_item {
    char *name;     /* a def's name; NULL for any other statement */
    size_t start;   /* its first row (first decorator) */
    size_t def_row; /* a def: the row of `def` */
    size_t end;     /* end_line() of the def, or of the statement */
    int empty;      /* `pass` or `...` */
} cgm_item;

/* What a rewrite did, for model_update. */
typedef struct rewrite_info {
    int replaced;        /* the method was there (replace_existing) */
    int appended;        /* it was not, and went at the end (add_new, no empty body) */
    size_t first;        /* appended: the first line of what was added */
    size_t item;         /* which item */
    size_t nlead, ndef;  /* lines put above its decorators, lines of the new def */
    size_t mindent;      /* the def's indentation */
    int lead_is_comment; /* the lines put above it are comments or blank */
} rewrite_info;

struct cgm_model {
    VEC(cgm_item) items;
    size_t class_row;
    rewrite_info last; /* the last rewrite, when pending */
    int pending;       /* items not yet brought up to date after it */
};

static void model_free(cgm_model *md)
{
    if (!md)
        return;
    for (size_t i = 0; i < md->items.len; i++)
        free(md->items.items[i].name);
    VEC_FREE(&md->items);
    free(md);
}

/* The items of the class cdef of tree t, rows counted from row0. */
static cgm_model *model_from_tree(const py_tree *t, TSNode cdef, size_t row0)
{
    cgm_model *md = pgci_calloc(1, sizeof(*md));
    md->class_row = ts_node_start_point(cdef).row - row0;
    TSNode body = py_field(cdef, "body");
    uint32_t c = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < c; i++) {
        TSNode item = ts_node_named_child(body, i);
        if (py_is(item, "comment"))
            continue;
        TSNode def = py_is(item, "decorated_definition") ? py_field(item, "definition") : item;
        cgm_item it = {NULL, ts_node_start_point(item).row - row0, 0, 0, 0};
        if (py_is(def, "function_definition")) {
            TSNode nm = py_field(def, "name");
            it.name = ts_node_is_null(nm) ? pgci_strdup("") : py_text_dup(t, nm);
            it.def_row = ts_node_start_point(def).row - row0;
            it.end = end_line(def) - row0;
        } else {
            it.empty = is_empty_body_node(item);
            it.end = end_line(item) - row0;
        }
        VEC_PUSH(&md->items, it);
    }
    return md;
}

/* The class has the method: the preserved source replaces it, its leading comments
 * above the method's decorators (patchgen's _split_leading_comments()). */
static void replace_existing(strvec *out, const cg_lines *lines, const cgm_item *m,
                             const char *preserved, size_t plen, size_t class_indent,
                             rewrite_info *ri)
{
    size_t mstart = m->def_row, mend = m->end, dstart = m->start;
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
    ri->lead_is_comment = 1;
    for (size_t k = 0; k < nlead; k++) {
        if (k)
            strbuf_addc(&lead, '\n');
        strbuf_add(&lead, pl.items[k].p, pl.items[k].n);
        cg_span st = cgtext_strip(pl.items[k].p, pl.items[k].n);
        ri->lead_is_comment &= st.n == 0 || st.p[0] == '#';
    }
    for (size_t k = i; k < pl.len; k++) {
        if (k > i)
            strbuf_addc(&defsrc, '\n');
        strbuf_add(&defsrc, pl.items[k].p, pl.items[k].n);
    }
    push_range(out, lines, 0, dstart);
    size_t before = out->len;
    if (nlead)
        indent_preserved(out, lead.buf, lead.len, mindent);
    ri->nlead = out->len - before;
    push_range(out, lines, dstart, mstart);
    before = out->len;
    indent_preserved(out, defsrc.buf, defsrc.len, mindent);
    ri->ndef = out->len - before;
    ri->mindent = mindent;
    ri->replaced = 1;
    push_range(out, lines, mend, lines->len);
    strbuf_free(&lead);
    strbuf_free(&defsrc);
    VEC_FREE(&pl);
}

/* The class lacks the method: the preserved source is added, in place of an empty
 * body (`pass`, `...`) when there is one, else at the end. */
static void add_new(strvec *out, const cg_lines *lines, const cgm_item *empty,
                    const char *preserved, size_t plen, size_t class_indent, rewrite_info *ri)
{
    strvec ind = STRVEC_INIT;
    indent_preserved(&ind, preserved, plen, class_indent + 4);
    if (empty) {
        size_t estart = empty->start, eend = empty->end;
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
        ri->appended = 1;
        ri->first = out->len;
        ri->ndef = ind.len;
        ri->mindent = class_indent + 4;
        for (size_t k = 0; k < ind.len; k++)
            strvec_push(out, ind.items[k]);
    }
    strvec_free(&ind);
}

/* The rewrite itself, on the class's items. */
static void rewrite_model(const cgm_model *md, strbuf *cls, const char *method,
                          const char *preserved, int *added, rewrite_info *ri)
{
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, cls->buf, cls->len);
    size_t class_indent = md->class_row < lines.len ? indent_of(lines.items[md->class_row]) : 0;
    const cgm_item *m = NULL, *empty = NULL;
    for (size_t i = 0; i < md->items.len; i++) {
        const cgm_item *it = &md->items.items[i];
        if (!m && it->name && !strcmp(it->name, method))
            m = it;
        if (!empty && it->empty)
            empty = it;
    }
    strvec out = STRVEC_INIT;
    size_t plen = strlen(preserved);
    memset(ri, 0, sizeof(*ri));
    if (m) {
        ri->item = (size_t)(m - md->items.items);
        replace_existing(&out, &lines, m, preserved, plen, class_indent, ri);
    } else {
        *added = 1;
        add_new(&out, &lines, empty, preserved, plen, class_indent, ri);
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

/* 1 when s holds a line break other than "\n" that Python's str.splitlines()
 * breaks at, a tab or a form feed: then rows and line numbers may part, or
 * columns and indentation levels. */
static int has_odd_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t' || c == '\v' || c == '\f' || c == '\r' || (c >= 0x1c && c <= 0x1e))
            return 1;
        if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
            return 1;
        if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
            ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
            return 1;
    }
    return 0;
}

/* What a parse of a method's lines alone says: whether they are one function
 * definition (comments aside, decorated or not) that Python accepts, its name,
 * and the rows of its first statement line, its def and its end_line(). */
typedef struct method_shape {
    int ok;
    char *name;
    size_t stmt_row, def_row, end_row;
} method_shape;

struct cgm_memo {
    pthread_mutex_t lock;
    hashmap by_text; /* the lines -> method_shape */
};

cgm_memo *cgm_memo_new(void)
{
    cgm_memo *m = pgci_calloc(1, sizeof(*m));
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

static void shape_free(void *v)
{
    method_shape *sh = v;
    free(sh->name);
    free(sh);
}

void cgm_memo_free(cgm_memo *m)
{
    if (!m)
        return;
    hashmap_free_with(&m->by_text, shape_free);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static void shape_of(const char *src, size_t len, method_shape *out)
{
    memset(out, 0, sizeof(*out));
    py_tree t;
    if (py_parse(&t, src, len, "<method>") < 0) {
        pgci_error_clear();
        return;
    }
    TSNode stmt = {{0}, NULL, NULL}, def;
    int n = 0;
    TSNode root = py_root(&t);
    uint32_t c = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < c; i++) {
        TSNode k = ts_node_named_child(root, i);
        if (!py_is(k, "comment")) {
            stmt = k;
            n++;
        }
    }
    def = n == 1 && py_is(stmt, "decorated_definition") ? py_field(stmt, "definition") : stmt;
    out->ok = n == 1 && py_is(def, "function_definition") && cgsyn_python_accepts(&t);
    if (out->ok) {
        TSNode nm = py_field(def, "name");
        out->name = ts_node_is_null(nm) ? pgci_strdup("") : py_text_dup(&t, nm);
        out->stmt_row = ts_node_start_point(stmt).row;
        out->def_row = ts_node_start_point(def).row;
        out->end_row = end_line(def);
    }
    py_tree_free(&t);
}

/* The shape of src[0..len): from the memo when it has it (else parsed and kept
 * there), or parsed into *own when there is no memo (the caller frees its name). */
static const method_shape *shape_get(cgm_memo *m, const char *src, size_t len, method_shape *own)
{
    if (!m) {
        shape_of(src, len, own);
        return own;
    }
    pthread_mutex_lock(&m->lock);
    method_shape *sh = hashmap_getn(&m->by_text, src, len);
    pthread_mutex_unlock(&m->lock);
    if (sh)
        return sh;
    sh = pgci_malloc(sizeof(*sh));
    shape_of(src, len, sh);
    pthread_mutex_lock(&m->lock);
    method_shape *first = hashmap_getn(&m->by_text, src, len);
    if (!first)
        hashmap_putn(&m->by_text, src, len, sh);
    pthread_mutex_unlock(&m->lock);
    if (first) {
        shape_free(sh);
        sh = first;
    }
    return sh;
}

/*
 * The items of the class after a rewrite (ri), without parsing the class: 0 and
 * md updated, or -1 when that cannot be shown (the next rewrite parses). The class
 * before it was accepted by Python. The lines the rewrite put in for the method,
 * without the indentation it gave them, are parsed alone: when Python accepts them
 * and they are one function definition (comments aside), they are the same
 * statement at the class body's indentation (in place of a def at it, or added at
 * the end when the body's first statement is at it; spaces only, no tab or form
 * feed anywhere, no line break but "\n"), with the same rows less the offset, and
 * the comments put above it change no statement. The class is then accepted too,
 * its other items the same, those after it moved by the lines the rewrite added.
 */
static int model_update(cgm_model *md, const rewrite_info *ri, const strbuf *cls, cgm_memo *memo)
{
    if (!(ri->replaced && ri->lead_is_comment) && !ri->appended)
        return -1;
    if (!ri->ndef || has_odd_space(cls->buf, cls->len))
        return -1;
    cgm_item *m = ri->replaced ? &md->items.items[ri->item] : NULL;
    size_t first = m ? m->def_row + ri->nlead : ri->first; /* the method's first line */
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, cls->buf, cls->len);
    int ok = first + ri->ndef <= lines.len;
    if (ok && !m) { /* added at the end: the body must be at the indentation it got */
        ok = md->items.len > 0 && md->items.items[0].start < lines.len &&
             indent_of(lines.items[md->items.items[0].start]) == ri->mindent;
    }
    strbuf alone = STRBUF_INIT;
    for (size_t k = first; ok && k < first + ri->ndef; k++) {
        cg_span l = lines.items[k];
        if (k > first)
            strbuf_addc(&alone, '\n');
        if (cgtext_is_blank(l.p, l.n))
            continue;
        ok = l.n > ri->mindent && cgtext_lstrip_off(l.p, l.n) >= ri->mindent;
        if (ok)
            strbuf_add(&alone, l.p + ri->mindent, l.n - ri->mindent);
    }
    VEC_FREE(&lines);
    /* a backslash at the end would join the line after the def to it */
    size_t e = alone.len;
    while (e > 0 && (alone.buf[e - 1] == '\n' || alone.buf[e - 1] == ' '))
        e--;
    ok = ok && e > 0 && alone.buf[e - 1] != '\\';
    method_shape own;
    const method_shape *sh = ok ? shape_get(memo, alone.buf, alone.len, &own) : NULL;
    strbuf_free(&alone);
    ok = sh && sh->ok && (!m || sh->stmt_row == 0);
    if (ok) {
        cgm_item it = {pgci_strdup(sh->name), first + sh->stmt_row, first + sh->def_row,
                       first + sh->end_row, 0};
        if (m) {
            size_t delta = ri->nlead + ri->ndef - (m->end - m->def_row);
            it.start = m->start + ri->nlead; /* above it: the upstream decorators */
            free(m->name);
            *m = it;
            for (size_t i = ri->item + 1; i < md->items.len; i++) {
                md->items.items[i].start += delta;
                md->items.items[i].def_row += delta;
                md->items.items[i].end += delta;
            }
        } else {
            VEC_PUSH(&md->items, it);
        }
    }
    if (sh == &own)
        free(own.name);
    return ok ? 0 : -1;
}

/* ---- the state a class's rewrites carry ------------------------------------------------ */

static void state_forget_model(cgm_state *st)
{
    model_free(st->md);
    st->md = NULL;
}

void cgm_state_free(cgm_state *st)
{
    if (st->have)
        py_tree_free(&st->t);
    model_free(st->md);
    memset(st, 0, sizeof(*st));
}

void cgm_state_forget(cgm_state *st)
{
    st->module = NULL;
    state_forget_model(st);
}

/* The tree of cls in st->t: re-parsed from the last one when there is one. */
static int class_tree(cgm_state *st, const strbuf *cls)
{
    if (st->have && py_reparse(&st->t, cls->buf, cls->len) == 0)
        return 0;
    if (st->have)
        py_tree_free(&st->t);
    st->have = 0;
    if (py_parse(&st->t, cls->buf, cls->len, "<class>") < 0)
        return -1;
    st->have = 1;
    return 0;
}

/* The items of cls from a parse of it (in st, for the next parse to start from);
 * NULL when Python would not accept it. */
static cgm_model *model_parsed(cgm_state *st, const strbuf *cls)
{
    if (class_tree(st, cls) < 0)
        return NULL;
    TSNode cdef = first_class(py_root(&st->t));
    if (!cgsyn_python_accepts(&st->t) || ts_node_is_null(cdef))
        return NULL;
    return model_from_tree(&st->t, cdef, 0);
}

void cgm_replace_method(strbuf *cls, const char *method, const char *preserved, int *added)
{
    cgm_state st = {0};
    cgm_replace_method_in(&st, cls, method, preserved, added);
    cgm_state_free(&st);
}

void cgm_state_view(cgm_state *st, const py_tree *module, TSNode cdef, size_t row0)
{
    st->module = module;
    st->cdef = cdef;
    st->row0 = row0;
}

/* PGCI_VERIFY_REPARSE: the items the rewrites worked out are those of a fresh
 * parse of the class, or pgci aborts. */
static void verify_model(const cgm_model *md, const strbuf *cls, const char *how)
{
    cgm_state fresh = {0};
    cgm_model *f = model_parsed(&fresh, cls);
    int same = f && f->class_row == md->class_row && f->items.len == md->items.len;
    for (size_t i = 0; same && i < md->items.len; i++) {
        const cgm_item *a = &md->items.items[i], *b = &f->items.items[i];
        same = !a->name == !b->name && (!a->name || !strcmp(a->name, b->name)) &&
               a->start == b->start && a->end == b->end && a->empty == b->empty &&
               (!a->name || a->def_row == b->def_row);
    }
    if (!same) {
        fprintf(stderr, "pgci: the class items %s differ from a fresh parse's\n", how);
        abort();
    }
    model_free(f);
    cgm_state_free(&fresh);
}

void cgm_replace_method_in(cgm_state *st, strbuf *cls, const char *method, const char *preserved,
                           int *added)
{
    *added = 0;
    int verifying = getenv("PGCI_VERIFY_REPARSE") != NULL;
    if (st->module) {
        /* the first rewrite: the class as the module's tree has it */
        state_forget_model(st);
        st->md = model_from_tree(st->module, st->cdef, st->row0);
        st->module = NULL;
        if (verifying)
            verify_model(st->md, cls, "read through the module's tree");
    } else if (st->md && st->md->pending) {
        /* the items after the last rewrite */
        st->md->pending = 0;
        if (model_update(st->md, &st->md->last, cls, st->memo) < 0)
            state_forget_model(st);
        else if (verifying)
            verify_model(st->md, cls, "worked out after a rewrite");
    }
    if (!st->md) {
        st->md = model_parsed(st, cls);
        if (!st->md)
            return; /* Python would not accept the class: patchgen leaves it */
    }
    rewrite_model(st->md, cls, method, preserved, added, &st->md->last);
    st->md->pending = 1; /* the items are brought up to date if another rewrite comes */
}
