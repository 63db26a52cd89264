/*
 * gate_ruff.c - the checked-in files through one ruff batch, beside the
 * regeneration. The thread only reads files and runs normalize_ruff_batch(),
 * which is thread-safe (its own temporary directory, the cache's own locking);
 * the error slot is per thread, so nothing it sets leaks into the gate's.
 */
#include "pipeline/gate_ruff.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"

struct gate_ruff {
    normalize_opts o;
    normalize_item *items;
    char **names; /* base names (items[k].file_name points here) */
    char **data;  /* the bytes read (items[k].src points here) */
    size_t n;
    pthread_t thread;
    pthread_mutex_t lock; /* guards the join: checks call in from many threads */
    int started, joined;
};

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

static void *batch_main(void *arg)
{
    gate_ruff *g = arg;
    normalize_ruff_batch(&g->o, g->items, g->n);
    pgci_error_clear();
    return NULL;
}

gate_ruff *gate_ruff_start(const normalize_opts *o, const char *root, const char *const *paths,
                           size_t n)
{
    gate_ruff *g = pgci_calloc(1, sizeof(*g));
    g->o = *o;
    pthread_mutex_init(&g->lock, NULL);
    g->items = pgci_calloc(n ? n : 1, sizeof(*g->items));
    g->names = pgci_calloc(n ? n : 1, sizeof(*g->names));
    g->data = pgci_calloc(n ? n : 1, sizeof(*g->data));
    for (size_t i = 0; i < n; i++) {
        strbuf p = STRBUF_INIT, d = STRBUF_INIT;
        if (paths[i] && fs_join_under(&p, root, paths[i], "generated file") == 0 &&
            fs_is_file(p.buf) && fs_read_file(&d, p.buf, 0) == 0) {
            size_t k = g->n++;
            g->names[k] = pgci_strdup(base_name(paths[i]));
            g->items[k].file_name = g->names[k];
            g->items[k].len = d.len;
            g->data[k] = strbuf_detach(&d, NULL);
            g->items[k].src = g->data[k];
        }
        pgci_error_clear();
        strbuf_free(&p);
        strbuf_free(&d);
    }
    g->started = g->n && pthread_create(&g->thread, NULL, batch_main, g) == 0;
    if (g->n && !g->started)
        batch_main(g); /* no thread: do it here */
    return g;
}

void gate_ruff_wait(gate_ruff *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    if (g->started && !g->joined) {
        pthread_join(g->thread, NULL);
        g->joined = 1;
    }
    pthread_mutex_unlock(&g->lock);
}

int gate_ruff_normalize(void *arg, const char *path_hint, const char *src, size_t len, strbuf *out)
{
    gate_ruff *g = arg;
    normalize_opts o = g->o;
    o.file_name = base_name(path_hint);
    gate_ruff_wait(g);
    for (size_t k = 0; k < g->n; k++) {
        const normalize_item *it = &g->items[k];
        if (it->len != len || strcmp(it->file_name, o.file_name) ||
            (len && memcmp(it->src, src, len)))
            continue;
        if (it->status < 0)
            return pgci_error_set(it->status, "%s", it->error);
        strbuf_add(out, it->out.buf, it->out.len);
        return 0;
    }
    return normalize_ruff(&o, src, len, out);
}

void gate_ruff_free(gate_ruff *g)
{
    if (!g)
        return;
    gate_ruff_wait(g);
    for (size_t k = 0; k < g->n; k++) {
        strbuf_free(&g->items[k].out);
        free(g->items[k].error);
        free(g->names[k]);
        free(g->data[k]);
    }
    free(g->items);
    free(g->names);
    free(g->data);
    pthread_mutex_destroy(&g->lock);
    free(g);
}
