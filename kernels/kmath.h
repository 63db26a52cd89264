/*
 * kmath.h - the per-element math of every kernel, shared by the CUDA kernels
 * (the kernels/ .cu files) and their host twins (kernels/twin.c).
 *
 * Why one header: the GPU kernels cannot run in `make test` on a machine without a
 * GPU, but their arithmetic can. Everything a kernel computes per element (the
 * RMSNorm scale, SiLU, the rotary pair, the attention score, the online softmax
 * merge, the MoE router) is written once here, as plain C that nvcc compiles as
 * __host__ __device__ and gcc compiles as static inline. The GPU-only parts (launch
 * geometry, reductions, shared memory, cuBLAS) stay in the .cu files.
 *
 * The `bf16` arguments make every function follow HuggingFace's eager order of
 * roundings when tensors are stored in bfloat16: each op computes in fp32 and the
 * result is rounded to bf16 (round to nearest even) where PyTorch would store it.
 * With bf16 == 0 nothing is rounded and the math is plain fp32.
 *
 * The reference model (kernels/reference.c) deliberately does NOT use this header:
 * a mistake here must show up as a difference, not be shared by both sides.
 */
#ifndef PGCI_KERNELS_KMATH_H
#define PGCI_KERNELS_KMATH_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define KMATH_FN static __host__ __device__ __forceinline__
#else
#define KMATH_FN static inline
#endif

/* The largest expert count the router handles (a per-thread array on the GPU). */
#define KMATH_MAX_EXPERTS 512

/* --- bfloat16 ------------------------------------------------------------------- */

KMATH_FN uint32_t kmath_f32_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } v;
    v.f = f;
    return v.u;
}

KMATH_FN float kmath_f32_from_bits(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } v;
    v.u = u;
    return v.f;
}

/* The bf16 bit pattern nearest to x (round to nearest, ties to even; NaN stays a
 * quiet NaN). Infinities and overflow to infinity behave as in PyTorch. */
