/*
 * difflib.c - CPython's difflib.SequenceMatcher and unified_diff, reproduced in C.
 *
 * patchgen's .diff files are written by Python's difflib, and a .diff checked into a
 * repository is compared byte for byte. Any diff algorithm that finds a "better" or
 * merely different alignment (Myers, patience, histogram) would report drift where
 * there is none, so this file follows SequenceMatcher's exact choices:
 *
 *  - find_longest_match scans a in order and, for each element, the ascending b
 *    positions holding the same element, keeping the first strictly longer run. Ties
 *    therefore go to the block earliest in a, then earliest in b.
 *  - autojunk: when b has 200 elements or more, an element occurring more than
 *    1 + len(b)/100 times is "popular" and dropped from the b index. Popular lines
 *    (blank lines, lone brackets) never start a match; they are only picked up when
 *    the best block found is extended element by element at both ends.
 *  - get_matching_blocks recurses left and right of each longest match, and the
 *    grouping into hunks keeps n lines of context and merges hunks whose gap is at
 *    most 2n lines.
 *
 * For speed, lines are interned once into dense integer ids, the b index is a CSR
 * array over ids, and the per-row "run length ending at j" table of CPython (a dict
 * rebuilt per row) becomes two arrays indexed by j whose entries are valid only when
 * their stamp matches the previous row - no clearing, no hashing in the inner loop.
 */
#include "patchgen/difflib.h"

#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

/* --- lines ----------------------------------------------------------------------- */

/* Length of the line boundary starting at s[i], or 0 when s[i] starts none. The
 * boundaries are those of str.splitlines, in UTF-8: \n \r \r\n \v \f \x1c \x1d \x1e,
 * U+0085 (C2 85), U+2028 and U+2029 (E2 80 A8/A9). */
static size_t boundary_at(const char *s, size_t len, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '\n':
    case '\v':
    case '\f':
    case 0x1c:
    case 0x1d:
    case 0x1e:
        return 1;
    case '\r':
        return (i + 1 < len && s[i + 1] == '\n') ? 2 : 1;
    case 0xc2:
        return (i + 1 < len && (unsigned char)s[i + 1] == 0x85) ? 2 : 0;
    case 0xe2:
        if (i + 2 < len && (unsigned char)s[i + 1] == 0x80 &&
            ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
            return 3;
        return 0;
    default:
        return 0;
    }
}

/* Bytes that may start a boundary; the scan skips everything else with one table
 * lookup per byte. */
static const unsigned char may_end_line[256] = {
    [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x1c] = 1,
    [0x1d] = 1, [0x1e] = 1, [0xc2] = 1, [0xe2] = 1,
};

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Whether any of the eight bytes in w may start a boundary: a byte below 0x1f, or
 * 0xc2 / 0xe2 (equal once bit 0x20 is masked). False positives (a tab) only cost a
 * byte-by-byte look at this word. */
static int word_may_end_line(uint64_t w)
{
    uint64_t below = (w - 0x1f * ONES) & ~w & HIGHS;
    uint64_t lead = (w & (0xdf * ONES)) ^ (0xc2 * ONES);
    return (below | ((lead - ONES) & ~lead & HIGHS)) != 0;
}

