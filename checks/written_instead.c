/*
 * What upstream writes in place of a name it dropped (written_instead.h), read
 * from the lines the bump changed in the definitions that used the name: a line
 * reads the old name once, its new form the same text around another name.
 */
#include "checks/written_instead.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"
#include "core/vec.h"
#include "patchgen/difflib.h"

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The lines of src[from, to), each without its indentation and trailing blanks;
 * blank lines left out. */
static void lines_of(strvec *out, const char *src, size_t from, size_t to)
{
    const char *p = src + from, *end = src + to;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        const char *t = e;
        while (t > s && isspace((unsigned char)t[-1]))
            t--;
        if (t > s)
            strvec_pushn(out, s, (size_t)(t - s));
        p = nl ? nl + 1 : end;
    }
}

/* Where line reads `name` as a whole identifier, once; -1 when it does not, or
 * more than once. */
static long once_at(const char *line, const char *name)
{
    size_t n = strlen(name);
    long at = -1;
    for (const char *q = strstr(line, name); q; q = strstr(q + 1, name)) {
        if ((q > line && ident_char(q[-1])) || ident_char(q[n]))
            continue;
        if (at >= 0)
            return -1;
        at = q - line;
    }
    return at;
}

/* The identifier b reads where a reads name at `at`, the text around it the same;
 * malloc'ed, NULL when b does not read so. */
static char *in_place(const char *a, long at, const char *name, const char *b)
{
    size_t pre = (size_t)at, n = strlen(name), la = strlen(a), lb = strlen(b);
    size_t suf = la - pre - n;
    if (lb <= pre + suf || strncmp(a, b, pre) || strcmp(a + pre + n, b + lb - suf))
        return NULL;
    const char *m = b + pre, *me = b + lb - suf;
    if (!(isalpha((unsigned char)*m) || *m == '_'))
        return NULL;
    for (const char *q = m; q < me; q++)
        if (!ident_char(*q))
            return NULL;
    /* the text around it must say something: "y = A" against "y = b" is not one,
     * "return A(" against "return B(" or ") -> A:" against ") -> B:" is */
    size_t said = 0;
    for (size_t i = 0; i < la; i++)
        said += (i < pre || i >= pre + n) && !isspace((unsigned char)a[i]);
    if (said < 3)
        return NULL;
    char *r = pgci_strndup(m, (size_t)(me - m));
    if (!strcmp(r, name)) {
        free(r);
        return NULL;
    }
    return r;
}

typedef struct seen_name {
    char *name;
    size_t places, calls;         /* definitions writing it, calling it (`name(`) */
    size_t own_places, own_calls; /* the same, in the definition preferred */
    strbuf first;                 /* one line a place */
} seen_name;

typedef VEC(seen_name) seen_names;

static seen_name *seen_get(seen_names *v, const char *name)
{
    for (size_t i = 0; i < v->len; i++)
        if (!strcmp(v->items[i].name, name))
            return &v->items[i];
    seen_name s = {pgci_strdup(name), 0, 0, 0, 0, STRBUF_INIT};
    VEC_PUSH(v, s);
    return &v->items[v->len - 1];
}

/* What B's lines of a definition write where its line a (at A) reads name at
 * `at`: the first of the lines that replaced it (b[j1, j2) of its diff's replace
 * step) that reads the same around another name, counted for the definition once
 * a name (wrote) and once more as a call (called). */
typedef struct def_places {
    strvec wrote, called;
    int own; /* the definition preferred */
} def_places;

static void take_line(seen_names *v, def_places *dp, const char *qualname, const char *a, long at,
                      const char *name, const strvec *lb, size_t j1, size_t j2)
{
    int call = a[at + (long)strlen(name)] == '(';
    for (size_t k = j1; k < j2; k++) {
        const char *b = lb->items[k];
        char *m = in_place(a, at, name, b);
        if (!m)
            continue;
        seen_name *s = seen_get(v, m);
        if (strvec_find(&dp->wrote, m) < 0) {
            strvec_push(&dp->wrote, m);
            s->places++;
            s->own_places += dp->own;
            strbuf_addf(&s->first, "  `%s`: `%s` → `%s`\n", qualname, a, b);
        }
        if (call && strvec_find(&dp->called, m) < 0) {
            strvec_push(&dp->called, m);
            s->calls++;
            s->own_calls += dp->own;
        }
        free(m);
        return;
    }
}

/* Each line's id, equal lines equal ids, for the matcher. */
static uint32_t *line_ids(const strvec *l, hashmap *ids)
{
    uint32_t *r = pgci_calloc(l->len ? l->len : 1, sizeof(*r));
    for (size_t i = 0; i < l->len; i++) {
        size_t id = (size_t)(uintptr_t)hashmap_get(ids, l->items[i]);
        if (!id) {
            id = ids->count + 1;
            hashmap_put(ids, l->items[i], (void *)(uintptr_t)id);
        }
        r[i] = (uint32_t)id;
    }
    return r;
}

