/*
 * cublas_v2.h (CPU emulator) - cublasGemmEx as its documentation defines it, for
 * running kernels/kgpu.cu on the CPU in tests (see cuda_runtime.h here).
 *
 * Column-major: C[i + j*ldc] = alpha * sum_l op(A)[i, l] * op(B)[l, j] + beta * C,
 * op(X) = X (CUBLAS_OP_N, X[i + l*ld]) or X^T (CUBLAS_OP_T, X[l + i*ld]); fp32
 * accumulation; bf16 operands as bit patterns. Written from the contract, not from
 * kgpu.cu, so it checks the row-major/column-major mapping kgpu.cu relies on.
 */
#ifndef PGCI_TEST_CUBLAS_EMU_H
#define PGCI_TEST_CUBLAS_EMU_H

#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"

typedef struct emu_cublas *cublasHandle_t;
typedef int cublasStatus_t;
enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_NOT_SUPPORTED = 15
};
enum cublasOperation_t { CUBLAS_OP_N, CUBLAS_OP_T };
enum cublasComputeType_t { CUBLAS_COMPUTE_32F };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT };
enum cublasMath_t { CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH };
struct emu_cublas {
    int math;
};

inline cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    *h = new emu_cublas{0};
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m)
{
    h->math = m;
    return CUBLAS_STATUS_SUCCESS;
}

inline float emu_load(const void *p, cudaDataType_t t, size_t i)
{
    if (t == CUDA_R_32F)
        return ((const float *)p)[i];
    uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

inline cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, const void *alpha, const void *A,
                                   cudaDataType_t at, int lda, const void *B, cudaDataType_t bt,
                                   int ldb, const void *beta, void *C, cudaDataType_t ct, int ldc,
                                   cublasComputeType_t, cublasGemmAlgo_t)
{
    if (ct != CUDA_R_32F || m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    /* leading dimensions must cover the stored matrices */
    if (lda < (ta == CUBLAS_OP_N ? m : k) || ldb < (tb == CUBLAS_OP_N ? k : n) || ldc < m)
        return CUBLAS_STATUS_INVALID_VALUE;
    float al = *(const float *)alpha, be = *(const float *)beta;
    float *c = (float *)C;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float acc = 0;
            for (int l = 0; l < k; l++) {
                size_t ai =
                    ta == CUBLAS_OP_N ? (size_t)i + (size_t)l * lda : (size_t)l + (size_t)i * lda;
                size_t bi =
                    tb == CUBLAS_OP_N ? (size_t)l + (size_t)j * ldb : (size_t)j + (size_t)l * ldb;
                acc += emu_load(A, at, ai) * emu_load(B, bt, bi);
            }
            size_t ci = (size_t)i + (size_t)j * ldc;
            c[ci] = al * acc + (be != 0 ? be * c[ci] : 0.0f);
        }
    return CUBLAS_STATUS_SUCCESS;
}

#endif
