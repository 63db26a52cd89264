/*
 * twin.h - host twins of the CUDA kernels, and the forward pass built from them.
 *
 * Each twin runs the per-element math of its kernel (kmath.h, the same header the
 * .cu file includes) over the same data layout, with the loops a GPU would run in
 * parallel written as plain loops; matrix products accumulate in fp32 like
 * cuBLAS's fp32 compute type. The forward pass calls the ops in the order the GPU
 * forward does, so `make test` exercises every kernel's arithmetic without a GPU.
 * `brk` is a KBREAK_* mask (kbreak.h) selecting deliberately wrong variants.
 */
#ifndef PGCI_KERNELS_TWIN_H
#define PGCI_KERNELS_TWIN_H

#include <stddef.h>

#include "kernels/kbreak.h"
#include "kernels/model.h"

/* What a kernel forward pass (host twin or GPU) returns, in fp32. */
typedef struct kfwd_out {
    int T, H, V, L;
    float *logits; /* [T, V] */
    float *hidden; /* [L, T, H] */
    double loss;   /* mean next-token cross-entropy, from the fused kernel */
    double ms;     /* wall time of the forward pass (without weight upload) */
} kfwd_out;

/* Allocates the arrays of out for a model and token count. */
int kfwd_out_alloc(kfwd_out *out, const toy_config *c, size_t T);
void kfwd_out_free(kfwd_out *out);

/* Parses "rmsnorm,rotary" into a KBREAK_* mask; unknown names are an error. */
int kbreak_parse(const char *s, unsigned *mask);

/* The whole forward pass from the twins. */
int ktwin_forward(const model *m, const int *ids, int batch, int seq, int bf16, unsigned brk,
                  kfwd_out *out);

/* --- the twins, one per kernel ------------------------------------------------- */

void ktwin_rmsnorm(const float *x, size_t rows, int n, const float *w, float eps, int one_plus,
                   int bf16, unsigned brk, float *out);
void ktwin_linear(const float *x, size_t T, int in, const float *W, const float *b, int out,
                  int bf16, float *y);
void ktwin_rope(float *x, size_t T, int heads, int hd, const int *pos, float theta, int bf16,
                unsigned brk);
void ktwin_attention(const float *q, const float *k, const float *v, int batch, int seq, int nh,
                     int nkv, int hd, int bf16, unsigned brk, float *out);
void ktwin_swiglu(const float *gate, const float *up, size_t rows, int n, int ld, int bf16,
                  unsigned brk, float *out);
void ktwin_add(float *h, const float *o, size_t n, int bf16);
void ktwin_moe(const float *x, size_t T, const toy_config *c, const model_layer *L, int bf16,
               unsigned brk, float *out);
/* Fused linear cross-entropy: the loss of logits = x W^T against labels without
 * materialising more than one vocabulary chunk per row. Returns the mean loss. */
double ktwin_fused_ce(const float *x, size_t T, int H, const float *W, int V, const int *labels,
                      int bf16, unsigned brk);

#endif
