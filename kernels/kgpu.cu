/*
 * kgpu.cu - the CUDA kernels, the GPU forward pass built from them, and the kernel
 * bandwidth benchmark.
 *
 * Every kernel's per-element arithmetic is a kmath.h function (the same one the
 * host twin in twin.c calls); what lives here is only what a GPU needs: launch
 * geometry, block reductions, shared memory and cuBLAS for the matrix products.
 * The forward pass launches the kernels in the order twin.c calls its twins.
 *
 * Activations and weights are stored as T: float (fp32 runs) or the bf16 bit
 * pattern in a uint16_t (bf16 runs; cuBLAS reads it as CUDA_R_16BF). Matrix
 * products always accumulate in fp32 into an fp32 scratch buffer; an epilogue
 * kernel adds the bias and stores the result as T once, as PyTorch's addmm does.
 * Host code reports CUDA and cuBLAS failures by throwing; the plugin's entry
 * points catch them and write the reason into the caller's buffer, and the Gpu
 * object frees everything.
 *
 * This file is built into the shared object pgci-cuda.so, which pgci loads only
 * when the GPU path is used (kgpu_load.c). It must not call into pgci: the one
 * symbol it exports is the entry point of kgpu_plugin.h, and besides the CUDA
 * libraries it uses only header-only helpers (kmath.h, kbreak.h) and the
 * definitions of the structs it shares with pgci.
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* pgci's headers are C: give their declarations C linkage before kgpu.h pulls
 * them in again (their include guards make the second inclusion empty). Only
 * struct definitions are used from them, never a function. */
extern "C" {
#include "kernels/model.h"
#include "kernels/twin.h"
}
#include "kernels/kbreak.h"
#include "kernels/kgpu.h"
#include "kernels/kgpu_plugin.h"
#include "kernels/kmath.h"

/* Kernel launches and dynamic shared memory go through these two macros so that
 * the CPU emulator of tests/gpu/emu (which defines its own) can run this file
 * unchanged in `make test`. */
#ifndef KLAUNCH
#define KLAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)
#define KDYN_SHARED(type, name) extern __shared__ type name[]
#endif

namespace
{

/* --- storage types -------------------------------------------------------------- */

template <typename T> struct Dt;
template <> struct Dt<float> {
    static const int bf16 = 0;
    static cudaDataType_t cuda()
    {
        return CUDA_R_32F;
    }
};
template <> struct Dt<uint16_t> {
    static const int bf16 = 1;
    static cudaDataType_t cuda()
    {
        return CUDA_R_16BF;
    }
};

__device__ __forceinline__ float ld(const float *p, size_t i)
{
    return p[i];
}
__device__ __forceinline__ float ld(const uint16_t *p, size_t i)
{
    return kmath_bf16_to_f32(p[i]);
}
/* v is already rounded by kmath_store() for bf16, so the conversion is exact. */
__device__ __forceinline__ void st(float *p, size_t i, float v)
{
    p[i] = v;
}
__device__ __forceinline__ void st(uint16_t *p, size_t i, float v)
{
    p[i] = kmath_bf16_bits(v);
}

/* --- block reductions (blockDim.x a multiple of 32, at most 1024) ---------------- */

__device__ float block_sum(float v, float *red)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    __syncthreads(); /* red[] may still be read from the previous reduction */
    if (lane == 0)
        red[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = lane < nw ? red[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0)
            red[0] = v;
    }
    __syncthreads();
    return red[0];
}

__device__ float block_max(float v, float *red)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    __syncthreads();
    if (lane == 0)
        red[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = lane < nw ? red[lane] : -INFINITY;
        for (int o = 16; o > 0; o >>= 1)
            v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0)
            red[0] = v;
    }
    __syncthreads();
    return red[0];
}

/* --- kernels -------------------------------------------------------------------- */

template <typename T>
__global__ void k_embed(const int *ids, const T *emb, T *h, size_t rows, int H)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * (size_t)H)
        return;
    size_t t = i / (size_t)H, c = i % (size_t)H;
    h[i] = emb[(size_t)ids[t] * (size_t)H + c];
}

/* One block per row: the sum of squares by block reduction, then each element. */
template <typename T>
__global__ void k_rmsnorm(const T *x, const T *w, T *out, int n, float eps, int one_plus)
{
    __shared__ float red[32];
    const T *xr = x + (size_t)blockIdx.x * (size_t)n;
    T *orow = out + (size_t)blockIdx.x * (size_t)n;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float v = ld(xr, (size_t)i);
        ss += v * v;
    }
    ss = block_sum(ss, red);
    float inv = kmath_rms_inv(ss, n, eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        st(orow, (size_t)i,
           kmath_rmsnorm_elem(ld(xr, (size_t)i), inv, ld(w, (size_t)i), one_plus, Dt<T>::bf16));
}

