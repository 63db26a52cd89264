/*
 * codegen_shared.c - one parse per distinct upstream module, and the class
 * rewrites memoised by content.
 *
 * Why memoise and not re-parse: patchgen re-parses a class after each method it
 * puts in (so the next override sees the new text), and checks each override's
 * source by parsing it. Those inputs repeat across configs (a GPU and an NPU
 * config override the same methods of the same classes with the same sources),
 * and the outputs are functions of the inputs' bytes alone, so the second config
 * reuses the first one's results. Keys are SHA-256 digests of the inputs.
 *
 * Upstream modules go through a py_parse_set (src/py/parse_set.h), which the
 * upstream layer may have filled already while validating what it fetched.
 * Locking: one mutex guards the memo tables. Memoised results are computed outside any lock (two
 * threads may both compute one; the first stored wins, the results being equal).
 */
#include "patchgen/codegen_shared.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"
#include "core/sha256.h"
#include "patchgen/codegen_method.h"
#include "patchgen/codegen_syntax.h"

typedef struct indent_result {
    unsigned line; /* 0: the indentation is Python's */
    const char *why;
} indent_result;

typedef struct rewrite {
    char *text;
    size_t len;
    int added;
} rewrite;

struct cg_shared {
    pthread_mutex_t lock;
    py_parse_set *parses; /* upstream modules */
    int own_parses;
    hashmap accepts;   /* digest -> (void *)(1 + result) */
    hashmap indents;   /* digest -> indent_result */
    hashmap rewrites;  /* digest -> rewrite */
    cgm_memo *methods; /* the methods the rewrites parse alone */
    cg_shared_stats st;
};

cg_shared *cg_shared_new(py_parse_set *parses)
{
    cg_shared *s = pgci_calloc(1, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
    s->methods = cgm_memo_new();
    s->parses = parses;
    if (!parses) {
        s->parses = py_parse_set_new();
        s->own_parses = 1;
    }
    return s;
}

void cg_shared_set_parse_set(cg_shared *s, py_parse_set *parses)
{
    if (s->own_parses)
        py_parse_set_free(s->parses);
    s->parses = parses;
    s->own_parses = 0;
}

static void rewrite_free(void *p)
{
    rewrite *w = p;
    free(w->text);
    free(w);
}

void cg_shared_free(cg_shared *s)
{
    if (!s)
        return;
    if (s->own_parses)
        py_parse_set_free(s->parses);
    hashmap_free(&s->accepts);
    hashmap_free_with(&s->indents, free);
    hashmap_free_with(&s->rewrites, rewrite_free);
    cgm_memo_free(s->methods);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static void digest(const char *tag, const char *const *parts, const size_t *lens, size_t n,
                   char hex[SHA256_HEX_LEN + 1])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, tag, strlen(tag) + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t l = lens[i];
        sha256_update(&c, &l, sizeof(l));
        sha256_update(&c, parts[i], lens[i]);
    }
    uint8_t d[SHA256_DIGEST_LEN];
    sha256_final(&c, d);
    sha256_to_hex(d, hex);
}

int cg_shared_parse(cg_shared *s, const char *src, size_t len, const char *path, py_tree *t)
{
    return py_parse_set_get(s->parses, src, len, path, t);
}

void cg_shared_release(py_tree *t)
{
    py_parse_set_release(t);
}

static void *memo_get(cg_shared *s, hashmap *m, const char *key)
{
    pthread_mutex_lock(&s->lock);
    void *v = hashmap_get(m, key);
    (*(v ? &s->st.memo_hits : &s->st.memo_misses))++;
    pthread_mutex_unlock(&s->lock);
    return v;
}

/* Stores v under key unless another thread did first; returns 1 when stored. */
static int memo_put(cg_shared *s, hashmap *m, const char *key, void *v)
{
    pthread_mutex_lock(&s->lock);
    int stored = !hashmap_get(m, key);
    if (stored)
        hashmap_put(m, key, v);
    pthread_mutex_unlock(&s->lock);
    return stored;
}

unsigned cg_shared_indent_error_line(cg_shared *s, const char *src, size_t len, const py_tree *t,
                                     const char **why)
{
    if (!s)
        return cgsyn_indent_error_line(t, why);
    char key[SHA256_HEX_LEN + 1];
    digest("indent", &src, &len, 1, key);
    indent_result *v = memo_get(s, &s->indents, key);
    if (!v) {
        v = pgci_malloc(sizeof(*v));
        v->why = NULL;
        v->line = cgsyn_indent_error_line(t, &v->why);
        if (!memo_put(s, &s->indents, key, v)) {
            indent_result mine = *v;
            free(v);
            if (why)
                *why = mine.why;
            return mine.line;
        }
    }
    if (why)
        *why = v->why;
    return v->line;
}

int cg_shared_parses_with_function(cg_shared *s, const char *src, size_t len)
{
    if (!s)
        return cgm_parses_with_function(src, len);
    char key[SHA256_HEX_LEN + 1];
    digest("accepts", &src, &len, 1, key);
    void *v = memo_get(s, &s->accepts, key);
    if (v)
        return (int)((intptr_t)v - 1);
    int ok = cgm_parses_with_function(src, len);
    memo_put(s, &s->accepts, key, (void *)(intptr_t)(ok + 1));
    return ok;
}

void cg_shared_replace_method(cg_shared *s, cgm_state *st, strbuf *cls, const char *method,
                              const char *preserved, int *added)
{
    if (!s) {
        cgm_replace_method_in(st, cls, method, preserved, added);
        return;
    }
    const char *parts[] = {cls->buf, method, preserved};
    size_t lens[] = {cls->len, strlen(method), strlen(preserved)};
    char key[SHA256_HEX_LEN + 1];
    digest("rewrite", parts, lens, 3, key);
    rewrite *w = memo_get(s, &s->rewrites, key);
    if (w) {
        strbuf_reset(cls);
        strbuf_add(cls, w->text, w->len);
        *added = w->added;
        cgm_state_forget(st); /* cls is no longer the text st knows */
        return;
    }
    st->memo = s->methods;
    cgm_replace_method_in(st, cls, method, preserved, added);
    w = pgci_calloc(1, sizeof(*w));
    w->text = pgci_strndup(cls->buf, cls->len);
    w->len = cls->len;
    w->added = *added;
    if (!memo_put(s, &s->rewrites, key, w))
        rewrite_free(w);
}

void cg_shared_get_stats(cg_shared *s, cg_shared_stats *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->st;
    pthread_mutex_unlock(&s->lock);
    py_parse_set_counts(s->parses, &out->parses, &out->parse_hits);
}
