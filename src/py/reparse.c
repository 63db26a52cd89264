/*
 * reparse.c - an incremental parse from the common prefix and suffix of two
 * texts. The edit is the one stretch between them, so the result does not depend
 * on how the new text was made. Rows count '\n' as tree-sitter's lexer does;
 * columns are bytes.
 */
#include "py/reparse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static TSPoint point_at(const char *s, size_t off)
{
    TSPoint p = {0, 0};
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            p.row++;
            p.column = 0;
        } else {
            p.column++;
        }
    }
    return p;
}

/* Aborts when the incremental tree is not the fresh one (PGCI_VERIFY_REPARSE). */
static void verify(const py_tree *t)
{
    py_tree fresh;
    if (py_parse(&fresh, t->src, t->len, t->path) < 0)
        abort();
    char *a = ts_node_string(py_root(t)), *b = ts_node_string(py_root(&fresh));
    if (strcmp(a, b)) {
        fprintf(stderr, "pgci: incremental parse differs from a fresh parse of %s\n", t->path);
        abort();
    }
    free(a);
    free(b);
    py_tree_free(&fresh);
}

/* Makes t the tree of src[0..len), from its old tree already told of the edits.
 * A tree with a syntax error is made afresh: where tree-sitter recovers from an
 * error depends on what it reused, and pgci reports the error a fresh parse
 * finds (an error-free tree is the one a fresh parse gives). */
static int reparse_edited(py_tree *t, const char *src, size_t len)
{
    char *copy = pgci_malloc(len + 1);
    memcpy(copy, src, len);
    copy[len] = '\0';
    TSTree *tree = ts_parser_parse_string(py_thread_parser(), t->tree, copy, (uint32_t)len);
    if (tree && ts_node_has_error(ts_tree_root_node(tree))) {
        ts_tree_delete(tree);
        tree = ts_parser_parse_string(py_thread_parser(), NULL, copy, (uint32_t)len);
    }
    if (!tree) {
        free(copy);
        return pgci_error_set(PGCI_ERROR, "%s: tree-sitter could not parse", t->path);
    }
    ts_tree_delete(t->tree);
    free(t->src);
    t->tree = tree;
    t->src = copy;
    t->len = len;
    if (getenv("PGCI_VERIFY_REPARSE"))
        verify(t);
    return 0;
}

int py_reparse(py_tree *t, const char *src, size_t len)
{
    if (len > UINT32_MAX / 2)
        return pgci_error_set(PGCI_ELIMIT, "%s: %zu bytes is too large to parse", t->path, len);
    size_t olen = t->len, min = olen < len ? olen : len, pre = 0, suf = 0;
    while (pre < min && t->src[pre] == src[pre])
        pre++;
    while (suf < min - pre && t->src[olen - 1 - suf] == src[len - 1 - suf])
        suf++;
    TSInputEdit e = {(uint32_t)pre,         (uint32_t)(olen - suf),       (uint32_t)(len - suf),
                     point_at(t->src, pre), point_at(t->src, olen - suf), point_at(src, len - suf)};
    ts_tree_edit(t->tree, &e);
    return reparse_edited(t, src, len);
}

/*
 * Many edits: a line matching of the two texts (a regenerated file and its
 * checked-in, ruff-formatted self differ in many places). Lines unique to both
 * texts, in an order both agree on (the longest increasing run, as patience diff
 * takes them), anchor it; between two anchors, equal lines at either end match
 * too, and what is left is one edit. Any edit list that turns the old text into
 * the new one is correct for tree-sitter; a closer matching reuses more.
 */
typedef struct line {
    size_t off, len; /* the line's bytes, its '\n' included */
    uint64_t h;
} line;

typedef struct text {
    const char *s;
    size_t len;
    line *lines;
    size_t n;
} text;

/* A line's hash for the matching, eight bytes a step (equal lines are then
 * compared byte for byte: a collision costs a match, never a wrong edit). */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

static void split(text *t, const char *s, size_t len)
{
    t->s = s;
    t->len = len;
    t->n = 0;
    for (const char *p = s, *end = s + len; p < end && (p = memchr(p, '\n', (size_t)(end - p)));
         p++)
        t->n++;
    t->n += len && s[len - 1] != '\n';
    t->lines = pgci_calloc(t->n ? t->n : 1, sizeof(*t->lines));
    size_t k = 0, start = 0;
    while (start < len) {
        const char *nl = memchr(s + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - s) + 1 : len;
        line *l = &t->lines[k++];
        l->off = start;
        l->len = end - start;
        l->h = hash_bytes(s + start, l->len);
        start = end;
    }
}

static int same_line(const text *a, size_t i, const text *b, size_t j)
{
    const line *x = &a->lines[i], *y = &b->lines[j];
    return x->h == y->h && x->len == y->len && !memcmp(a->s + x->off, b->s + y->off, x->len);
}

/* Occurrences of each line hash in both texts (open addressing). */
typedef struct slot {
    uint64_t h;
    uint32_t used, na, nb;
    size_t ia, ib; /* the line's index in a and in b (meaningful when it occurs once) */
} slot;

static slot *slot_for(slot *tab, size_t mask, uint64_t h)
{
    size_t i = (size_t)h & mask;
    while (tab[i].used && tab[i].h != h)
        i = (i + 1) & mask;
    tab[i].used = 1;
    tab[i].h = h;
    return &tab[i];
}