/* GEMM epilogue: the fp32 accumulator plus bias, stored once as T. */
template <typename T>
__global__ void k_epilogue(const float *acc, const T *bias, T *y, size_t rows, int cols)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * (size_t)cols)
        return;
    float v = acc[i];
    if (bias)
        v += ld(bias, i % (size_t)cols);
    st(y, i, kmath_store(v, Dt<T>::bf16));
}

/* One thread per rotated pair. */
template <typename T>
__global__ void k_rope(T *x, const int *pos, size_t rows, int heads, int hd, float theta, int brk)
{
    int half = hd / 2;
    size_t n = rows * (size_t)heads * (size_t)half;
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n)
        return;
    int i = (int)(g % (size_t)half);
    size_t th = g / (size_t)half; /* token * heads + head */
    size_t t = th / (size_t)heads;
    T *v = x + th * (size_t)hd;
    float ang = kmath_rope_angle(pos[t], i, hd, theta);
    int a = brk ? 2 * i : i, b = brk ? 2 * i + 1 : i + half;
    float o1, o2;
    kmath_rope_pair(ld(v, (size_t)a), ld(v, (size_t)b), cosf(ang), sinf(ang), Dt<T>::bf16, &o1,
                    &o2);
    st(v, (size_t)a, o1);
    st(v, (size_t)b, o2);
}

/* Causal GQA attention for small sequences: one block per (query, head, sequence).
 * Shared memory: the query vector, the row of scores, the reduction scratch. */
template <typename T>
__global__ void k_attention(const T *q, const T *k, const T *v, T *out, int seq, int nh, int nkv,
                            int hd, float scale, int brk)
{
    KDYN_SHARED(float, sm);
    float *qs = sm, *s = sm + hd, *red = s + seq;
    int i = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
    int kh = h / (nh / nkv);
    int last = brk && i + 1 < seq ? i + 1 : i;
    size_t qstride = (size_t)nh * hd, kstride = (size_t)nkv * hd;
    const T *qi = q + ((size_t)b * seq + i) * qstride + (size_t)h * hd;
    for (int d = threadIdx.x; d < hd; d += blockDim.x)
        qs[d] = ld(qi, (size_t)d);
    __syncthreads();
    float mx = -INFINITY;
    for (int j = threadIdx.x; j <= last; j += blockDim.x) {
        const T *kj = k + ((size_t)b * seq + j) * kstride + (size_t)kh * hd;
        float dot = 0.0f;
        for (int d = 0; d < hd; d++)
            dot += qs[d] * ld(kj, (size_t)d);
        s[j] = kmath_attn_score(dot, scale, Dt<T>::bf16);
        mx = fmaxf(mx, s[j]);
    }
    mx = block_max(mx, red);
    float sum = 0.0f;
    for (int j = threadIdx.x; j <= last; j += blockDim.x)
        sum += expf(s[j] - mx);
    sum = block_sum(sum, red);
    for (int j = threadIdx.x; j <= last; j += blockDim.x)
        s[j] = kmath_softmax_prob(s[j], mx, sum, Dt<T>::bf16);
    __syncthreads();
    T *oi = out + ((size_t)b * seq + i) * qstride + (size_t)h * hd;
    for (int d = threadIdx.x; d < hd; d += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j <= last; j++)
            acc += s[j] * ld(v, ((size_t)b * seq + j) * kstride + (size_t)kh * hd + d);
        st(oi, (size_t)d, kmath_store(acc, Dt<T>::bf16));
    }
}

template <typename T>
__global__ void k_swiglu(const T *gate, const T *up, T *out, size_t rows, int n, int ldin, int brk)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= rows * (size_t)n)
        return;
    size_t r = g / (size_t)n, i = g % (size_t)n;
    float a = ld(gate, r * (size_t)ldin + i), u = ld(up, r * (size_t)ldin + i);
    st(out, g, brk ? kmath_swiglu(u, a, Dt<T>::bf16) : kmath_swiglu(a, u, Dt<T>::bf16));
}

template <typename T> __global__ void k_add(T *h, const T *o, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        st(h, i, kmath_add(ld(h, i), ld(o, i), Dt<T>::bf16));
}

/* The router: one thread per token. */
template <typename T>
__global__ void k_route(const T *logits, size_t rows, int E, int K, int norm, int *idx, float *w)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= rows)
        return;
    float l[KMATH_MAX_EXPERTS];
    for (int e = 0; e < E; e++)
        l[e] = ld(logits, t * (size_t)E + (size_t)e);
    kmath_moe_route(l, E, K, norm, idx + t * (size_t)K, w + t * (size_t)K);
}

