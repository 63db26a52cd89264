/*
 * check_each.c - a check's per-config work on worker threads.
 *
 * The heavy checks (structural comparison, ruff normalisation, names) do the same
 * independent work for every config. Each call gets its own findings list; the
 * lists are joined in input order afterwards, so the report is the same with one
 * thread or sixteen.
 */
#include <pthread.h>
#include <stdlib.h>

#include "checks/check.h"
#include "core/error.h"
#include "core/strbuf.h"

typedef struct each {
    const check_ctx *ctx;
    check_input_fn fn;
    void *arg;
    findings *per; /* per input */
    int *rc;       /* per input */
    char **why;    /* per input: the message of a failure */
    pthread_mutex_t lock;
    size_t next;
} each;

static void *worker(void *p)
{
    each *e = p;
    for (;;) {
        pthread_mutex_lock(&e->lock);
        size_t i = e->next++;
        pthread_mutex_unlock(&e->lock);
        if (i >= e->ctx->n_inputs)
            return NULL;
        e->rc[i] = e->fn(e->ctx, &e->ctx->inputs[i], e->arg, &e->per[i]);
        if (e->rc[i] < 0) {
            e->why[i] = pgci_strdup(pgci_error_last());
            pgci_error_clear();
        }
    }
}

int check_each_input(const check_ctx *ctx, check_input_fn fn, void *arg, findings *out)
{
    size_t n = ctx->n_inputs;
    if (!n)
        return 0;
    each e = {.ctx = ctx, .fn = fn, .arg = arg, .next = 0};
    e.per = pgci_calloc(n, sizeof(*e.per));
    e.rc = pgci_calloc(n, sizeof(*e.rc));
    e.why = pgci_calloc(n, sizeof(*e.why));
    pthread_mutex_init(&e.lock, NULL);
    size_t nt = ctx->jobs > 1 ? (size_t)ctx->jobs : 1;
    if (nt > n)
        nt = n;
    pthread_t *th = pgci_calloc(nt, sizeof(*th));
    size_t started = 0;
    /* the calling thread is one of the workers */
    for (size_t t = 1; t < nt; t++) {
        if (pthread_create(&th[t], NULL, worker, &e) != 0)
            break;
        started++;
    }
    worker(&e);
    for (size_t t = 1; t <= started; t++)
        pthread_join(th[t], NULL);
    free(th);
    pthread_mutex_destroy(&e.lock);

    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        findings_move(out, &e.per[i]);
        findings_free(&e.per[i]);
        if (e.rc[i] < 0 && rc == 0)
            rc = pgci_error_set(e.rc[i], "%s", e.why[i] ? e.why[i] : "failed");
        free(e.why[i]);
    }
    free(e.per);
    free(e.rc);
    free(e.why);
    return rc;
}
