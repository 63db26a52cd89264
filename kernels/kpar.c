#include "kernels/kpar.h"

#include <pthread.h>
#include <unistd.h>

#define KPAR_MAX_THREADS 64

struct kpar_job {
    kpar_fn fn;
    void *ctx;
    size_t begin, end;
};

static void *kpar_run(void *arg)
{
    struct kpar_job *j = arg;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

void kpar_for(size_t n, size_t cost, kpar_fn fn, void *ctx)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = ncpu > 1 ? (size_t)ncpu : 1;
    if (nt > KPAR_MAX_THREADS)
        nt = KPAR_MAX_THREADS;
    if (nt > n)
        nt = n;
    if (nt <= 1 || n * (cost ? cost : 1) < ((size_t)1 << 22)) {
        if (n)
            fn(ctx, 0, n);
        return;
    }
    pthread_t th[KPAR_MAX_THREADS];
    struct kpar_job jobs[KPAR_MAX_THREADS];
    int started[KPAR_MAX_THREADS] = {0};
    size_t per = (n + nt - 1) / nt;
    for (size_t t = 0; t < nt; t++) {
        size_t b = t * per, e = b + per > n ? n : b + per;
        jobs[t] = (struct kpar_job){fn, ctx, b < n ? b : n, e};
        if (t > 0 && jobs[t].begin < jobs[t].end)
            started[t] = pthread_create(&th[t], NULL, kpar_run, &jobs[t]) == 0;
    }
    /* The calling thread does block 0, and any block whose thread failed to start. */
    kpar_run(&jobs[0]);
    for (size_t t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else if (jobs[t].begin < jobs[t].end)
            kpar_run(&jobs[t]);
    }
}
