/*
 * pieces.c - which statements of a source a donor has byte for byte, and the
 * text of the others to parse (pieces.h).
 */
#include "py/pieces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "py/pytop.h"

/* The key of a statement's bytes. */
#define KEY_LEN (2 * sizeof(unsigned long) + 1)
static void text_key(char key[KEY_LEN], const char *s, size_t n)
{
    snprintf(key, KEY_LEN, "%0*lx", (int)(2 * sizeof(unsigned long)), pgci_hash(s, n));
}

size_t py_keys_add(py_keys *k, int kind, uint32_t start, uint32_t end)
{
    return py_keys_add_in(k, kind, k->src, start, end);
}

size_t py_keys_add_in(py_keys *k, int kind, const char *text, uint32_t start, uint32_t end)
{
    py_key_span sp = {text, start, end};
    VEC_PUSH(&k->spans[kind], sp);
    char key[KEY_LEN];
    text_key(key, text + start, end - start);
    hashmap_put(&k->by[kind], key, (void *)(uintptr_t)k->spans[kind].len);
    return k->spans[kind].len;
}

long py_keys_find(const py_keys *k, int kind, const char *s, size_t len)
{
    char key[KEY_LEN];
    text_key(key, s, len);
    size_t i = (size_t)(uintptr_t)hashmap_get(&k->by[kind], key);
    const py_key_span *sp = i ? &k->spans[kind].items[i - 1] : NULL;
    if (!sp || sp->end - sp->start != len || memcmp(sp->src + sp->start, s, len))
        return 0;
    return (long)i;
}

void py_keys_free(py_keys *k)
{
    for (int i = 0; i < 2; i++) {
        VEC_FREE(&k->spans[i]);
        hashmap_free(&k->by[i]);
    }
}

/* src[from..to) (whole lines, the first at row `row`) goes into the text. */
static void add_text(py_pieces *ps, const char *src, uint32_t from, uint32_t to, uint32_t row)
{
    strbuf_add(&ps->cat, src + from, to - from);
    VEC_PUSH(&ps->rows, row);
    for (const char *q = src + from, *e = src + to;
         (q = memchr(q, '\n', (size_t)(e - q))) && ++q < e;)
        VEC_PUSH(&ps->rows, ++row);
}

/* A parsed piece's text, src[from..to). */
static void add_piece(py_pieces *ps, py_piece *p, const char *src, uint32_t from, uint32_t to)
{
    p->from = from;
    p->cat_start = (uint32_t)ps->cat.len;
    add_text(ps, src, from, to, p->row);
    p->cat_end = (uint32_t)ps->cat.len;
}

/* The number of the donor's statement of the kind at src[start, code_end) and
 * what follows it up to `until` (the next statement's line): blank lines and
 * comments only. tree-sitter ends a statement's node after a comment on its last
 * line, and a block's after the comment lines indented inside it, so each end of
 * a comment there is tried too: the bytes found are the donor's whatever the
 * node would span. */
static long find_upto(const py_keys *d, int kind, const char *src, uint32_t start,
                      uint32_t code_end, uint32_t until)
{
    long k = py_keys_find(d, kind, src + start, code_end - start);
    for (uint32_t i = code_end; !k && i < until; i++) {
        if (src[i] != '#')
            continue;
        const char *nl = memchr(src + i, '\n', until - i);
        i = nl ? (uint32_t)(nl - src) : until;
        k = py_keys_find(d, kind, src + start, i - start);
    }
    return k;
}

/* The first byte of the line of byte at. */
static uint32_t line_start(const char *s, uint32_t at)
{
    while (at > 0 && s[at - 1] != '\n')
        at--;
    return at;
}

/* A class of src the donor does not have whole (t, up to `end`): its header and
 * the statements of its body that the donor does not have go into the text, the
 * others are the donor's. 0, or negative when its body cannot be split (the
 * class goes in whole). */
static int plan_class(const py_keys *d, const char *src, size_t len, const py_top *t, uint32_t end,
                      py_pieces *ps, py_piece *p)
{
    py_top *m;
    size_t n;
    if (py_top_split_body(src, len, t, end, &m, &n) < 0 || n == 0) {
        free(m);
        return PGCI_EUNSUPPORTED;
    }
    p->from = t->start;
    p->cat_start = (uint32_t)ps->cat.len;
    p->sub_begin = ps->mplan.len;
    add_text(ps, src, t->start, line_start(src, m[0].start), t->row);
    /* the statements found; a body keeps one of its own, the shortest */
    long *found = pgci_calloc(n, sizeof(*found));
    size_t shortest = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t next = i + 1 < n ? line_start(src, m[i + 1].start) : end;
        found[i] = find_upto(d, 1, src, m[i].start, m[i].code_end, next);
        any |= !found[i];
        if (m[i].code_end - m[i].start < m[shortest].code_end - m[shortest].start)
            shortest = i;
    }
    if (!any)
        found[shortest] = 0;
    for (size_t i = 0; i < n; i++) {
        py_piece q = {found[i], m[i].start, m[i].row, 0, 0, 0, 0, 0};
        if (!q.donor)
            add_piece(ps, &q, src, line_start(src, m[i].start),
                      i + 1 < n ? line_start(src, m[i + 1].start) : end);
        VEC_PUSH(&ps->mplan, q);
    }
    p->sub_end = ps->mplan.len;
    p->cat_end = (uint32_t)ps->cat.len;
    free(found);
    free(m);
    return 0;
}

int py_pieces_plan(const py_keys *d, const char *src, size_t len, py_pieces *ps)
{
    memset(ps, 0, sizeof(*ps));
    strbuf_init(&ps->cat, 0);
    py_top *tops;
    size_t n;
    if (py_top_split(src, len, &tops, &n) < 0 || n == 0) {
        free(tops);
        return PGCI_EUNSUPPORTED;
    }
    size_t parsed = 0;
    for (size_t i = 0; i < n; i++) {
        const py_top *t = &tops[i];
        uint32_t end = i + 1 < n ? tops[i + 1].start : (uint32_t)len;
        py_piece p = {
            find_upto(d, 0, src, t->start, t->code_end, end), t->start, t->row, 0, 0, 0, 0, 0};
        /* the last statement is parsed when every other is found: the module's
         * node comes from a parse */
        if (i == n - 1 && !parsed)
            p.donor = 0;
        if (!p.donor) {
            if (!t->body || plan_class(d, src, len, t, end, ps, &p) < 0)
                add_piece(ps, &p, src, t->start, end);
            parsed++;
        }
        VEC_PUSH(&ps->plan, p);
    }
    free(tops);
    return 0;
}

void py_pieces_free(py_pieces *ps)
{
    VEC_FREE(&ps->plan);
    VEC_FREE(&ps->mplan);
    VEC_FREE(&ps->rows);
    strbuf_free(&ps->cat);
}