/* The places of one definition: its lines that read name against the lines of
 * B's that replaced them, step by step of the lines' diff (a line deleted, or
 * one B kept, has none: an `elif isinstance(module, A):` branch dropped is not
 * the next branch renamed); the calls first, so that the line shown for a place
 * builds where one does. */
static void compare_def(seen_names *v, const survey_pair *p, const index_def *da,
                        const index_def *db, const char *name, const char *prefer)
{
    size_t n = strlen(name);
    strvec la = STRVEC_INIT, lb = STRVEC_INIT;
    lines_of(&la, p->src_a, da->start_byte, da->end_byte);
    lines_of(&lb, p->src_b, db->start_byte, db->end_byte);
    hashmap ids = HASHMAP_INIT;
    uint32_t *ia = line_ids(&la, &ids), *ib = line_ids(&lb, &ids);
    difflib_matcher *mt = difflib_matcher_new(ia, la.len, ib, lb.len, 0);
    size_t nops;
    const difflib_opcode *ops = difflib_opcodes(mt, &nops);
    def_places dp = {STRVEC_INIT, STRVEC_INIT, prefer && !strcmp(da->qualname, prefer)};
    for (int calls = 1; calls >= 0; calls--)
        for (size_t o = 0; o < nops; o++) {
            if (ops[o].tag != DIFFLIB_REPLACE)
                continue;
            for (size_t i = ops[o].i1; i < ops[o].i2; i++) {
                long at = once_at(la.items[i], name);
                if (at >= 0 && (la.items[i][at + (long)n] == '(') == calls)
                    take_line(v, &dp, da->qualname, la.items[i], at, name, &lb, ops[o].j1,
                              ops[o].j2);
            }
        }
    difflib_matcher_free(mt);
    free(ia);
    free(ib);
    hashmap_free(&ids);
    strvec_free(&dp.wrote);
    strvec_free(&dp.called);
    strvec_free(&la);
    strvec_free(&lb);
}

static void walk(seen_names *v, const survey_pair *p, const index_def *const *defs, size_t n,
                 const char *name, const char *prefer)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++) {
        const index_def *d = defs[i];
        if (d->kind == INDEX_CLASS) {
            walk(v, p, (const index_def *const *)d->members, d->n_members, name, prefer);
            continue;
        }
        if (d->end_byte > p->src_a_len || d->end_byte <= d->start_byte ||
            !memmem(p->src_a + d->start_byte, d->end_byte - d->start_byte, name, len))
            continue;
        const index_def *db = index_find(p->b, d->qualname);
        if (db && db->kind == INDEX_FUNCTION && db->end_byte <= p->src_b_len &&
            db->end_byte > db->start_byte)
            compare_def(v, p, d, db, name, prefer);
    }
}

/* Whether x is the better evidence: what the preferred definition builds, then
 * what it writes, then what upstream's definitions build, then write, most places
 * first; the first found of a tie. */
static int better(const seen_name *x, const seen_name *y)
{
    if (x->own_calls != y->own_calls)
        return x->own_calls > y->own_calls;
    if (x->own_places != y->own_places)
        return x->own_places > y->own_places;
    if (x->calls != y->calls)
        return x->calls > y->calls;
    return x->places > y->places;
}

char *written_instead(const survey_pair *p, const char *name, const char *prefer, strbuf *why)
{
    if (!p->a || !p->b || !p->src_a || !p->src_b || !*name)
        return NULL;
    seen_names v = VEC_INIT;
    walk(&v, p, (const index_def *const *)p->a->defs, p->a->n_defs, name, prefer);
    size_t best = v.len;
    for (size_t i = 0; i < v.len; i++)
        if (signatures_module_binds(p->b, v.items[i].name) &&
            (best == v.len || better(&v.items[i], &v.items[best])))
            best = i;
    char *r = NULL;
    if (best < v.len) {
        r = pgci_strdup(v.items[best].name);
        strbuf_addf(why, "upstream at %s writes `%s` where %s wrote `%s` (%zu place%s):\n%s",
                    p->tag_b, r, p->tag_a, name, v.items[best].places,
                    v.items[best].places == 1 ? "" : "s", v.items[best].first.buf);
        for (size_t i = 0; i < v.len; i++)
            if (i != best)
                strbuf_addf(why, "  and `%s` in %zu place%s%s\n", v.items[i].name,
                            v.items[i].places, v.items[i].places == 1 ? "" : "s",
                            signatures_module_binds(p->b, v.items[i].name) ? ""
                                                                           : " (not bound there)");
    }
    for (size_t i = 0; i < v.len; i++) {
        free(v.items[i].name);
        strbuf_free(&v.items[i].first);
    }
    VEC_FREE(&v);
    return r;
}
