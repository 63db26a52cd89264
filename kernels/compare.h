/*
 * compare.h - how close a kernel forward pass is to the reference, and whether
 * that is close enough.
 *
 * Errors are measured against the scale of the reference tensor, not element by
 * element (an element near zero would make any relative error meaningless):
 *
 *   max_abs = max |got - ref|
 *   max_rel = max_abs / max |ref|
 *   rel_l2  = |got - ref| / |ref|            (Euclidean norms over the tensor)
 *   cosine  = <got, ref> / (|got| |ref|)
 *
 * A NaN or infinity on either side fails, whatever the numbers say.
 *
 * Tolerances (documented in docs/logits.md):
 *   fp32: max_rel <= 1e-4, rel_l2 <= 5e-5, cosine >= 0.999999, loss_rel <= 1e-5
 *   bf16: max_rel <= 0.25, rel_l2 <= 5e-2, cosine >= 0.998,    loss_rel <= 2e-3
 * fp32 only differs from the double reference by the order of fp32 sums. bf16
 * also flips roundings (one bf16 ulp is 2^-8 = 0.4%) wherever an fp32 sum lands
 * on the other side of a rounding boundary; flips propagate through the layers,
 * and in a MoE layer a flip can change which expert a token is routed to, which
 * moves that token's output a lot while leaving the tensor as a whole close: hence
 * the loose max_rel and the tighter aggregate rel_l2 for bf16. fp32 is the strict
 * check; bf16 proves the bf16 storage path is sane.
 */
#ifndef PGCI_KERNELS_COMPARE_H
#define PGCI_KERNELS_COMPARE_H

#include <stddef.h>

typedef struct kcmp_stats {
    double max_abs, max_rel, rel_l2, cosine;
    double ref_scale; /* max |ref| */
    size_t nonfinite; /* NaN or infinity in either tensor */
} kcmp_stats;

typedef struct kcmp_tol {
    double max_rel, rel_l2, min_cos, loss_rel;
} kcmp_tol;

/* Compares got[0..n) with ref[0..n). */
void kcmp_tensor(const double *ref, const float *got, size_t n, kcmp_stats *st);

/* The tolerance for a dtype (bf16 = 0: fp32). */
const kcmp_tol *kcmp_tolerance(int bf16);

/* 1 when the stats are within the tolerance and everything is finite. */
int kcmp_ok(const kcmp_stats *st, const kcmp_tol *tol);

/* Relative difference of two losses (|got - ref| / max(|ref|, 1e-12)); a
 * non-finite loss gives infinity. */
double kcmp_loss_rel(double ref, double got);

#endif
