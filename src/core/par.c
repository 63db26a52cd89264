/*
 * par.c - see par.h.
 */
#include "core/par.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/strbuf.h"

typedef struct par {
    size_t n;
    par_fn fn;
    void *arg;
    pthread_mutex_t lock;
    size_t next;
} par;

typedef struct par_worker {
    par *p;
    size_t id;
} par_worker;

static void *run(void *v)
{
    par_worker *w = v;
    par *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        p->fn(p->arg, w->id, i);
    }
}

size_t par_workers(size_t n, int jobs)
{
    size_t nw = jobs > 1 ? (size_t)jobs : 1;
    return nw > n ? (n ? n : 1) : nw;
}

void par_for(size_t n, int jobs, par_fn fn, void *arg)
{
    if (!n)
        return;
    par p = {.n = n, .fn = fn, .arg = arg, .next = 0};
    pthread_mutex_init(&p.lock, NULL);
    size_t nw = par_workers(n, jobs);
    pthread_t *th = pgci_calloc(nw, sizeof(*th));
    par_worker *ws = pgci_calloc(nw, sizeof(*ws));
    size_t started = 1; /* the calling thread is worker 0 */
    for (size_t t = 0; t < nw; t++)
        ws[t] = (par_worker){&p, t};
    while (started < nw && pthread_create(&th[started], NULL, run, &ws[started]) == 0)
        started++;
    run(&ws[0]);
    for (size_t t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    free(ws);
    free(th);
    pthread_mutex_destroy(&p.lock);
}
