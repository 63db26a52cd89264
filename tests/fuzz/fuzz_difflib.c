/*
 * fuzz_difflib - libFuzzer target for src/patchgen/difflib.
 *
 * The input is split in two at its first NUL byte (a before, b after; no NUL means
 * b is empty); the first byte of a, when present, also picks the context size. The
 * target aborts when an invariant breaks:
 *  - the unified diff is a correct patch: applying its hunks to a, with every
 *    context and removed line checked against a, gives exactly b, and each hunk's
 *    "@@ -s,l +s,l @@" counts agree with its lines; equal inputs give "";
 *  - the patchgen form is "" for an empty diff, else ends in one newline and has no
 *    line ending in str.isspace() whitespace;
 *  - the matcher, run on the raw bytes (256 ids, so plenty of popular elements once
 *    a side reaches 200 bytes), returns sorted, non-adjacent, truly equal matching
 *    blocks closed by (na, nb, 0), and opcodes that chain from (0, 0) to (na, nb).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "patchgen/difflib.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct text {
    const char *s;
    size_t len, n;
    size_t *st; /* line starts, n + 1 */
} text;

static void text_init(text *t, const char *s, size_t len)
{
    t->s = s;
    t->len = len;
    t->n = difflib_splitlines(s, len, &t->st);
}

static size_t line_len(const text *t, size_t i)
{
    return t->st[i + 1] - t->st[i];
}

/* Parses "N" or "N,L" at *p; returns 0 on success. */
static int parse_range(const char **p, const char *end, size_t *start, size_t *len)
{
    char *e;
    if (*p >= end || **p < '0' || **p > '9')
        return -1;
    *start = strtoul(*p, &e, 10);
    *len = 1;
    if (e < end && *e == ',')
        *len = strtoul(e + 1, &e, 10);
    *p = e;
    return 0;
}

/* Applies the unified diff d to a and checks that the result is b. */
static void check_patch(const text *a, const text *b, const char *d, size_t dlen)
{
    const char *p = d, *end = d + dlen;
    if (dlen == 0) {
        CHECK(a->len == b->len && memcmp(a->s, b->s, a->len) == 0);
        return;
    }
    CHECK(strncmp(p, "--- a\n+++ b\n", 12) == 0);
    p += 12;
    size_t ai = 0, bi = 0; /* next line of a to consume, of b to produce */
    while (p < end) {
        CHECK(end - p > 4 && strncmp(p, "@@ -", 4) == 0);
        p += 4;
        size_t as, al, bs, bl;
        CHECK(parse_range(&p, end, &as, &al) == 0);
        CHECK(end - p > 2 && strncmp(p, " +", 2) == 0);
        p += 2;
        CHECK(parse_range(&p, end, &bs, &bl) == 0);
        CHECK(end - p >= 4 && strncmp(p, " @@\n", 4) == 0);
        p += 4;
        /* An empty range names the line before it. */
        size_t a0 = al ? as - 1 : as, b0 = bl ? bs - 1 : bs;
        CHECK(a0 >= ai && b0 >= bi && a0 - ai == b0 - bi);
        for (; ai < a0; ai++, bi++) { /* lines between hunks are unchanged */
            CHECK(line_len(a, ai) == line_len(b, bi));
            CHECK(memcmp(a->s + a->st[ai], b->s + b->st[bi], line_len(a, ai)) == 0);
        }
        size_t aend = a0 + al, bend = b0 + bl;
        while (ai < aend || bi < bend) {
            CHECK(p < end);
            char mark = *p++;
            if (mark == ' ' || mark == '-') {
                CHECK(ai < aend);
                size_t n = line_len(a, ai);
                CHECK((size_t)(end - p) >= n && memcmp(p, a->s + a->st[ai], n) == 0);
                p += n;
                ai++;
            }
            if (mark == ' ') {
                CHECK(bi < bend && line_len(b, bi) == line_len(a, ai - 1));
                CHECK(memcmp(b->s + b->st[bi], a->s + a->st[ai - 1], line_len(b, bi)) == 0);
                bi++;
            } else if (mark == '+') {
                CHECK(bi < bend);
                size_t n = line_len(b, bi);
                CHECK((size_t)(end - p) >= n && memcmp(p, b->s + b->st[bi], n) == 0);
                p += n;
                bi++;
            } else {
                CHECK(mark == '-');
            }
        }
    }
    CHECK(a->n - ai == b->n - bi);
    for (; ai < a->n; ai++, bi++) {
        CHECK(line_len(a, ai) == line_len(b, bi));
        CHECK(memcmp(a->s + a->st[ai], b->s + b->st[bi], line_len(a, ai)) == 0);
    }
}

