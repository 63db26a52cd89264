/*
 * krng.h - the deterministic weight and input generator of the toy models.
 *
 * Counter-based, so any element can be computed on its own (and in parallel) and
 * the result never depends on the order of generation or the number of threads:
 *
 *   key      = splitmix64(seed) ^ fnv1a64(tensor name)
 *   word(i)  = splitmix64(key + i * 0x9E3779B97F4A7C15)
 *   u1       = ((word(2i) >> 11) + 0.5) / 2^53          in (0, 1)
 *   u2       =  (word(2i+1) >> 11) / 2^53               in [0, 1)
 *   normal_i = sqrt(-2 ln u1) * cos(2 pi u2)            (Box-Muller, double)
 *
 * and a tensor element is (float)(std * normal_i). The same recipe is written out
 * in docs/logits.md so another implementation can reproduce the weights.
 */
#ifndef PGCI_KERNELS_KRNG_H
#define PGCI_KERNELS_KRNG_H

#include <stddef.h>
#include <stdint.h>

uint64_t krng_splitmix64(uint64_t x);

/* The key of a named stream under a seed. */
uint64_t krng_key(uint64_t seed, const char *name);

/* The i-th standard normal of a stream. */
double krng_normal(uint64_t key, uint64_t i);

/* The i-th integer of a stream, uniform in [0, n) (n > 0). */
uint64_t krng_below(uint64_t key, uint64_t i, uint64_t n);

/* Fills out[0..n) with mean + std * normal(key, i), in parallel for large n. */
void krng_fill_normal(float *out, size_t n, uint64_t key, double mean, double std);

#endif