KMATH_FN uint16_t kmath_bf16_bits(float x)
{
    uint32_t u = kmath_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* A bf16 bit pattern as fp32 (exact). */
KMATH_FN float kmath_bf16_to_f32(uint16_t b)
{
    return kmath_f32_from_bits((uint32_t)b << 16);
}

/* x rounded to the nearest bf16 value, kept in fp32. */
KMATH_FN float kmath_bf16_round(float x)
{
    return kmath_bf16_to_f32(kmath_bf16_bits(x));
}

/* What storing x in the activation dtype keeps: itself in fp32, its bf16 rounding
 * in bf16. */
KMATH_FN float kmath_store(float x, int bf16)
{
    return bf16 ? kmath_bf16_round(x) : x;
}

/* --- RMSNorm -------------------------------------------------------------------- */

/* 1 / sqrt(mean(x^2) + eps) from the sum of squares of n fp32 values. */
KMATH_FN float kmath_rms_inv(float sumsq, int n, float eps)
{
    return 1.0f / sqrtf(sumsq / (float)n + eps);
}

/* One normalised element. Standard form (Llama, Qwen): the normalised value is
 * cast to the activation dtype first, then multiplied by the weight. The `1 +
 * weight` form (Gemma, Qwen3-Next) multiplies in fp32 by (1 + w) and casts once. */
KMATH_FN float kmath_rmsnorm_elem(float x, float inv, float w, int one_plus, int bf16)
{
    if (one_plus)
        return kmath_store(x * inv * (1.0f + w), bf16);
    return kmath_store(kmath_store(x * inv, bf16) * w, bf16);
}

/* --- SwiGLU --------------------------------------------------------------------- */

KMATH_FN float kmath_silu(float g)
{
    return g / (1.0f + expf(-g));
}

/* down_proj's input: act(gate) is stored, then multiplied by up and stored. */
KMATH_FN float kmath_swiglu(float gate, float up, int bf16)
{
    return kmath_store(kmath_store(kmath_silu(gate), bf16) * up, bf16);
}

/* Residual add (and any elementwise a + b stored in the activation dtype). */
KMATH_FN float kmath_add(float a, float b, int bf16)
{
    return kmath_store(a + b, bf16);
}

/* --- rotary embedding (full head dim, rotate_half layout) ------------------------ */

/* inv_freq[i] = 1 / theta^(2i/dim), in fp32 as HuggingFace computes it. */
KMATH_FN float kmath_rope_inv_freq(int i, int dim, float theta)
{
    return 1.0f / powf(theta, (float)(2 * i) / (float)dim);
}

/* The angle of pair i at a position: position * inv_freq in fp32. */
KMATH_FN float kmath_rope_angle(int pos, int i, int dim, float theta)
{
    return (float)pos * kmath_rope_inv_freq(i, dim, theta);
}

/* Rotates the pair (x1 = x[i], x2 = x[i + dim/2]) by an angle whose cos and sin
 * are given (rounded to the activation dtype here, as HF casts cos/sin to the
 * input dtype): q*cos + rotate_half(q)*sin with rotate_half = cat(-x2, x1). */
KMATH_FN void kmath_rope_pair(float x1, float x2, float c, float s, int bf16, float *o1, float *o2)
{
    c = kmath_store(c, bf16);
    s = kmath_store(s, bf16);
    *o1 = kmath_store(kmath_store(x1 * c, bf16) + kmath_store(-x2 * s, bf16), bf16);
    *o2 = kmath_store(kmath_store(x2 * c, bf16) + kmath_store(x1 * s, bf16), bf16);
}

/* --- attention ------------------------------------------------------------------ */

/* The attention scaling head_dim^-0.5, as PyTorch applies a Python float to an
 * fp32/bf16 tensor: computed in double, used in fp32. */
KMATH_FN float kmath_attn_scale(int head_dim)
{
    return (float)(1.0 / sqrt((double)head_dim));
}

/* A score from the fp32 dot product q.k: matmul output stored, times the scaling,
 * stored again (eager attention's `matmul(q, k^T) * scaling`). */
KMATH_FN float kmath_attn_score(float dot, float scale, int bf16)
{
    return kmath_store(kmath_store(dot, bf16) * scale, bf16);
}

/* One softmax probability from the row max and the row's sum of exp(s - max),
 * computed in fp32 and stored in the activation dtype. */
KMATH_FN float kmath_softmax_prob(float s, float row_max, float row_sum, int bf16)
{
    return kmath_store(expf(s - row_max) / row_sum, bf16);
}

/* Vocabulary entries per chunk of the fused cross-entropy (twin and GPU alike). */
#define KMATH_CE_CHUNK 8192

/* --- online log-sum-exp (softmax rows, fused cross-entropy) --------------------- */

/* Merges a running (max, sum of exp(x - max)) with another such pair. A pair with
 * sum 0 is empty. */
KMATH_FN void kmath_lse_merge(float *m, float *s, float m2, float s2)
{
    if (s2 == 0.0f)
        return;
    if (*s == 0.0f) {
        *m = m2;
        *s = s2;
        return;
    }
    float mm = fmaxf(*m, m2);
    *s = *s * expf(*m - mm) + s2 * expf(m2 - mm);
    *m = mm;
}

/* Adds one value x to a running (max, sum). */
KMATH_FN void kmath_lse_push(float *m, float *s, float x)
{
    kmath_lse_merge(m, s, x, 1.0f);
}

/* Cross-entropy of one row: log-sum-exp minus the target's logit. */
KMATH_FN float kmath_ce_row(float m, float s, float target_logit)
{
    return m + logf(s) - target_logit;
}

/* --- mixture of experts --------------------------------------------------------- */

/* The Qwen3-MoE router for one token: softmax over E logits in fp32, the top k
 * (ties to the lower index), renormalised to sum 1 when norm_topk_prob. The
 * weights stay fp32 (transformers v5 keeps the router's float dtype). */
KMATH_FN void kmath_moe_route(const float *logits, int n_experts, int k, int norm_topk, int *idx,
                              float *w)
{
    float m = -INFINITY, sum = 0.0f;
    for (int e = 0; e < n_experts; e++)
        m = fmaxf(m, logits[e]);
    for (int e = 0; e < n_experts; e++)
        sum += expf(logits[e] - m);
    float picked_sum = 0.0f;
    for (int j = 0; j < k; j++) {
        int best = -1;
        float bv = -INFINITY;
        for (int e = 0; e < n_experts; e++) {
            int taken = 0;
            for (int t = 0; t < j; t++)
                taken |= idx[t] == e;
            float p = expf(logits[e] - m) / sum;
            if (!taken && (best < 0 || p > bv)) {
                best = e;
                bv = p;
            }
        }
        idx[j] = best;
        w[j] = bv;
        picked_sum += bv;
    }
    if (norm_topk)
        for (int j = 0; j < k; j++)
            w[j] /= picked_sum;
}

/* Adds one expert's output for a token into the running sum: out * weight is
 * computed in fp32 and stored, then accumulated in the activation dtype (HF's
 * index_add_ into a tensor of the hidden dtype, expert by expert). */
KMATH_FN float kmath_moe_combine(float acc, float out, float weight, int bf16)
{
    return kmath_store(acc + kmath_store(out * weight, bf16), bf16);
}

#endif