int difflib_newlines_only(const char *s, size_t len)
{
    static const char others[] = {'\r', '\v', '\f', 0x1c, 0x1d, 0x1e};
    for (size_t k = 0; k < sizeof(others); k++)
        if (len && memchr(s, others[k], len))
            return 0;
    /* U+0085, U+2028, U+2029 in UTF-8: each 0xc2 and 0xe2 looked at (they are
     * few, and most start another character: é, —) */
    const unsigned char *u = (const unsigned char *)s, *end = u + len;
    for (const unsigned char *p = u; p < end && (p = memchr(p, 0xc2, (size_t)(end - p))); p++)
        if (end - p >= 2 && p[1] == 0x85)
            return 0;
    for (const unsigned char *p = u; p < end && (p = memchr(p, 0xe2, (size_t)(end - p))); p++)
        if (end - p >= 3 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
            return 0;
    return 1;
}

size_t difflib_next_boundary(const char *s, size_t len, size_t i, size_t *blen)
{
    while (i < len) {
        uint64_t w;
        for (; i + 8 <= len; i += 8) {
            memcpy(&w, s + i, 8);
            if (word_may_end_line(w))
                break;
        }
        size_t stop = i + 8 < len ? i + 8 : len;
        while (i < stop && !may_end_line[(unsigned char)s[i]])
            i++;
        if (i == stop)
            continue;
        size_t b = boundary_at(s, len, i);
        if (b) {
            *blen = b;
            return i;
        }
        i++;
    }
    *blen = 0;
    return len;
}

size_t difflib_splitlines(const char *s, size_t len, size_t **starts)
{
    VEC(size_t) v = VEC_INIT;
    size_t line = 0;
    if (difflib_newlines_only(s, len)) {
        for (const char *nl; line < len && (nl = memchr(s + line, '\n', len - line));) {
            VEC_PUSH(&v, line);
            line = (size_t)(nl - s) + 1;
        }
    } else {
        for (size_t i = 0, b; (i = difflib_next_boundary(s, len, i, &b)) < len;) {
            VEC_PUSH(&v, line);
            i += b;
            line = i;
        }
    }
    if (line < len)
        VEC_PUSH(&v, line);
    size_t n = v.len;
    VEC_PUSH(&v, len);
    *starts = v.items;
    return n;
}

size_t difflib_eol_len(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    unsigned char c = (unsigned char)s[len - 1];
    if (c == '\n')
        return (len >= 2 && s[len - 2] == '\r') ? 2 : 1;
    if (c == '\r' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e)
        return 1;
    if (c == 0x85 && len >= 2 && (unsigned char)s[len - 2] == 0xc2)
        return 2;
    if ((c == 0xa8 || c == 0xa9) && len >= 3 && (unsigned char)s[len - 2] == 0x80 &&
        (unsigned char)s[len - 3] == 0xe2)
        return 3;
    return 0;
}

/* Length (1 to 3) of the str.isspace() character that ends s[0..len), or 0. */
static size_t trailing_space_len(const unsigned char *s, size_t len)
{
    unsigned char c = s[len - 1];
    if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20))
        return 1;
    if (len >= 2 && s[len - 2] == 0xc2 && (c == 0x85 || c == 0xa0))
        return 2; /* U+0085, U+00A0 */
    if (len < 3)
        return 0;
    unsigned char l = s[len - 3], m = s[len - 2];
    if (l == 0xe1 && m == 0x9a && c == 0x80)
        return 3; /* U+1680 */
    if (l == 0xe2 && m == 0x80 && ((c >= 0x80 && c <= 0x8a) || c == 0xa8 || c == 0xa9 || c == 0xaf))
        return 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
    if (l == 0xe2 && m == 0x81 && c == 0x9f)
        return 3; /* U+205F */
    if (l == 0xe3 && m == 0x80 && c == 0x80)
        return 3; /* U+3000 */
    return 0;
}

size_t difflib_rstrip_len(const char *s, size_t len)
{
    size_t k;
    while (len > 0 && (k = trailing_space_len((const unsigned char *)s, len)) > 0)
        len -= k;
    return len;
}

/* --- the matcher ------------------------------------------------------------------ */

struct difflib_matcher {
    const uint32_t *a, *b;
    size_t na, nb;
    /* b2j as CSR: the b positions of id x are pos[off[x] .. off[x+1]), ascending;
     * popular ids have an empty range. */
    size_t *off;
    size_t *pos;
    size_t nids; /* ids are below this */
    /* Two rows of run lengths ending at each j, told apart by row stamps. */
    size_t *runlen[2];
    size_t *stamp[2];
    size_t row;
    difflib_match *blocks;
    size_t nblocks;
    difflib_opcode *ops;
    size_t nops;
};

