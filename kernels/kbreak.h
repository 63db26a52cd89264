/*
 * kbreak.h - deliberately wrong kernel variants, for proving the check can fail.
 *
 * A test (or PGCI_TEST_BREAK_KERNEL=rmsnorm,rotary in the environment of `pgci
 * logits`) selects variants with plausible real-world bugs; the host twins and the
 * CUDA kernels both honour the mask, and the comparison must then fail:
 *
 *   rmsnorm    the (1 + weight) form where the standard one is meant (and back)
 *   swiglu     SiLU applied to up instead of gate
 *   rotary     interleaved pairs (x[2i], x[2i+1]) instead of rotate_half
 *   attention  the causal mask lets each token see the next one
 *   moe        norm_topk_prob ignored (top-k weights not renormalised)
 *   ce         the mean taken over every token, ignored (-100) labels included
 */
#ifndef PGCI_KERNELS_KBREAK_H
#define PGCI_KERNELS_KBREAK_H

enum {
    KBREAK_RMSNORM = 1u << 0,
    KBREAK_SWIGLU = 1u << 1,
    KBREAK_ROTARY = 1u << 2,
    KBREAK_ATTENTION = 1u << 3,
    KBREAK_MOE = 1u << 4,
    KBREAK_CE = 1u << 5,
};

#endif