template <typename T>
__global__ void k_gather(const T *x, const int *tok, T *xe, size_t rows, int H)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= rows * (size_t)H)
        return;
    size_t r = g / (size_t)H, c = g % (size_t)H;
    xe[g] = x[(size_t)tok[r] * (size_t)H + c];
}

/* Adds one expert's weighted output into its tokens' rows (a token appears once
 * per expert, so there is no race; experts are launched one after another). */
template <typename T>
__global__ void k_combine(T *out, const T *y, const int *tok, const float *w, size_t rows, int H)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= rows * (size_t)H)
        return;
    size_t r = g / (size_t)H, c = g % (size_t)H;
    size_t o = (size_t)tok[r] * (size_t)H + c;
    st(out, o, kmath_moe_combine(ld(out, o), ld(y, g), w[r], Dt<T>::bf16));
}

/* Fused cross-entropy, one vocabulary chunk: one block per row merges the chunk's
 * (max, sum of exp) into the row's running pair and picks up the target logit. */
template <typename T>
__global__ void k_ce_chunk(const float *acc, const int *labels, int n, int v0, float *m, float *s,
                           float *tgt)
{
    __shared__ float red[32];
    int t = blockIdx.x;
    if (labels[t] < 0)
        return; /* the whole block returns together */
    const float *zr = acc + (size_t)t * (size_t)n;
    float cm = -INFINITY;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        cm = fmaxf(cm, kmath_store(zr[j], Dt<T>::bf16));
    cm = block_max(cm, red);
    float cs = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        cs += expf(kmath_store(zr[j], Dt<T>::bf16) - cm);
    cs = block_sum(cs, red);
    if (threadIdx.x == 0) {
        kmath_lse_merge(&m[t], &s[t], cm, cs);
        int want = labels[t];
        if (want >= v0 && want < v0 + n)
            tgt[t] = kmath_store(zr[want - v0], Dt<T>::bf16);
    }
}

__global__ void k_ce_init(float *m, float *s, float *tgt, size_t rows)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < rows) {
        m[t] = -INFINITY;
        s[t] = 0.0f;
        tgt[t] = 0.0f;
    }
}

__global__ void k_ce_final(const float *m, const float *s, const float *tgt, const int *labels,
                           float *loss, size_t rows)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < rows)
        loss[t] = labels[t] < 0 ? 0.0f : kmath_ce_row(m[t], s[t], tgt[t]);
}

template <typename T> __global__ void k_to_float(const T *x, float *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = ld(x, i);
}

/* --- host side ------------------------------------------------------------------ */

struct Fail : std::runtime_error {
    explicit Fail(const std::string &m) : std::runtime_error(m) {}
};

void ck(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        throw Fail(std::string(what) + ": " + cudaGetErrorString(e));
}

void ckb(cublasStatus_t e, const char *what)
{
    if (e != CUBLAS_STATUS_SUCCESS)
        throw Fail(std::string(what) + ": cuBLAS status " + std::to_string((int)e));
}

void launched(const char *what)
{
    ck(cudaGetLastError(), what);
}

unsigned blocks(size_t n, unsigned per = 256)
{
    size_t b = (n + per - 1) / per;
    if (b > 0x7fffffffu)
        throw Fail("launch too large");
    return (unsigned)(b ? b : 1);
}

/* Device memory and handles of one run; everything is freed by the destructor. */
struct Gpu {
    std::vector<void *> bufs;
    cublasHandle_t blas = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};

    ~Gpu()
    {
        for (void *p : bufs)
            cudaFree(p);
        if (blas)
            cublasDestroy(blas);
        for (cudaEvent_t e : ev)
            if (e)
                cudaEventDestroy(e);
    }
    template <typename U> U *alloc(size_t n)
    {
        void *p = nullptr;
        ck(cudaMalloc(&p, (n ? n : 1) * sizeof(U)), "cudaMalloc");
        bufs.push_back(p);
        return (U *)p;
    }
};

/* y[rows, out] = x[rows, in] W[out, in]^T into the fp32 accumulator. Row-major
 * operands are column-major transposes, so cuBLAS computes acc^T = W x^T. */