/* Pairs (index in a, index in b) of the lines unique to both, in a's order. */
static size_t unique_pairs(const text *a, const text *b, size_t **pa, size_t **pb)
{
    size_t cap = 16;
    while (cap < 2 * (a->n + b->n))
        cap *= 2;
    slot *tab = pgci_calloc(cap, sizeof(*tab));
    for (size_t i = 0; i < a->n; i++) {
        slot *s = slot_for(tab, cap - 1, a->lines[i].h);
        s->na++;
        s->ia = i;
    }
    for (size_t j = 0; j < b->n; j++) {
        slot *s = slot_for(tab, cap - 1, b->lines[j].h);
        s->nb++;
        s->ib = j;
    }
    *pa = pgci_calloc(a->n ? a->n : 1, sizeof(size_t));
    *pb = pgci_calloc(a->n ? a->n : 1, sizeof(size_t));
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        const slot *s = slot_for(tab, cap - 1, a->lines[i].h);
        if (s->na == 1 && s->nb == 1 && same_line(a, i, b, s->ib)) {
            (*pa)[k] = i;
            (*pb)[k++] = s->ib;
        }
    }
    free(tab);
    return k;
}

/* Keeps the longest run of pairs increasing in b too (patience sorting); returns
 * its length, the pairs moved to the front of pa and pb. */
static size_t longest_increasing(size_t *pa, size_t *pb, size_t k)
{
    if (k == 0)
        return 0;
    size_t *tails = pgci_calloc(k, sizeof(size_t)), *prev = pgci_calloc(k, sizeof(size_t));
    size_t len = 0;
    for (size_t i = 0; i < k; i++) {
        size_t lo = 0, hi = len;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pb[tails[mid]] < pb[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[i] = lo ? tails[lo - 1] : SIZE_MAX;
        tails[lo] = i;
        len += lo == len;
    }
    size_t *ra = pgci_calloc(len, sizeof(size_t)), *rb = pgci_calloc(len, sizeof(size_t));
    for (size_t i = tails[len - 1], j = len; j > 0; i = prev[i]) {
        j--;
        ra[j] = pa[i];
        rb[j] = pb[i];
    }
    memcpy(pa, ra, len * sizeof(size_t));
    memcpy(pb, rb, len * sizeof(size_t));
    free(ra);
    free(rb);
    free(tails);
    free(prev);
    return len;
}

/* The byte offset and point where line i starts (i == n: the end of the text). */
static void position(const text *t, size_t i, uint32_t *off, TSPoint *p)
{
    if (i < t->n) {
        *off = (uint32_t)t->lines[i].off;
        *p = (TSPoint){(uint32_t)i, 0};
    } else if (t->len == 0 || t->s[t->len - 1] == '\n') {
        *off = (uint32_t)t->len;
        *p = (TSPoint){(uint32_t)t->n, 0};
    } else {
        *off = (uint32_t)t->len;
        *p = (TSPoint){(uint32_t)(t->n - 1), (uint32_t)t->lines[t->n - 1].len};
    }
}

typedef struct shift {
    int64_t bytes, rows; /* what the edits so far added to the old text's positions */
} shift;

/* The edit of lines [ia, ja) of a into [ib, jb) of b, told to the tree in the
 * coordinates it has after the edits before it (those end on a line start). */
static void edit_gap(TSTree *tree, const text *a, size_t ia, size_t ja, const text *b, size_t ib,
                     size_t jb, shift *sh)
{
    while (ia < ja && ib < jb && same_line(a, ia, b, ib))
        ia++, ib++;
    while (ia < ja && ib < jb && same_line(a, ja - 1, b, jb - 1))
        ja--, jb--;
    if (ia == ja && ib == jb)
        return;
    uint32_t a0, a1, b0, b1;
    TSPoint pa0, pa1, pb0, pb1;
    position(a, ia, &a0, &pa0);
    position(a, ja, &a1, &pa1);
    position(b, ib, &b0, &pb0);
    position(b, jb, &b1, &pb1);
    TSInputEdit e = {b0,
                     (uint32_t)((int64_t)a1 + sh->bytes),
                     b1,
                     pb0,
                     {(uint32_t)((int64_t)pa1.row + sh->rows), pa1.column},
                     pb1};
    ts_tree_edit(tree, &e);
    sh->bytes += ((int64_t)b1 - b0) - ((int64_t)a1 - a0);
    sh->rows += ((int64_t)pb1.row - pb0.row) - ((int64_t)pa1.row - pa0.row);
}

int py_reparse_lines(py_tree *t, const char *src, size_t len)
{
    if (len > UINT32_MAX / 2 || t->len > UINT32_MAX / 2)
        return pgci_error_set(PGCI_ELIMIT, "%s: %zu bytes is too large to parse", t->path, len);
    text a, b;
    split(&a, t->src, t->len);
    split(&b, src, len);
    size_t *pa, *pb;
    size_t k = unique_pairs(&a, &b, &pa, &pb);
    k = longest_increasing(pa, pb, k);
    shift sh = {0, 0};
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i <= k; i++) {
        size_t ja = i < k ? pa[i] : a.n, jb = i < k ? pb[i] : b.n;
        edit_gap(t->tree, &a, ia, ja, &b, ib, jb, &sh);
        ia = ja + 1;
        ib = jb + 1;
    }
    free(pa);
    free(pb);
    free(a.lines);
    free(b.lines);
    return reparse_edited(t, src, len);
}

int py_parse_near(py_tree *t, const char *src, size_t len, const char *path, const py_tree *near)
{
    memset(t, 0, sizeof(*t));
    if (!near || !near->tree)
        return py_parse(t, src, len, path);
    t->tree = ts_tree_copy(near->tree);
    t->src = pgci_strndup(near->src, near->len);
    t->len = near->len;
    t->path = pgci_strdup(path ? path : "<input>");
    int r = py_reparse_lines(t, src, len);
    if (r < 0)
        py_tree_free(t);
    return r;
}
