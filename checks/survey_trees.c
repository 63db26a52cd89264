/*
 * survey_trees.c - the survey's trees through the run's parse set, and the run's
 * memos of what is read from them (body uses, body comparisons), under one lock:
 * the comparison runs on one thread, beside the regeneration.
 */
#include "checks/survey_trees.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"
#include "py/parse_set.h"
#include "py/structural.h"

int survey_tree_get(const survey_pair *p, py_tree *t, const char *src, size_t len, const char *path)
{
    return p->parses ? py_parse_set_get(p->parses, src, len, path, t) : py_parse(t, src, len, path);
}

void survey_tree_release(const survey_pair *p, py_tree *t)
{
    if (p->parses)
        py_parse_set_release(t);
    else
        py_tree_free(t);
}

static int read_uses(const survey_pair *p, body_uses *out, const char *text, size_t len)
{
    py_tree t;
    int r = survey_tree_get(p, &t, text, len, "<patch>");
    if (r < 0)
        return r;
    body_uses_of_tree(out, &t);
    survey_tree_release(p, &t);
    return 0;
}

typedef struct body_entry {
    int ok;
    body_uses uses;
} body_entry;

struct survey_bodies {
    pthread_mutex_t lock;
    hashmap by_text; /* body text -> body_entry */
    hashmap same;    /* "a-pointer a-length b-pointer b-length" -> 1 + the answer */
    hashmap indexes; /* patch text -> index_entry */
};

typedef struct index_entry {
    index_module *m; /* NULL: the text does not parse */
} index_entry;

survey_bodies *survey_bodies_new(void)
{
    survey_bodies *b = pgci_calloc(1, sizeof(*b));
    pthread_mutex_init(&b->lock, NULL);
    return b;
}

static void entry_free(void *v)
{
    body_entry *e = v;
    body_uses_free(&e->uses);
    free(e);
}

static void index_entry_free(void *v)
{
    index_entry *e = v;
    if (e->m)
        index_module_free(e->m);
    free(e);
}

void survey_bodies_free(survey_bodies *b)
{
    if (!b)
        return;
    hashmap_free_with(&b->by_text, entry_free);
    hashmap_free_with(&b->indexes, index_entry_free);
    hashmap_free(&b->same);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

/* The comparison of two stretches, asked once a run (p->bodies); `def` when they
 * are definitions a and b of p->src_a and p->src_b, read from the modules' trees. */
static int same_body(const survey_pair *p, const char *a, size_t alen, const char *b, size_t blen,
                     const index_def *da, const index_def *db)
{
    char key[96];
    snprintf(key, sizeof(key), "%p %zu %p %zu", (const void *)a, alen, (const void *)b, blen);
    survey_bodies *m = p->bodies;
    if (m) {
        pthread_mutex_lock(&m->lock);
        intptr_t got = (intptr_t)hashmap_get(&m->same, key);
        pthread_mutex_unlock(&m->lock);
        if (got)
            return (int)(got - 1);
    }
    int eq = -1;
    py_tree ta, tb;
    if (da && p->parses &&
        py_parse_set_get(p->parses_a ? p->parses_a : p->parses, p->src_a, p->src_a_len,
                         "<upstream at A>", &ta) == 0) {
        /* B := A (the standing facts): A's source on both sides, and its tree */
        py_parse_set *set_b = p->src_b == p->src_a && p->parses_a ? p->parses_a : p->parses;
        if (py_parse_set_get(set_b, p->src_b, p->src_b_len, "<upstream at B>", &tb) == 0) {
            eq = structural_def_bodies_equal(&ta, da->start_byte, &tb, db->start_byte);
            py_parse_set_release(&tb);
        }
        py_parse_set_release(&ta);
    }
    if (eq < 0) {
        pgci_error_clear();
        eq = structural_bodies_equal(a, alen, b, blen);
    }
    if (eq < 0 || !m)
        return eq; /* an error is the caller's; not remembered */
    pthread_mutex_lock(&m->lock);
    hashmap_put(&m->same, key, (void *)(intptr_t)(eq + 1));
    pthread_mutex_unlock(&m->lock);
    return eq;
}

int survey_same_body(const survey_pair *p, const char *a, size_t alen, const char *b, size_t blen)
{
    return same_body(p, a, alen, b, blen, NULL, NULL);
}

int survey_same_def_body(const survey_pair *p, const index_def *a, const index_def *b)
{
    if (!p->src_a || !p->src_b || a->end_byte > p->src_a_len || b->end_byte > p->src_b_len ||
        a->start_byte > a->end_byte || b->start_byte > b->end_byte)
        return 0;
    int eq = same_body(p, p->src_a + a->start_byte, a->end_byte - a->start_byte,
                       p->src_b + b->start_byte, b->end_byte - b->start_byte, a, b);
    if (eq < 0)
        pgci_error_clear();
    return eq == 1;
}

const body_uses *survey_body_uses(const survey_pair *p, const char *text, size_t len,
                                  body_uses *own)
{
    memset(own, 0, sizeof(*own));
    if (!p->bodies)
        return read_uses(p, own, text, len) == 0 ? own : NULL;
    survey_bodies *b = p->bodies;
    /* one lock over the reading too: the comparison runs on one thread */
    pthread_mutex_lock(&b->lock);
    body_entry *e = hashmap_getn(&b->by_text, text, len);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        e->ok = read_uses(p, &e->uses, text, len) == 0;
        hashmap_putn(&b->by_text, text, len, e);
    }
    pthread_mutex_unlock(&b->lock);
    if (e->ok)
        return &e->uses;
    pgci_error_set(PGCI_EINVALID, "a patch body does not parse");
    return NULL;
}

const index_module *survey_patch_index(const survey_pair *p, const char *text, size_t len,
                                       index_module **own)
{
    *own = NULL;
    if (!p->bodies) {
        if (index_module_from_parse_set(own, p->parses, text, len, "<patch>", NULL) < 0)
            return NULL;
        return *own;
    }
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    index_entry *e = hashmap_getn(&b->indexes, text, len);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        if (index_module_from_parse_set(&e->m, p->parses, text, len, "<patch>", NULL) < 0)
            e->m = NULL;
        hashmap_putn(&b->indexes, text, len, e);
    }
    pthread_mutex_unlock(&b->lock);
    if (!e->m)
        pgci_error_set(PGCI_EINVALID, "a patch body does not parse");
    return e->m;
}

int survey_def_tree(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    py_tree *t)
{
    if (!src || d->end_byte > len || d->start_byte > d->end_byte)
        return pgci_error_set(PGCI_EINVALID, "a definition outside its source");
    if (!p->parses)
        return py_parse(t, src, len, "<upstream>");
    int a = p->parses_a && src == p->src_a;
    for (size_t i = 0; !a && p->parses_a && i < p->n_ext; i++)
        a = src == p->ext[i].src_a;
    return py_parse_set_get(a ? p->parses_a : p->parses, src, len, "<upstream>", t);
}

int survey_returned(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    returned *r)
{
    memset(r, 0, sizeof(*r));
    py_tree t;
    if (survey_def_tree(p, src, len, d, &t) < 0)
        return -1;
    int rc = returned_read(r, &t, d->start_byte);
    survey_tree_release(p, &t);
    return rc;
}