template <typename T>
void gemm(Gpu &g, const T *x, size_t rows, int in, const T *W, int out, float *acc)
{
    const float one = 1.0f, zero = 0.0f;
    ckb(cublasGemmEx(g.blas, CUBLAS_OP_T, CUBLAS_OP_N, out, (int)rows, in, &one, W, Dt<T>::cuda(),
                     in, x, Dt<T>::cuda(), in, &zero, acc, CUDA_R_32F, out, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

template <typename T>
void linear(Gpu &g, const T *x, size_t rows, int in, const T *W, const T *b, int out, float *acc,
            T *y)
{
    gemm(g, x, rows, in, W, out, acc);
    KLAUNCH(k_epilogue<T>, (blocks(rows * (size_t)out)), 256, 0, acc, b, y, rows, out);
    launched("epilogue kernel");
}

template <typename T>
void rmsnorm(const T *x, size_t rows, int n, const T *w, float eps, int one_plus, unsigned brk,
             T *out)
{
    int form = (brk & KBREAK_RMSNORM) ? !one_plus : one_plus;
    KLAUNCH(k_rmsnorm<T>, ((unsigned)rows), 256, 0, x, w, out, n, eps, form);
    launched("rmsnorm kernel");
}

template <typename T> void add(T *h, const T *o, size_t n)
{
    KLAUNCH(k_add<T>, (blocks(n)), 256, 0, h, o, n);
    launched("residual add kernel");
}

/* The model's weights on the device, as T, addressed by their host pointers. */
template <typename T> struct DevModel {
    std::vector<const float *> host;
    std::vector<T *> dev;

    void upload(Gpu &g, const model *m)
    {
        std::vector<T> tmp;
        for (size_t i = 0; i < m->n_tensors; i++) {
            const model_tensor *t = &m->tensors[i];
            tmp.resize(t->numel);
            for (size_t k = 0; k < t->numel; k++)
                tmp[k] = conv(t->data[k]);
            T *d = g.alloc<T>(t->numel);
            ck(cudaMemcpy(d, tmp.data(), t->numel * sizeof(T), cudaMemcpyHostToDevice),
               "weight upload");
            host.push_back(t->data);
            dev.push_back(d);
        }
    }
    static T conv(float v);
    const T *operator()(const float *h) const
    {
        if (!h)
            return nullptr;
        for (size_t i = 0; i < host.size(); i++)
            if (host[i] == h)
                return dev[i];
        throw Fail("internal: weight not uploaded");
    }
};
template <> float DevModel<float>::conv(float v)
{
    return v;
}
template <> uint16_t DevModel<uint16_t>::conv(float v)
{
    return kmath_bf16_bits(v);
}

template <typename T> struct Acts {
    T *h, *x, *q, *k, *v, *a, *o, *g, *u, *logits;
    float *acc, *hf;
    int *ids, *pos, *labels;
    /* MoE scratch, allocated once so no cudaMalloc lands in the timed forward */
    T *rl, *xe, *gu, *act, *y;
    int *idx, *tok;
    float *w, *tw;
};

template <typename T>
void moe_layer(Gpu &g, const model *m, const model_layer *L, const DevModel<T> &dm, const T *x,
               size_t rows, unsigned brk, Acts<T> &A, T *out)
{
    const toy_config *c = &m->cfg;
    int E = c->num_experts, K = c->top_k, H = c->hidden, I = c->moe_inter;
    int norm = (brk & KBREAK_MOE) ? !c->norm_topk_prob : c->norm_topk_prob;
    T *rl = A.rl;
    int *idx = A.idx;
    float *w = A.w;
    linear<T>(g, x, rows, H, dm(L->router_w), nullptr, E, A.acc, rl);
    KLAUNCH(k_route<T>, (blocks(rows, 128)), 128, 0, rl, rows, E, K, norm, idx, w);
    launched("router kernel");
    std::vector<int> hidx(rows * (size_t)K);
    std::vector<float> hw(rows * (size_t)K);
    ck(cudaMemcpy(hidx.data(), idx, hidx.size() * sizeof(int), cudaMemcpyDeviceToHost),
       "router download");
    ck(cudaMemcpy(hw.data(), w, hw.size() * sizeof(float), cudaMemcpyDeviceToHost),
       "router download");
    /* token lists per expert, ascending, as the twin builds them */
    std::vector<int> tok;
    std::vector<float> tw;
    std::vector<size_t> start(E + 1, 0);
    for (int e = 0; e < E; e++) {
        start[e] = tok.size();
        for (size_t t = 0; t < rows; t++)
            for (int j = 0; j < K; j++)
                if (hidx[t * K + j] == e) {
                    tok.push_back((int)t);
                    tw.push_back(hw[t * K + j]);
                }
    }
    start[E] = tok.size();
    int *dtok = A.tok; /* rows * K entries at most */
    float *dtw = A.tw;
    ck(cudaMemcpy(dtok, tok.data(), tok.size() * sizeof(int), cudaMemcpyHostToDevice), "upload");
    ck(cudaMemcpy(dtw, tw.data(), tw.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
    ck(cudaMemset(out, 0, rows * (size_t)H * sizeof(T)), "memset"); /* 0 in fp32 and bf16 */
    T *xe = A.xe;
    T *gu = A.gu;
    T *act = A.act;
    T *y = A.y;
    const T *Wgu = dm(L->exp_gate_up), *Wd = dm(L->exp_down);
    for (int e = 0; e < E; e++) {
        size_t n = start[e + 1] - start[e];
        if (!n)
            continue;
        const int *te = dtok + start[e];
        KLAUNCH(k_gather<T>, (blocks(n * (size_t)H)), 256, 0, x, te, xe, n, H);
        launched("gather kernel");
        linear<T>(g, xe, n, H, Wgu + (size_t)e * 2 * (size_t)I * (size_t)H, nullptr, 2 * I, A.acc,
                  gu);
        KLAUNCH(k_swiglu<T>, (blocks(n * (size_t)I)), 256, 0, gu, gu + I, act, n, I, 2 * I,
                (brk & KBREAK_SWIGLU) != 0);
        launched("swiglu kernel");
        linear<T>(g, act, n, I, Wd + (size_t)e * (size_t)H * (size_t)I, nullptr, H, A.acc, y);
        KLAUNCH(k_combine<T>, (blocks(n * (size_t)H)), 256, 0, out, y, te, dtw + start[e], n, H);
        launched("combine kernel");
    }
}

template <typename T>
void layer(Gpu &g, const model *m, const model_layer *L, const DevModel<T> &dm, int batch, int seq,
           unsigned brk, Acts<T> &A)
{
    const toy_config *c = &m->cfg;
    size_t rows = (size_t)batch * (size_t)seq;
    int H = c->hidden, hd = c->head_dim, qd = c->heads * hd, kvd = c->kv_heads * hd;
    float eps = (float)c->rms_eps, theta = (float)c->rope_theta;
    rmsnorm<T>(A.h, rows, H, dm(L->in_norm), eps, 0, brk, A.x);
    linear<T>(g, A.x, rows, H, dm(L->q_w), dm(L->q_b), qd, A.acc, A.q);
    linear<T>(g, A.x, rows, H, dm(L->k_w), dm(L->k_b), kvd, A.acc, A.k);
    linear<T>(g, A.x, rows, H, dm(L->v_w), dm(L->v_b), kvd, A.acc, A.v);
    if (c->qk_norm) {
        rmsnorm<T>(A.q, rows * (size_t)c->heads, hd, dm(L->q_norm), eps, 0, brk, A.q);
        rmsnorm<T>(A.k, rows * (size_t)c->kv_heads, hd, dm(L->k_norm), eps, 0, brk, A.k);
    }
    int rb = (brk & KBREAK_ROTARY) != 0;
    KLAUNCH(k_rope<T>, (blocks(rows * (size_t)c->heads * (size_t)(hd / 2))), 256, 0, A.q, A.pos,
            rows, c->heads, hd, theta, rb);
    launched("rotary kernel");
    KLAUNCH(k_rope<T>, (blocks(rows * (size_t)c->kv_heads * (size_t)(hd / 2))), 256, 0, A.k, A.pos,
            rows, c->kv_heads, hd, theta, rb);
    launched("rotary kernel");
    dim3 grid((unsigned)seq, (unsigned)c->heads, (unsigned)batch);
    size_t smem = ((size_t)hd + (size_t)seq + 32) * sizeof(float);
    KLAUNCH(k_attention<T>, grid, 128, smem, A.q, A.k, A.v, A.a, seq, c->heads, c->kv_heads, hd,
            kmath_attn_scale(hd), (brk & KBREAK_ATTENTION) != 0);
    launched("attention kernel");
    linear<T>(g, A.a, rows, qd, dm(L->o_w), dm(L->o_b), H, A.acc, A.o);
    add<T>(A.h, A.o, rows * (size_t)H);
    rmsnorm<T>(A.h, rows, H, dm(L->post_norm), eps, 0, brk, A.x);
    if (L->is_moe) {
        moe_layer<T>(g, m, L, dm, A.x, rows, brk, A, A.o);
    } else {
        linear<T>(g, A.x, rows, H, dm(L->gate_w), nullptr, c->inter, A.acc, A.g);
        linear<T>(g, A.x, rows, H, dm(L->up_w), nullptr, c->inter, A.acc, A.u);
        KLAUNCH(k_swiglu<T>, (blocks(rows * (size_t)c->inter)), 256, 0, A.g, A.u, A.g, rows,
                c->inter, c->inter, (brk & KBREAK_SWIGLU) != 0);
        launched("swiglu kernel");
        linear<T>(g, A.g, rows, c->inter, dm(L->down_w), nullptr, H, A.acc, A.o);
    }
    add<T>(A.h, A.o, rows * (size_t)H);
}

template <typename T>
void forward(const model *m, const int *ids, const int *labels_in, int batch, int seq, unsigned brk,
             kfwd_out *out)
{
    const toy_config *c = &m->cfg;
    Gpu g;
    ckb(cublasCreate(&g.blas), "cublasCreate");
    /* fp32 runs must not silently use TF32 tensor cores */
    ckb(cublasSetMathMode(g.blas, Dt<T>::bf16 ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH),
        "cublasSetMathMode");
    DevModel<T> dm;
    dm.upload(g, m);
    size_t rows = (size_t)batch * (size_t)seq, H = (size_t)c->hidden;
    size_t qd = (size_t)c->heads * (size_t)c->head_dim, kvd = (size_t)c->kv_heads * c->head_dim;
    size_t inter = (size_t)(c->inter > 2 * c->moe_inter ? c->inter : 2 * c->moe_inter);
    size_t widest = (size_t)c->vocab;
    size_t cols[] = {H, qd, inter, (size_t)c->num_experts, (size_t)KMATH_CE_CHUNK};
    for (size_t w : cols)
        widest = w > widest ? w : widest;
    Acts<T> A;
    A.h = g.alloc<T>(rows * H);
    A.x = g.alloc<T>(rows * H);
    A.q = g.alloc<T>(rows * qd);
    A.k = g.alloc<T>(rows * kvd);
    A.v = g.alloc<T>(rows * kvd);
    A.a = g.alloc<T>(rows * qd);
    A.o = g.alloc<T>(rows * H);
    A.g = g.alloc<T>(rows * (size_t)c->inter);
    A.u = g.alloc<T>(rows * (size_t)c->inter);
    A.logits = g.alloc<T>(rows * (size_t)c->vocab);
    A.acc = g.alloc<float>(rows * widest);
    A.hf = g.alloc<float>(rows * (widest > H ? widest : H));
    size_t E = (size_t)c->num_experts, K = (size_t)c->top_k, Im = (size_t)c->moe_inter;
    A.rl = g.alloc<T>(rows * E);
    A.idx = g.alloc<int>(rows * K);
    A.w = g.alloc<float>(rows * K);
    A.tok = g.alloc<int>(rows * K);
    A.tw = g.alloc<float>(rows * K);
    A.xe = g.alloc<T>(E ? rows * H : 0);
    A.gu = g.alloc<T>(rows * 2 * Im);
    A.act = g.alloc<T>(rows * Im);
    A.y = g.alloc<T>(E ? rows * H : 0);
    A.ids = g.alloc<int>(rows);
    A.pos = g.alloc<int>(rows);
    A.labels = g.alloc<int>(rows);
    std::vector<int> pos(rows), labels(labels_in, labels_in + rows);
    for (size_t t = 0; t < rows; t++)
        pos[t] = (int)(t % (size_t)seq);
    ck(cudaMemcpy(A.ids, ids, rows * sizeof(int), cudaMemcpyHostToDevice), "upload ids");
    ck(cudaMemcpy(A.pos, pos.data(), rows * sizeof(int), cudaMemcpyHostToDevice), "upload");
    ck(cudaMemcpy(A.labels, labels.data(), rows * sizeof(int), cudaMemcpyHostToDevice), "upload");
    float *m_run = g.alloc<float>(rows), *s_run = g.alloc<float>(rows);
    float *tgt = g.alloc<float>(rows), *loss = g.alloc<float>(rows);
    ck(cudaDeviceSynchronize(), "upload");

    ck(cudaEventCreate(&g.ev[0]), "cudaEventCreate");
    ck(cudaEventCreate(&g.ev[1]), "cudaEventCreate");
    /* Two identical passes, the second one timed: cuBLAS's first calls (heuristics,
     * workspace) must not count against the kernels. Results are the same bits. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            ck(cudaEventRecord(g.ev[0]), "cudaEventRecord");
        KLAUNCH(k_embed<T>, (blocks(rows * H)), 256, 0, A.ids, dm(m->embed), A.h, rows, (int)H);
        launched("embedding kernel");
        for (int l = 0; l < c->layers; l++) {
            layer<T>(g, m, &m->layers[l], dm, batch, seq, brk, A);
            KLAUNCH(k_to_float<T>, (blocks(rows * H)), 256, 0, A.h, A.hf, rows * H);
            launched("conversion kernel");
            ck(cudaMemcpy(out->hidden + (size_t)l * rows * H, A.hf, rows * H * sizeof(float),
                          cudaMemcpyDeviceToHost),
               "hidden state download");
        }
        rmsnorm<T>(A.h, rows, (int)H, dm(m->final_norm), (float)c->rms_eps, 0, brk, A.x);
        linear<T>(g, A.x, rows, (int)H, dm(m->lm_head), nullptr, c->vocab, A.acc, A.logits);
        /* fused linear cross-entropy over vocabulary chunks */
        KLAUNCH(k_ce_init, (blocks(rows)), 256, 0, m_run, s_run, tgt, rows);
        launched("cross-entropy init kernel");
        for (int v0 = 0; v0 < c->vocab; v0 += KMATH_CE_CHUNK) {
            int n = c->vocab - v0 < KMATH_CE_CHUNK ? c->vocab - v0 : KMATH_CE_CHUNK;
            gemm<T>(g, A.x, rows, (int)H, dm(m->lm_head) + (size_t)v0 * H, n, A.acc);
            KLAUNCH(k_ce_chunk<T>, ((unsigned)rows), 256, 0, A.acc, A.labels, n, v0, m_run, s_run,
                    tgt);
            launched("cross-entropy kernel");
        }
        KLAUNCH(k_ce_final, (blocks(rows)), 256, 0, m_run, s_run, tgt, A.labels, loss, rows);
        launched("cross-entropy final kernel");
    }
    ck(cudaEventRecord(g.ev[1]), "cudaEventRecord");
    KLAUNCH(k_to_float<T>, (blocks(rows * (size_t)c->vocab)), 256, 0, A.logits, A.hf,
            rows * (size_t)c->vocab);
    launched("conversion kernel");
    ck(cudaMemcpy(out->logits, A.hf, rows * (size_t)c->vocab * sizeof(float),
                  cudaMemcpyDeviceToHost),
       "logits download");
    std::vector<float> hl(rows);
    ck(cudaMemcpy(hl.data(), loss, rows * sizeof(float), cudaMemcpyDeviceToHost), "loss download");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, g.ev[0], g.ev[1]), "cudaEventElapsedTime");
    out->ms = ms;
    double total = 0;
    size_t count = 0;
    for (size_t t = 0; t < rows; t++)
        if (labels[t] >= 0) {
            total += hl[t];
            count++;
        }
    if (brk & KBREAK_CE)
        count = rows;
    out->loss = count ? total / (double)count : 0.0;
}

/* --- benchmark ------------------------------------------------------------------ */

template <typename F> double time_ms(F launch, int iters)
{
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
    for (int i = 0; i < 3; i++)
        launch();
    ck(cudaEventRecord(a), "cudaEventRecord");
    for (int i = 0; i < iters; i++)
        launch();
    ck(cudaEventRecord(b), "cudaEventRecord");
    ck(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms / iters;
}

void bench_row(kgpu_bench_row *r, const char *kernel, const char *shape, double bytes, double ms)
{
    snprintf(r->kernel, sizeof(r->kernel), "%s", kernel);
    snprintf(r->shape, sizeof(r->shape), "%s", shape);
    r->bytes = bytes;
    r->ms = ms;
    r->gbps = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
}

void bench(kgpu_bench_row *rows, int max_rows, int *n_rows)
{
    Gpu g;
    const size_t T = 16384, H = 4096, I = 14336, NH = 32, HD = 128;
    const int iters = 20;
    uint16_t *x = g.alloc<uint16_t>(T * I), *y = g.alloc<uint16_t>(T * I);
    uint16_t *z = g.alloc<uint16_t>(T * I), *w = g.alloc<uint16_t>(I);
    float *xf = g.alloc<float>(T * H), *yf = g.alloc<float>(T * H), *wf = g.alloc<float>(H);
    int *pos = g.alloc<int>(T);
    ck(cudaMemset(x, 0x3f, T * I * 2), "memset");
    ck(cudaMemset(y, 0x3f, T * I * 2), "memset");
    ck(cudaMemset(w, 0x3f, I * 2), "memset");
    ck(cudaMemset(xf, 0, T * H * 4), "memset");
    ck(cudaMemset(wf, 0, H * 4), "memset");
    ck(cudaMemset(pos, 0, T * 4), "memset");
    int n = 0;
    char shape[48];
    if (n < max_rows) {
        double ms = time_ms(
            [&] { KLAUNCH(k_rmsnorm<uint16_t>, ((unsigned)T), 256, 0, x, w, z, (int)H, 1e-6f, 0); },
            iters);
        launched("rmsnorm bench");
        snprintf(shape, sizeof(shape), "bf16 [%zu, %zu]", T, H);
        bench_row(&rows[n++], "rmsnorm", shape, 2.0 * T * H * 2 + H * 2, ms);
    }
    if (n < max_rows) {
        double ms = time_ms(
            [&] { KLAUNCH(k_rmsnorm<float>, ((unsigned)T), 256, 0, xf, wf, yf, (int)H, 1e-6f, 0); },
            iters);
        launched("rmsnorm bench");
        snprintf(shape, sizeof(shape), "fp32 [%zu, %zu]", T, H);
        bench_row(&rows[n++], "rmsnorm", shape, 2.0 * T * H * 4 + H * 4, ms);
    }
    if (n < max_rows) {
        double ms = time_ms(
            [&] {
                KLAUNCH(k_swiglu<uint16_t>, (blocks(T * I)), 256, 0, x, y, z, T, (int)I, (int)I, 0);
            },
            iters);
        launched("swiglu bench");
        snprintf(shape, sizeof(shape), "bf16 [%zu, %zu]", T, I);
        bench_row(&rows[n++], "swiglu", shape, 3.0 * T * I * 2, ms);
    }
    if (n < max_rows) {
        double ms = time_ms(
            [&] {
                KLAUNCH(k_rope<uint16_t>, (blocks(T * NH * (HD / 2))), 256, 0, x, pos, T, (int)NH,
                        (int)HD, 1e6f, 0);
            },
            iters);
        launched("rotary bench");
        snprintf(shape, sizeof(shape), "bf16 [%zu, %zu x %zu]", T, NH, HD);
        bench_row(&rows[n++], "rotary", shape, 2.0 * T * NH * HD * 2 + T * 4, ms);
    }
    if (n < max_rows) {
        double ms =
            time_ms([&] { KLAUNCH(k_add<uint16_t>, (blocks(T * H)), 256, 0, y, x, T * H); }, iters);
        launched("add bench");
        snprintf(shape, sizeof(shape), "bf16 [%zu, %zu]", T, H);
        bench_row(&rows[n++], "residual_add", shape, 3.0 * T * H * 2, ms);
    }
    if (n < max_rows) {
        double ms = time_ms(
            [&] { KLAUNCH(k_epilogue<uint16_t>, (blocks(T * H)), 256, 0, xf, w, z, T, (int)H); },
            iters);
        launched("epilogue bench");
        snprintf(shape, sizeof(shape), "fp32->bf16 [%zu, %zu]", T, H);
        bench_row(&rows[n++], "gemm_epilogue", shape, T * H * 4.0 + T * H * 2.0 + H * 2.0, ms);
    }
    ck(cudaDeviceSynchronize(), "benchmark");
    *n_rows = n;
}

} // namespace

/* --- the plugin's entry points (kgpu_plugin.h) ----------------------------------- */

namespace
{

int plugin_probe(char *why, size_t why_len, char *name, size_t name_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (name && name_len)
        name[0] = '\0';
    if (e != cudaSuccess || n == 0) {
        if (why && why_len)
            snprintf(why, why_len, "no CUDA device (%s)",
                     e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 0;
    }
    cudaDeviceProp p;
    if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) {
        if (why && why_len)
            snprintf(why, why_len, "cannot query CUDA device 0: %s", cudaGetErrorString(e));
        return 0;
    }
    if (name && name_len)
        snprintf(name, name_len, "%s", p.name);
    if (p.major < 9) {
        if (why && why_len)
            snprintf(why, why_len,
                     "CUDA device 0 (%s) has compute capability %d.%d; the kernels are built "
                     "for sm_90",
                     p.name, p.major, p.minor);
        return 0;
    }
    return 1;
}

void say(char *err, size_t err_len, const char *what)
{
    if (err && err_len)
        snprintf(err, err_len, "%s", what);
}

int plugin_forward(const model *m, const int *ids, const int *labels, int batch, int seq, int bf16,
                   unsigned brk, kfwd_out *out, char *err, size_t err_len)
{
    try {
        if (bf16)
            forward<uint16_t>(m, ids, labels, batch, seq, brk, out);
        else
            forward<float>(m, ids, labels, batch, seq, brk, out);
    } catch (const std::exception &ex) {
        say(err, err_len, ex.what());
        return -1;
    }
    return 0;
}

int plugin_bench(kgpu_bench_row *rows, int max_rows, int *n_rows, double *peak_gbps, char *err,
                 size_t err_len)
{
    *n_rows = 0;
    *peak_gbps = 0;
    try {
        int clk = 0, bus = 0;
        ck(cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0), "memory clock");
        ck(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0), "bus width");
        /* kHz x 1000 x 2 (double data rate) x bytes per transfer */
        *peak_gbps = 2.0 * clk * 1e3 * (bus / 8.0) / 1e9;
        bench(rows, max_rows, n_rows);
    } catch (const std::exception &ex) {
        say(err, err_len, ex.what());
        return -1;
    }
    return 0;
}

const kgpu_plugin table = {
    KGPU_PLUGIN_ABI,      (unsigned)sizeof(kgpu_plugin),
    sizeof(model),        sizeof(model_layer),
    sizeof(model_tensor), sizeof(toy_config),
    sizeof(kfwd_out),     sizeof(kgpu_bench_row),
    plugin_probe,         plugin_forward,
    plugin_bench,
};

} // namespace

/* The one exported symbol (the plugin is built with hidden visibility). */
extern "C" __attribute__((visibility("default"))) const kgpu_plugin *pgci_cuda_plugin_entry(void)
{
    return &table;
}
