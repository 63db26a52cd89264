/*
 * plan_params.c - the parameter paths under a module, and the keys that match
 * them (see plan_params.h).
 */
#include "checks/plan_params.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

#define PLAN_PARAMS_CLASSES 2000 /* classes visited, in all */
#define PLAN_PARAMS_DEPTH 32     /* classes nested */

/* ---- the match --------------------------------------------------------------------- */

typedef struct matcher {
    const char *g, *p;
    size_t gl, pl;
    unsigned char *memo; /* (gi, pi, in) -> 0 not yet, 1 no, 2 yes */
} matcher;

static int in_class(char token, char c)
{
    return token == PLAN_PATH_INDEX ? isdigit((unsigned char)c) : c != '.';
}

/* From key position gi and path position pi (in: inside the class token at pi,
 * one character of it consumed already). */
static int match_at(matcher *m, size_t gi, size_t pi, int in)
{
    unsigned char *slot = &m->memo[(gi * (m->pl + 1) + pi) * 2 + (size_t)in];
    if (*slot)
        return *slot == 2;
    int r = 0;
    char t = pi < m->pl ? m->p[pi] : 0;
    int cls = t == PLAN_PATH_INDEX || t == PLAN_PATH_SEGMENT;
    if (in && match_at(m, gi, pi + 1, 0)) /* the token ends here */
        r = 1;
    else if (gi == m->gl)
        r = !in && pi == m->pl;
    else if (m->g[gi] == '*')
        /* the star takes nothing, ends inside the class token at pi, or takes the
         * rest of the token (or the literal character) at pi and goes on */
        r = match_at(m, gi + 1, pi, in) || (cls && match_at(m, gi + 1, pi, 1)) ||
            (pi < m->pl && (cls || !in) && match_at(m, gi, pi + 1, 0));
    else if (cls)
        r = in_class(t, m->g[gi]) && match_at(m, gi + 1, pi, 1);
    else
        r = !in && pi < m->pl && t == m->g[gi] && match_at(m, gi + 1, pi + 1, 0);
    *slot = r ? 2 : 1;
    return r;
}

int plan_key_matches(const char *key, const char *path)
{
    matcher m = {key, path, strlen(key), strlen(path), NULL};
    m.memo = pgci_calloc((m.gl + 1) * (m.pl + 1) * 2, 1);
    int r = match_at(&m, 0, 0, 0);
    free(m.memo);
    return r;
}

/* ---- the walk ---------------------------------------------------------------------- */

typedef struct walk {
    plan_model *m;
    int side;
    const char *key;
    strvec on_way; /* the classes from the start to here */
    size_t classes, paths;
    int unknown, match;
} walk;

static void walk_class(walk *w, const char *cls, strbuf *path);

static void test(walk *w, const strbuf *path)
{
    w->paths++;
    if (plan_key_matches(w->key, path->buf))
        w->match = 1;
}

/* The parameters one stored value holds, under path.attr. */
static void visit(walk *w, strbuf *path, const plan_asg *a)
{
    size_t at = path->len;
    strbuf_addf(path, "%s%s", at ? "." : "", a->attr);
    switch (a->kind) {
    case PLAN_V_DATA:
        break;
    case PLAN_V_PARAM:
        test(w, path);
        break;
    case PLAN_V_LEAF:
        for (unsigned k = 0; a->leaf.names && k < 2; k++) {
            if (!(a->leaf.may >> k & 1))
                continue;
            size_t n = path->len;
            strbuf_addf(path, ".%s", a->leaf.names[k]);
            test(w, path);
            strbuf_setlen(path, n);
        }
        if (a->leaf.any) {
            strbuf_addf(path, ".%c", PLAN_PATH_SEGMENT);
            test(w, path);
        }
        break;
    case PLAN_V_LIST:
        strbuf_addf(path, ".%c", PLAN_PATH_INDEX);
        walk_class(w, a->cls, path);
        break;
    case PLAN_V_CLASS:
        walk_class(w, a->cls, path);
        break;
    default:
        w->unknown = 1;
    }
    strbuf_setlen(path, at);
}

static void walk_class(walk *w, const char *cls, strbuf *path)
{
    if (w->unknown || w->match)
        return;
    const plan_class *chain[PLAN_CHAIN_MAX];
    size_t len = 0;
    if (++w->classes > PLAN_PARAMS_CLASSES || w->on_way.len >= PLAN_PARAMS_DEPTH ||
        strvec_find(&w->on_way, cls) >= 0 ||
        plan_class_chain(w->m, w->side, cls, chain, &len) < 0) {
        w->unknown = 1;
        return;
    }
    strvec_push(&w->on_way, cls);
    for (size_t i = 0; i < len && !w->unknown && !w->match; i++) {
        const plan_asgs *st = plan_class_stores(w->m, chain[i]);
        if (!st) {
            w->unknown = 1;
            break;
        }
        for (size_t j = 0; j < st->len && !w->unknown && !w->match; j++)
            visit(w, path, &st->items[j]);
    }
    free(w->on_way.items[--w->on_way.len]);
}

plan_params_verdict plan_params_match(plan_model *m, int side, const char *cls, int list,
                                      const char *path, const char *key, size_t *paths)
{
    walk w = {m, side, key, STRVEC_INIT, 0, 0, 0, 0};
    strbuf p = STRBUF_INIT;
    strbuf_adds(&p, path);
    if (list)
        strbuf_addf(&p, "%s%c", *path ? "." : "", PLAN_PATH_INDEX);
    walk_class(&w, cls, &p);
    strbuf_free(&p);
    strvec_free(&w.on_way);
    *paths = w.paths;
    return w.unknown ? PLAN_PARAMS_UNKNOWN : w.match ? PLAN_PARAMS_MATCH : PLAN_PARAMS_NONE;
}
