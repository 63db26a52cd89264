/*
 * parse_set.c - trees by content. One mutex guards the table; each source's
 * parse runs under its entry's own mutex. Paired sets look into each other's
 * table for bytes they lack; their entries are locked the first set's first.
 */
#include "py/parse_set.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"
#include "core/par.h"
#include "core/sha256.h"
#include "py/reparse.h"

/* Both kinds of entry start with their mutex (entry_in() initialises it). */
typedef struct parsed {
    pthread_mutex_t lock;
    int done;                     /* tree holds the parse */
    int forgotten;                /* free the tree when the last copy is released */
    size_t users;                 /* copies handed out and not released */
    py_tree tree;                 /* owns the source and the tree */
    char key[SHA256_HEX_LEN + 1]; /* the SHA-256 of the source, its key */
    /* the parsed texts of forests made against this source as their donor (each
     * a copy of the forest's `parsed`, its own source and a reference to the
     * tree): later forests against it take their statements too (forest.h).
     * They go with the tree: no forest against it is alive then, as each holds
     * a copy of the tree */
    py_tree *kin[PY_PARSE_SET_KIN];
    size_t nkin;
} parsed;

/* A source's forest against a donor (forest.h), by the source's address. */
typedef struct forested {
    pthread_mutex_t lock;
    int state;     /* 0: none, 1: f made, -1: the forest declined these bytes */
    py_tree donor; /* the set's copy of the donor's tree, while f is made */
    /* copies of the donor's kin trees f may read, while f is made (tree-sitter
     * wants a copy of a tree per thread that uses it); their sources are the
     * kin's own, which outlive f as the donor's tree does */
    py_tree kin[PY_PARSE_SET_KIN];
    size_t nkin;
    py_forest f;
    size_t users;
    int forgotten;
} forested;

struct py_parse_set {
    pthread_mutex_t lock;
    hashmap trees;   /* digest -> parsed */
    hashmap forests; /* "address:length" of a source -> forested */
    /* "address:length" of a buffer asked for before -> its entry: callers ask for
     * the same buffer again and again (a module at every config and check), and a
     * comparison with the entry's bytes is much cheaper than a digest of them */
    hashmap seen;
    size_t parses, reused;
    /* the set paired with this one (py_parse_set_pair), and whether this one's
     * entries are locked before the twin's (the first set named) */
    py_parse_set *twin;
    int locks_first;
};