static void check_patchgen(const char *a, size_t alen, const char *b, size_t blen, size_t udlen)
{
    strbuf pg = STRBUF_INIT;
    difflib_patchgen_diff(&pg, a, alen, b, blen, "a", "b");
    CHECK((pg.len == 0) == (udlen == 0));
    if (pg.len) {
        CHECK(pg.buf[pg.len - 1] == '\n');
        size_t start = 0;
        for (size_t i = 0; i < pg.len; i++) {
            if (pg.buf[i] != '\n')
                continue;
            size_t n = i - start;
            CHECK(difflib_rstrip_len(pg.buf + start, n) == n);
            start = i + 1;
        }
    }
    strbuf_free(&pg);
}

static void check_matcher(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, int n)
{
    uint32_t *ia = malloc((na ? na : 1) * sizeof(uint32_t));
    uint32_t *ib = malloc((nb ? nb : 1) * sizeof(uint32_t));
    CHECK(ia && ib);
    for (size_t i = 0; i < na; i++)
        ia[i] = a[i];
    for (size_t j = 0; j < nb; j++)
        ib[j] = b[j];
    difflib_matcher *m = difflib_matcher_new(ia, na, ib, nb, 1);
    size_t nbl, nops;
    const difflib_match *bl = difflib_matching_blocks(m, &nbl);
    CHECK(nbl >= 1);
    CHECK(bl[nbl - 1].a == na && bl[nbl - 1].b == nb && bl[nbl - 1].size == 0);
    size_t pa = 0, pb = 0;
    for (size_t k = 0; k + 1 < nbl; k++) {
        CHECK(bl[k].size > 0 && bl[k].a >= pa && bl[k].b >= pb);
        CHECK(bl[k].a + bl[k].size <= na && bl[k].b + bl[k].size <= nb);
        CHECK(memcmp(ia + bl[k].a, ib + bl[k].b, bl[k].size * sizeof(uint32_t)) == 0);
        if (k > 0)
            CHECK(bl[k].a != pa || bl[k].b != pb); /* adjacent blocks are merged */
        pa = bl[k].a + bl[k].size;
        pb = bl[k].b + bl[k].size;
    }
    const difflib_opcode *op = difflib_opcodes(m, &nops);
    size_t i = 0, j = 0;
    for (size_t k = 0; k < nops; k++) {
        CHECK(op[k].i1 == i && op[k].j1 == j && op[k].i2 >= i && op[k].j2 >= j);
        size_t da = op[k].i2 - op[k].i1, db = op[k].j2 - op[k].j1;
        switch (op[k].tag) {
        case DIFFLIB_EQUAL:
            CHECK(da == db && da > 0);
            CHECK(memcmp(ia + op[k].i1, ib + op[k].j1, da * sizeof(uint32_t)) == 0);
            break;
        case DIFFLIB_REPLACE:
            CHECK(da > 0 && db > 0);
            break;
        case DIFFLIB_DELETE:
            CHECK(da > 0 && db == 0);
            break;
        case DIFFLIB_INSERT:
            CHECK(da == 0 && db > 0);
            break;
        default:
            CHECK(0);
        }
        i = op[k].i2;
        j = op[k].j2;
    }
    CHECK(i == na && j == nb);
    difflib_opcode *gops;
    size_t *ends;
    size_t ng = difflib_grouped_opcodes(m, n, &gops, &ends);
    size_t g0 = 0;
    for (size_t g = 0; g < ng; g++) {
        CHECK(ends[g] > g0);
        for (size_t k = g0; k + 1 < ends[g]; k++)
            CHECK(gops[k].i2 == gops[k + 1].i1 && gops[k].j2 == gops[k + 1].j1);
        g0 = ends[g];
    }
    free(gops);
    free(ends);
    difflib_matcher_free(m);
    free(ia);
    free(ib);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    const uint8_t *nul = memchr(data, 0, size);
    size_t alen = nul ? (size_t)(nul - data) : size;
    const char *a = (const char *)data;
    const char *b = nul ? (const char *)nul + 1 : a + size;
    size_t blen = nul ? size - alen - 1 : 0;
    int n = alen ? data[0] % 8 : 3;

    text ta, tb;
    text_init(&ta, a, alen);
    text_init(&tb, b, blen);
    strbuf ud = STRBUF_INIT;
    difflib_unified_diff(&ud, a, alen, b, blen, "a", "b", n);
    check_patch(&ta, &tb, ud.buf, ud.len);
    check_patchgen(a, alen, b, blen, ud.len);
    strbuf_reset(&ud);
    difflib_unified_diff(&ud, a, alen, a, alen, "a", "b", n);
    CHECK(ud.len == 0);
    strbuf_free(&ud);
    free(ta.st);
    free(tb.st);

    check_matcher(data, alen, (const uint8_t *)b, blen, n);
    return 0;
}
