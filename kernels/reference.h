/*
 * reference.h - the plain C reference forward pass of the toy models.
 *
 * It follows transformers' eager implementation op by op (the same order of
 * operations, the same places where values are stored), accumulating every sum in
 * double. With bf16 set it rounds to bf16 exactly where PyTorch stores a bf16
 * tensor; without it nothing is rounded at all. It shares no code with the
 * kernels or their twins (kmath.h): a mistake in either shows up as a difference.
 *
 * Activations are row-major [T, features] with T = batch * seq tokens; the
 * sequences of a batch are independent (positions 0..seq-1 each).
 */
#ifndef PGCI_KERNELS_REFERENCE_H
#define PGCI_KERNELS_REFERENCE_H

#include <stddef.h>

#include "kernels/model.h"

typedef struct kref_out {
    int T, H, V, L;
    double *logits; /* [T, V] */
    double *hidden; /* [L, T, H]: the residual stream after each layer */
    double loss;    /* mean next-token cross-entropy over the batch */
} kref_out;

/* Runs the model on ids[batch * seq]. */
int kref_forward(const model *m, const int *ids, int batch, int seq, int bf16, kref_out *out);

void kref_out_free(kref_out *out);

/* --- single ops (the forward pass is made of these; the unit tests use them) ---- */

/* x rounded to the nearest bf16 value (ties to even) when bf16, else x. */
double kref_store(double x, int bf16);

/* RMSNorm over rows of n; `one_plus` selects the (1 + weight) form. */
void kref_rmsnorm(const double *x, size_t rows, int n, const float *w, double eps, int one_plus,
                  int bf16, double *out);

/* y[T, out] = x[T, in] W[out, in]^T (+ b). */
void kref_linear(const double *x, size_t T, int in, const float *W, const float *b, int out,
                 int bf16, double *y);

/* Rotary embedding in place on x[T, heads * hd]; token t has position pos[t]. */
void kref_rope(double *x, size_t T, int heads, int hd, const int *pos, double theta, int bf16);

/* Causal grouped-query attention: q[T, nh*hd], k and v [T, nkv*hd], out [T, nh*hd]. */
void kref_attention(const double *q, const double *k, const double *v, int batch, int seq, int nh,
                    int nkv, int hd, int bf16, double *out);

/* out = act(gate) * up over rows of n; gate and up rows are `ld` apart. */
void kref_swiglu(const double *gate, const double *up, size_t rows, int n, int ld, int bf16,
                 double *out);

/* The Qwen3-MoE sparse block of one layer on x[T, H]. */
void kref_moe(const double *x, size_t T, const toy_config *c, const model_layer *L, int bf16,
              double *out);

/* Mean cross-entropy of logits[T, V] against labels (-100: ignored). */
double kref_cross_entropy(const double *logits, size_t T, int V, const int *labels);

/* Next-token labels: ids shifted left within each sequence, -100 at the end. */
void kref_labels(const int *ids, int batch, int seq, int *labels);

#endif
