/*
 * par.h - a loop over independent items on worker threads.
 *
 *     size_t nw = par_workers(n, jobs);   // to size per-worker state
 *     par_for(n, jobs, fn, arg);          // fn(arg, worker, i) for every i < n
 *
 * Items are handed out in order to whichever worker is free; the calling thread
 * is one of the workers, and when no thread can be started it does all the work
 * itself. `worker` is in [0, par_workers(n, jobs)) and no two calls with the same
 * worker run at once, so per-worker state (an evaluator, a parser) needs no lock.
 */
#ifndef PGCI_CORE_PAR_H
#define PGCI_CORE_PAR_H

#include <stddef.h>

typedef void (*par_fn)(void *arg, size_t worker, size_t i);

/* How many workers par_for(n, jobs, ...) uses at most: jobs (at least 1), no more
 * than n (at least 1). */
size_t par_workers(size_t n, int jobs);

/* Calls fn(arg, worker, i) for every i in [0, n) and returns when all are done. */
void par_for(size_t n, int jobs, par_fn fn, void *arg);

#endif