py_parse_set *py_parse_set_new(void)
{
    py_parse_set *s = pgci_calloc(1, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static void kin_free(parsed *e)
{
    for (size_t i = 0; i < e->nkin; i++) {
        py_tree_free(e->kin[i]);
        free(e->kin[i]);
    }
    e->nkin = 0;
}

static void parsed_free(void *p)
{
    parsed *e = p;
    kin_free(e);
    py_tree_free(&e->tree);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

void py_parse_set_free(py_parse_set *s)
{
    py_parse_set_free_jobs(s, 1);
}

static void free_one(void *arg, size_t worker, size_t i)
{
    (void)worker;
    hashmap_entry *e = &((hashmap *)arg)->entries[i];
    if (e->key) {
        parsed_free(e->value);
        e->value = NULL;
    }
}

/* The forest's copies of its donor's kin trees go (not their sources). */
static void kin_copies_drop(forested *e)
{
    for (size_t i = 0; i < e->nkin; i++)
        ts_tree_delete(e->kin[i].tree);
    memset(e->kin, 0, sizeof(e->kin));
    e->nkin = 0;
}

static void forest_drop(forested *e)
{
    if (e->state == 1) {
        py_forest_free(&e->f);
        kin_copies_drop(e);
        py_parse_set_release(&e->donor);
    }
    e->state = 0;
    e->forgotten = 0;
}

static void forested_free(void *p)
{
    forested *e = p;
    forest_drop(e);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

void py_parse_set_pair(py_parse_set *a, py_parse_set *b)
{
    a->twin = b;
    b->twin = a;
    a->locks_first = 1;
    b->locks_first = 0;
}

/* Ends the pairing of s, if any: its twin no longer looks into it. */
static void unpair(py_parse_set *s)
{
    if (s->twin) {
        s->twin->twin = NULL;
        s->twin = NULL;
    }
}

void py_parse_set_free_jobs(py_parse_set *s, int jobs)
{
    if (!s)
        return;
    unpair(s);
    hashmap_free_with(&s->forests, forested_free); /* they hold copies of trees */
    /* a run's trees are many and large: their freeing is work like any other */
    par_for(s->trees.len, jobs, free_one, &s->trees);
    hashmap_free(&s->trees);
    hashmap_free(&s->seen);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The sets left to the process's exit (py_parse_set_leave). */
static struct {
    pthread_mutex_t lock;
    py_parse_set *sets[8];
    size_t n;
} left = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};

void py_parse_set_leave(py_parse_set *s)
{
    if (!s)
        return;
    unpair(s);
    pthread_mutex_lock(&left.lock);
    int kept = left.n < sizeof(left.sets) / sizeof(left.sets[0]);
    if (kept)
        left.sets[left.n++] = s;
    pthread_mutex_unlock(&left.lock);
    if (!kept)
        py_parse_set_free(s);
}

/* The entry of key in m (a table of the set's, of entries of `size` bytes whose
 * first member is their mutex), made zeroed when absent. */
static void *entry_in(py_parse_set *s, hashmap *m, const char *key, size_t size)
{
    pthread_mutex_lock(&s->lock);
    void *e = hashmap_get(m, key);
    if (!e) {
        e = pgci_calloc(1, size);
        pthread_mutex_init((pthread_mutex_t *)e, NULL);
        hashmap_put(m, key, e);
    }
    pthread_mutex_unlock(&s->lock);
    return e;
}

static parsed *entry(py_parse_set *s, const char *key)
{
    return entry_in(s, &s->trees, key, sizeof(parsed));
}

int py_parse_set_get(py_parse_set *s, const char *src, size_t len, const char *path, py_tree *t)
{
    return py_parse_set_get_near(s, src, len, path, NULL, t);
}

static void seen_key(char *k, size_t size, const char *src, size_t len)
{
    snprintf(k, size, "%p:%zu", (const void *)src, len);
}

/* The entry of the bytes at src[0..len), locked, when the buffer was asked for
 * before and its entry still holds those very bytes parsed; NULL otherwise. */
static parsed *seen_entry(py_parse_set *s, const char *src, size_t len)
{
    char k[64];
    seen_key(k, sizeof(k), src, len);
    pthread_mutex_lock(&s->lock);
    parsed *e = hashmap_get(&s->seen, k);
    pthread_mutex_unlock(&s->lock);
    if (!e)
        return NULL;
    pthread_mutex_lock(&e->lock);
    if (e->done && e->tree.len == len && (len == 0 || !memcmp(e->tree.src, src, len)))
        return e;
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* The entry of `key` in s's twin, if it is paired and the twin has one (never
 * made there: an entry is made only by a request to its own set). */
static parsed *twin_entry(py_parse_set *s, const char *key)
{
    py_parse_set *w = s->twin;
    if (!w)
        return NULL;
    pthread_mutex_lock(&w->lock);
    parsed *e = hashmap_get(&w->trees, key);
    pthread_mutex_unlock(&w->lock);
    return e;
}

/* *to: the tree of `from` (done, its lock held), as the set's own: a copy of the
 * tree (a reference count) and of the source. */
static void copy_tree(py_tree *to, const py_tree *from, const char *path)
{
    memset(to, 0, sizeof(*to));
    to->tree = ts_tree_copy(from->tree);
    to->src = pgci_malloc(from->len + 1);
    memcpy(to->src, from->src, from->len + 1);
    to->len = from->len;
    to->path = pgci_strdup(path ? path : "<input>");
}

int py_parse_set_get_near(py_parse_set *s, const char *src, size_t len, const char *path,
                          const py_tree *near, py_tree *t)
{
    int r = 0, fresh = 0;
    parsed *e = seen_entry(s, src, len);
    if (!e) {
        char key[SHA256_HEX_LEN + 1];
        sha256_hex(src, len, key);
        e = entry(s, key);
        char k[64];
        seen_key(k, sizeof(k), src, len);
        pthread_mutex_lock(&s->lock);
        hashmap_put(&s->seen, k, e);
        pthread_mutex_unlock(&s->lock);
        /* the twin's entry of the same bytes, if it has one: the pair's entries
         * are locked the first set's first, so that whichever side takes the
         * bytes first parses them and the other waits for the tree. (Each side
         * makes its entry before it looks at the twin's, so at least one of two
         * requests at once sees the other; a request that comes between the
         * other's look and its lock parses too: a parse more, never a wrong tree.) */
        parsed *te = twin_entry(s, key);
        if (te && !s->locks_first)
            pthread_mutex_lock(&te->lock);
        pthread_mutex_lock(&e->lock);
        if (te && s->locks_first)
            pthread_mutex_lock(&te->lock);
        fresh = !e->done;
        if (fresh && te && te->done) {
            copy_tree(&e->tree, &te->tree, path);
            memcpy(e->key, key, sizeof(e->key));
            e->done = 1;
            fresh = 0;
        } else if (fresh && (r = py_parse_near(&e->tree, src, len, path, near)) == 0) {
            memcpy(e->key, key, sizeof(e->key));
            e->done = 1;
        }
        if (te)
            pthread_mutex_unlock(&te->lock);
    }
    if (r == 0) {
        memset(t, 0, sizeof(*t));
        t->tree = ts_tree_copy(e->tree.tree);
        t->src = e->tree.src;
        t->len = e->tree.len;
        t->path = pgci_strdup(path ? path : "<input>");
        t->shared = e;
        e->users++;
        e->forgotten = 0;
    }
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_lock(&s->lock);
    if (r == 0)
        (*(fresh ? &s->parses : &s->reused))++;
    pthread_mutex_unlock(&s->lock);
    return r;
}

int py_parse_set_digest(py_parse_set *s, const char *src, size_t len, char hex[SHA256_HEX_LEN + 1])
{
    parsed *e = seen_entry(s, src, len);
    if (!e)
        return -1;
    memcpy(hex, e->key, SHA256_HEX_LEN + 1);
    pthread_mutex_unlock(&e->lock);
    return 0;
}

/* Frees the entry's tree (the entry stays: a later request parses again).
 * Called with e->lock held. */
static void drop_tree(parsed *e)
{
    kin_free(e);
    py_tree_free(&e->tree);
    e->done = 0;
    e->forgotten = 0;
}

void py_parse_set_release(py_tree *t)
{
    if (t->tree)
        ts_tree_delete(t->tree);
    parsed *e = t->shared;
    if (e) {
        pthread_mutex_lock(&e->lock);
        if (--e->users == 0 && e->forgotten)
            drop_tree(e);
        pthread_mutex_unlock(&e->lock);
    }
    free(t->path);
    memset(t, 0, sizeof(*t));
}

/* The forest entry of the buffer src[0..len), made when absent. */
static forested *forest_entry(py_parse_set *s, const char *src, size_t len)
{
    char k[64];
    seen_key(k, sizeof(k), src, len);
    return entry_in(s, &s->forests, k, sizeof(forested));
}

/* e's forest of src[0..len) against e->donor (a copy of the donor's tree, which
 * keeps the donor's entry and its kin alive while the forest is), with the
 * statements of the donor's kin (through copies of their trees, e->kin); the
 * forest's parsed text joins the kin. The kin
 * are read under the donor entry's lock, and a forest made at the same time as
 * another against the same donor may not see it: a parse more, never a wrong
 * tree (a statement's node depends on its bytes only). */
static int forest_with_kin(forested *e, const char *src, size_t len, const char *path)
{
    parsed *d = e->donor.shared;
    const py_tree *kin[PY_PARSE_SET_KIN];
    pthread_mutex_lock(&d->lock);
    for (e->nkin = 0; e->nkin < d->nkin; e->nkin++) {
        py_tree *c = &e->kin[e->nkin];
        *c = *d->kin[e->nkin];
        c->tree = ts_tree_copy(c->tree);
        c->path = NULL;
        kin[e->nkin] = c;
    }
    pthread_mutex_unlock(&d->lock);
    int r = py_forest_build(&e->f, src, len, path, &e->donor, kin, e->nkin);
    if (r < 0) {
        kin_copies_drop(e);
        return r;
    }
    py_tree *k = pgci_calloc(1, sizeof(*k));
    k->tree = ts_tree_copy(e->f.parsed.tree);
    k->len = e->f.parsed.len;
    k->src = pgci_malloc(k->len + 1);
    memcpy(k->src, e->f.parsed.src, k->len + 1);
    k->path = pgci_strdup("<kin>");
    pthread_mutex_lock(&d->lock);
    int kept = d->nkin < PY_PARSE_SET_KIN;
    if (kept)
        d->kin[d->nkin++] = k;
    pthread_mutex_unlock(&d->lock);
    if (!kept) {
        py_tree_free(k);
        free(k);
    }
    return 0;
}

const py_forest *py_parse_set_get_forest(py_parse_set *s, const char *src, size_t len,
                                         const char *path, const char *donor, size_t donor_len)
{
    forested *e = forest_entry(s, src, len);
    pthread_mutex_lock(&e->lock);
    /* a buffer rewritten in place is another source */
    if (e->state == 1 && !e->users &&
        (e->f.file.len != len || (len && memcmp(e->f.file.src, src, len))))
        forest_drop(e);
    if (e->state == 0) {
        e->state = -1;
        if (py_parse_set_get(s, donor, donor_len, "<upstream>", &e->donor) == 0) {
            if (py_check_syntax(&e->donor) == 0 && forest_with_kin(e, src, len, path) == 0)
                e->state = 1;
            else
                py_parse_set_release(&e->donor);
        }
        pgci_error_clear();
    }
    const py_forest *f = NULL;
    if (e->state == 1 && e->f.file.len == len && (!len || !memcmp(e->f.file.src, src, len))) {
        f = &e->f;
        e->users++;
        e->forgotten = 0;
    }
    pthread_mutex_unlock(&e->lock);
    return f;
}

void py_parse_set_release_forest(py_parse_set *s, const py_forest *f)
{
    (void)s;
    forested *e = (forested *)(void *)((char *)(uintptr_t)f - offsetof(forested, f));
    pthread_mutex_lock(&e->lock);
    if (--e->users == 0 && e->forgotten)
        forest_drop(e);
    pthread_mutex_unlock(&e->lock);
}

/* Forgets the forest of the buffer src[0..len), if any. */
static void forget_forest(py_parse_set *s, const char *src, size_t len)
{
    char k[64];
    seen_key(k, sizeof(k), src, len);
    pthread_mutex_lock(&s->lock);
    forested *e = hashmap_get(&s->forests, k);
    pthread_mutex_unlock(&s->lock);
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    if (e->users)
        e->forgotten = 1;
    else
        forest_drop(e);
    pthread_mutex_unlock(&e->lock);
}

void py_parse_set_forget(py_parse_set *s, const char *src, size_t len)
{
    forget_forest(s, src, len);
    parsed *e = seen_entry(s, src, len); /* locked */
    if (!e) {
        char key[SHA256_HEX_LEN + 1];
        sha256_hex(src, len, key);
        pthread_mutex_lock(&s->lock);
        e = hashmap_get(&s->trees, key);
        pthread_mutex_unlock(&s->lock);
        if (!e)
            return;
        pthread_mutex_lock(&e->lock);
    }
    if (e->done) {
        if (e->users == 0)
            drop_tree(e);
        else
            e->forgotten = 1;
    }
    pthread_mutex_unlock(&e->lock);
}

void py_parse_set_counts(py_parse_set *s, size_t *parses, size_t *reused)
{
    pthread_mutex_lock(&s->lock);
    *parses = s->parses;
    *reused = s->reused;
    pthread_mutex_unlock(&s->lock);
}
