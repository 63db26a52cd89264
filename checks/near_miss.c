/*
 * Near-miss suggestions for patch targets (see near_miss.h).
 */
#include "checks/near_miss.h"

#include <stdlib.h>
#include <string.h>

#define NEAR_MISS_MAX 2

int near_miss_distance(const char *a, const char *b, int cap)
{
    size_t n = strlen(a), m = strlen(b);
    if ((n > m ? n - m : m - n) > (size_t)cap)
        return cap + 1;
    /* three rows: i-2, i-1, i */
    int *d = calloc(3 * (m + 1), sizeof(int));
    if (!d)
        return cap + 1;
    int *r2 = d, *r1 = d + m + 1, *r0 = d + 2 * (m + 1);
    for (size_t j = 0; j <= m; j++)
        r1[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        r0[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = r1[j] + 1;
            if (r0[j - 1] + 1 < v)
                v = r0[j - 1] + 1;
            if (r1[j - 1] + cost < v)
                v = r1[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && r2[j - 2] + 1 < v)
                v = r2[j - 2] + 1;
            r0[j] = v;
        }
        int *t = r2;
        r2 = r1;
        r1 = r0;
        r0 = t;
    }
    int r = r1[m];
    free(d);
    return r > cap ? cap + 1 : r;
}

/* The closest of names to want within the near-miss distance; NULL when none. */
static const char *closest(const char *want, index_def *const *defs, size_t n)
{
    size_t len = strlen(want);
    if (len < 4)
        return NULL;
    /* one edit for short names, two from 8 characters on */
    int cap = len >= 8 ? NEAR_MISS_MAX : 1, best = cap + 1;
    const char *name = NULL;
    for (size_t i = 0; i < n; i++) {
        int dist = near_miss_distance(want, defs[i]->name, cap);
        if (dist > 0 && dist < best) {
            best = dist;
            name = defs[i]->name;
        }
    }
    return name;
}

const char *near_miss_suggest(const index_module *m, const char *target)
{
    const char *dot = strrchr(target, '.');
    if (!dot)
        return closest(target, m->defs, m->n_defs);
    char *cls = strndup(target, (size_t)(dot - target));
    const index_def *c = cls ? index_find(m, cls) : NULL;
    free(cls);
    if (!c || c->kind != INDEX_CLASS)
        return NULL;
    return closest(dot + 1, c->members, c->n_members);
}
