/*
 * kpar.h - a parallel for over an index range, for the CPU reference and twins.
 *
 * The range is cut into one contiguous block per thread; each index is computed by
 * exactly one thread with the same arithmetic as a serial loop, so results are
 * bit-identical whatever the thread count. Small ranges run inline: tiny toy
 * models must stay fast and must not spawn threads.
 */
#ifndef PGCI_KERNELS_KPAR_H
#define PGCI_KERNELS_KPAR_H

#include <stddef.h>

typedef void (*kpar_fn)(void *ctx, size_t begin, size_t end);

/* Calls fn(ctx, b, e) over disjoint blocks covering [0, n). `cost` is a rough
 * number of operations per index; below about 2^22 operations in all the loop
 * runs on the calling thread. */
void kpar_for(size_t n, size_t cost, kpar_fn fn, void *ctx);

#endif