difflib_matcher *difflib_matcher_new(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                     int autojunk)
{
    difflib_matcher *m = pgci_calloc(1, sizeof(*m));
    m->a = a;
    m->b = b;
    m->na = na;
    m->nb = nb;
    uint32_t maxid = 0;
    for (size_t i = 0; i < na; i++)
        if (a[i] > maxid)
            maxid = a[i];
    for (size_t j = 0; j < nb; j++)
        if (b[j] > maxid)
            maxid = b[j];
    m->nids = (size_t)maxid + 1;

    size_t *count = pgci_calloc(m->nids + 1, sizeof(size_t));
    for (size_t j = 0; j < nb; j++)
        count[b[j]]++;
    if (autojunk && nb >= 200) {
        size_t ntest = nb / 100 + 1;
        for (size_t x = 0; x < m->nids; x++)
            if (count[x] > ntest)
                count[x] = 0;
    }
    m->off = pgci_malloc((m->nids + 1) * sizeof(size_t));
    size_t total = 0;
    for (size_t x = 0; x < m->nids; x++) {
        m->off[x] = total;
        total += count[x];
    }
    m->off[m->nids] = total;
    m->pos = pgci_malloc(total * sizeof(size_t));
    /* count[x] becomes the fill cursor; popular ids (count 0) are skipped. */
    for (size_t x = 0; x < m->nids; x++)
        count[x] = count[x] ? m->off[x] : (size_t)-1;
    for (size_t j = 0; j < nb; j++)
        if (count[b[j]] != (size_t)-1)
            m->pos[count[b[j]]++] = j;
    free(count);

    for (int r = 0; r < 2; r++) {
        m->runlen[r] = pgci_malloc((nb ? nb : 1) * sizeof(size_t));
        m->stamp[r] = pgci_calloc(nb ? nb : 1, sizeof(size_t));
    }
    m->row = 1;
    return m;
}

void difflib_matcher_free(difflib_matcher *m)
{
    if (!m)
        return;
    free(m->off);
    free(m->pos);
    for (int r = 0; r < 2; r++) {
        free(m->runlen[r]);
        free(m->stamp[r]);
    }
    free(m->blocks);
    free(m->ops);
    free(m);
}

/* First index in p[lo..hi) whose value is >= v. */
static size_t lower_bound(const size_t *p, size_t lo, size_t hi, size_t v)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

difflib_match difflib_find_longest_match(difflib_matcher *m, size_t alo, size_t ahi, size_t blo,
                                         size_t bhi)
{
    const uint32_t *a = m->a, *b = m->b;
    size_t besti = alo, bestj = blo, bestsize = 0;

    /* Stamps are never reused, so a row of an earlier call can never be mistaken
     * for the previous row of this one; the skipped stamp separates calls. */
    m->row++;
    for (size_t i = alo; i < ahi; i++) {
        size_t cur = ++m->row;
        size_t *plen = m->runlen[(cur - 1) & 1], *pstamp = m->stamp[(cur - 1) & 1];
        size_t *clen = m->runlen[cur & 1], *cstamp = m->stamp[cur & 1];
        uint32_t x = a[i];
        size_t lo = m->off[x], hi = m->off[x + 1];
        if (lo == hi)
            continue;
        for (size_t p = lower_bound(m->pos, lo, hi, blo); p < hi; p++) {
            size_t j = m->pos[p];
            if (j >= bhi)
                break;
            size_t k = (j > 0 && pstamp[j - 1] == cur - 1) ? plen[j - 1] + 1 : 1;
            clen[j] = k;
            cstamp[j] = cur;
            if (k > bestsize) {
                besti = i - k + 1;
                bestj = j - k + 1;
                bestsize = k;
            }
        }
    }

    /* Popular elements are missing from the index, so grow the block over equal
     * neighbours at both ends (CPython's first pair of extension loops; with no
     * junk function its junk-only second pair never runs). */
    while (besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1]) {
        besti--;
        bestj--;
        bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi &&
           a[besti + bestsize] == b[bestj + bestsize])
        bestsize++;

    difflib_match r = {besti, bestj, bestsize};
    return r;
}

static int match_cmp(const void *x, const void *y)
{
    const difflib_match *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return 0;
}

typedef struct range4 {
    size_t alo, ahi, blo, bhi;
} range4;

const difflib_match *difflib_matching_blocks(difflib_matcher *m, size_t *count)
{
    if (!m->blocks) {
        VEC(range4) queue = VEC_INIT;
        VEC(difflib_match) found = VEC_INIT;
        range4 all = {0, m->na, 0, m->nb};
        VEC_PUSH(&queue, all);
        while (queue.len) {
            range4 r = queue.items[--queue.len];
            difflib_match x = difflib_find_longest_match(m, r.alo, r.ahi, r.blo, r.bhi);
            if (!x.size)
                continue;
            VEC_PUSH(&found, x);
            if (r.alo < x.a && r.blo < x.b) {
                range4 left = {r.alo, x.a, r.blo, x.b};
                VEC_PUSH(&queue, left);
            }
            if (x.a + x.size < r.ahi && x.b + x.size < r.bhi) {
                range4 right = {x.a + x.size, r.ahi, x.b + x.size, r.bhi};
                VEC_PUSH(&queue, right);
            }
        }
        VEC_FREE(&queue);
        if (found.len)
            qsort(found.items, found.len, sizeof(difflib_match), match_cmp);

        /* Merge blocks that touch in both sequences, then close with the dummy. */
        VEC(difflib_match) out = VEC_INIT;
        difflib_match cur = {0, 0, 0};
        for (size_t t = 0; t < found.len; t++) {
            difflib_match x = found.items[t];
            if (cur.a + cur.size == x.a && cur.b + cur.size == x.b) {
                cur.size += x.size;
            } else {
                if (cur.size)
                    VEC_PUSH(&out, cur);
                cur = x;
            }
        }
        if (cur.size)
            VEC_PUSH(&out, cur);
        difflib_match dummy = {m->na, m->nb, 0};
        VEC_PUSH(&out, dummy);
        VEC_FREE(&found);
        m->blocks = out.items;
        m->nblocks = out.len;
    }
    *count = m->nblocks;
    return m->blocks;
}

const difflib_opcode *difflib_opcodes(difflib_matcher *m, size_t *count)
{
    if (!m->ops) {
        size_t nblocks;
        const difflib_match *blocks = difflib_matching_blocks(m, &nblocks);
        VEC(difflib_opcode) out = VEC_INIT;
        size_t i = 0, j = 0;
        for (size_t t = 0; t < nblocks; t++) {
            const difflib_match *x = &blocks[t];
            difflib_opcode op = {DIFFLIB_EQUAL, i, x->a, j, x->b};
            if (i < x->a && j < x->b)
                op.tag = DIFFLIB_REPLACE;
            else if (i < x->a)
                op.tag = DIFFLIB_DELETE;
            else if (j < x->b)
                op.tag = DIFFLIB_INSERT;
            if (op.tag != DIFFLIB_EQUAL)
                VEC_PUSH(&out, op);
            i = x->a + x->size;
            j = x->b + x->size;
            if (x->size) {
                difflib_opcode eq = {DIFFLIB_EQUAL, x->a, i, x->b, j};
                VEC_PUSH(&out, eq);
            }
        }
        /* Two empty sequences have no opcodes; keep a non-NULL array anyway so the
         * cache test above holds. */
        if (!out.items)
            VEC_RESERVE(&out, 1);
        m->ops = out.items;
        m->nops = out.len;
    }
    *count = m->nops;
    return m->ops;
}

static size_t min_sz(size_t x, size_t y)
{
    return x < y ? x : y;
}

static size_t max_sz(size_t x, size_t y)
{
    return x > y ? x : y;
}

size_t difflib_grouped_opcodes(difflib_matcher *m, int n, difflib_opcode **ops, size_t **ends)
{
    size_t ctx = n > 0 ? (size_t)n : 0;
    size_t ncodes;
    const difflib_opcode *src = difflib_opcodes(m, &ncodes);
    difflib_opcode none = {DIFFLIB_EQUAL, 0, 1, 0, 1};
    difflib_opcode *codes = pgci_malloc((ncodes ? ncodes : 1) * sizeof(*codes));
    if (ncodes)
        memcpy(codes, src, ncodes * sizeof(*codes));
    else
        codes[ncodes++] = none;

    /* Trim the leading and trailing equal runs to the context size. */
    difflib_opcode *f = &codes[0], *l = &codes[ncodes - 1];
    if (f->tag == DIFFLIB_EQUAL) {
        f->i1 = max_sz(f->i1, f->i2 >= ctx ? f->i2 - ctx : 0);
        f->j1 = max_sz(f->j1, f->j2 >= ctx ? f->j2 - ctx : 0);
    }
    if (l->tag == DIFFLIB_EQUAL) {
        l->i2 = min_sz(l->i2, l->i1 + ctx);
        l->j2 = min_sz(l->j2, l->j1 + ctx);
    }

    VEC(difflib_opcode) out = VEC_INIT;
    VEC(size_t) gends = VEC_INIT;
    size_t gstart = 0;
    for (size_t t = 0; t < ncodes; t++) {
        difflib_opcode c = codes[t];
        if (c.tag == DIFFLIB_EQUAL && c.i2 - c.i1 > 2 * ctx) {
            /* A long equal run closes the group with n lines of trailing context
             * and opens the next one with n lines of leading context. */
            difflib_opcode tail = {DIFFLIB_EQUAL, c.i1, min_sz(c.i2, c.i1 + ctx), c.j1,
                                   min_sz(c.j2, c.j1 + ctx)};
            VEC_PUSH(&out, tail);
            VEC_PUSH(&gends, out.len);
            gstart = out.len;
            c.i1 = max_sz(c.i1, c.i2 >= ctx ? c.i2 - ctx : 0);
            c.j1 = max_sz(c.j1, c.j2 >= ctx ? c.j2 - ctx : 0);
        }
        VEC_PUSH(&out, c);
    }
    size_t glen = out.len - gstart;
    if (glen && !(glen == 1 && out.items[gstart].tag == DIFFLIB_EQUAL))
        VEC_PUSH(&gends, out.len);
    else
        out.len = gstart;
    free(codes);
    if (!out.items)
        VEC_RESERVE(&out, 1);
    if (!gends.items)
        VEC_RESERVE(&gends, 1);
    *ops = out.items;
    *ends = gends.items;
    return gends.len;
}

/* --- interning lines into ids ----------------------------------------------------- */

typedef struct line_table {
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t mask;
    VEC(const char *) text; /* per id: the bytes of its first occurrence */
    VEC(size_t) len;
    VEC(uint64_t) hash;
} line_table;

static void line_table_init(line_table *t, size_t nlines)
{
    size_t cap = 16;
    while (cap < 2 * nlines + 2)
        cap *= 2;
    memset(t, 0, sizeof(*t));
    t->slots = pgci_calloc(cap, sizeof(uint32_t));
    t->mask = cap - 1;
}

static void line_table_free(line_table *t)
{
    free(t->slots);
    VEC_FREE(&t->text);
    VEC_FREE(&t->len);
    VEC_FREE(&t->hash);
}

/* A hash of s[0..n) eight bytes at a time: lines are hashed once each, but every
 * byte of both inputs goes through here, so a byte-at-a-time hash would dominate. */
static uint64_t line_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

/* The id of the line s[0..n), new or existing. The table is sized for every line
 * of both inputs up front, so it never fills past one half. */
static uint32_t line_table_id(line_table *t, const char *s, size_t n)
{
    uint64_t h = line_hash(s, n);
    size_t i = (size_t)h & t->mask;
    for (;;) {
        uint32_t e = t->slots[i];
        if (!e)
            break;
        uint32_t id = e - 1;
        if (t->hash.items[id] == h && t->len.items[id] == n && memcmp(t->text.items[id], s, n) == 0)
            return id;
        i = (i + 1) & t->mask;
    }
    uint32_t id = (uint32_t)t->text.len;
    VEC_PUSH(&t->text, s);
    VEC_PUSH(&t->len, n);
    VEC_PUSH(&t->hash, h);
    t->slots[i] = id + 1;
    return id;
}

/* --- unified_diff ----------------------------------------------------------------- */

/* _format_range_unified: "start,length", with a length of 1 shown as just the
 * start and an empty range starting at the line before it. */
static void add_range(strbuf *out, size_t start, size_t stop)
{
    size_t beginning = start + 1, length = stop - start;
    if (length == 1) {
        strbuf_addf(out, "%zu", beginning);
        return;
    }
    if (!length)
        beginning--;
    strbuf_addf(out, "%zu,%zu", beginning, length);
}

static void add_lines(strbuf *out, char mark, const char *s, const size_t *starts, size_t lo,
                      size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        strbuf_addc(out, mark);
        strbuf_add(out, s + starts[i], starts[i + 1] - starts[i]);
    }
}

void difflib_unified_diff(strbuf *out, const char *a, size_t alen, const char *b, size_t blen,
                          const char *fromfile, const char *tofile, int n)
{
    size_t *as, *bs;
    size_t na = difflib_splitlines(a, alen, &as);
    size_t nb = difflib_splitlines(b, blen, &bs);

    line_table t;
    line_table_init(&t, na + nb);
    uint32_t *aid = pgci_malloc((na ? na : 1) * sizeof(uint32_t));
    uint32_t *bid = pgci_malloc((nb ? nb : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < na; i++)
        aid[i] = line_table_id(&t, a + as[i], as[i + 1] - as[i]);
    for (size_t j = 0; j < nb; j++)
        bid[j] = line_table_id(&t, b + bs[j], bs[j + 1] - bs[j]);
    line_table_free(&t);

    difflib_matcher *m = difflib_matcher_new(aid, na, bid, nb, 1);
    difflib_opcode *ops;
    size_t *ends;
    size_t ngroups = difflib_grouped_opcodes(m, n, &ops, &ends);
    if (ngroups) {
        strbuf_addf(out, "--- %s\n+++ %s\n", fromfile, tofile);
    }
    size_t g0 = 0;
    for (size_t g = 0; g < ngroups; g++) {
        const difflib_opcode *first = &ops[g0], *last = &ops[ends[g] - 1];
        strbuf_adds(out, "@@ -");
        add_range(out, first->i1, last->i2);
        strbuf_adds(out, " +");
        add_range(out, first->j1, last->j2);
        strbuf_adds(out, " @@\n");
        for (size_t k = g0; k < ends[g]; k++) {
            const difflib_opcode *c = &ops[k];
            if (c->tag == DIFFLIB_EQUAL) {
                add_lines(out, ' ', a, as, c->i1, c->i2);
                continue;
            }
            if (c->tag == DIFFLIB_REPLACE || c->tag == DIFFLIB_DELETE)
                add_lines(out, '-', a, as, c->i1, c->i2);
            if (c->tag == DIFFLIB_REPLACE || c->tag == DIFFLIB_INSERT)
                add_lines(out, '+', b, bs, c->j1, c->j2);
        }
        g0 = ends[g];
    }
    free(ops);
    free(ends);
    difflib_matcher_free(m);
    free(aid);
    free(bid);
    free(as);
    free(bs);
}

void difflib_patchgen_form(strbuf *out, const char *diff, size_t len)
{
    if (!len)
        return;
    /* "\n".join(line.rstrip() for line in text.splitlines()) + "\n": the diff is
     * split again at every str.splitlines boundary, including the ones inside the
     * lines it quotes. */
    size_t *starts;
    size_t nl = difflib_splitlines(diff, len, &starts);
    for (size_t i = 0; i < nl; i++) {
        const char *line = diff + starts[i];
        size_t n = starts[i + 1] - starts[i];
        n -= difflib_eol_len(line, n);
        if (i)
            strbuf_addc(out, '\n');
        strbuf_add(out, line, difflib_rstrip_len(line, n));
    }
    strbuf_addc(out, '\n');
    free(starts);
}

void difflib_patchgen_diff(strbuf *out, const char *a, size_t alen, const char *b, size_t blen,
                           const char *fromfile, const char *tofile)
{
    strbuf text = STRBUF_INIT;
    difflib_unified_diff(&text, a, alen, b, blen, fromfile, tofile, 3);
    difflib_patchgen_form(out, text.buf, text.len);
    strbuf_free(&text);
}
