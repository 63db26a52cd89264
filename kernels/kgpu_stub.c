/* kgpu_stub.c - the GPU path when pgci is built without nvcc: always absent. */
#ifndef PGCI_HAVE_CUDA

#include "kernels/kgpu.h"

#include <stdio.h>

#include "core/error.h"

int kgpu_probe(char *why, size_t why_len, char *name, size_t name_len)
{
    if (why && why_len)
        snprintf(why, why_len, "pgci was built without CUDA (no nvcc at build time)");
    if (name && name_len)
        name[0] = '\0';
    return 0;
}

int kgpu_forward(const model *m, const int *ids, int batch, int seq, int bf16, unsigned brk,
                 kfwd_out *out)
{
    (void)m, (void)ids, (void)batch, (void)seq, (void)bf16, (void)brk, (void)out;
    return pgci_error_set(PGCI_EUNSUPPORTED, "pgci was built without CUDA (no nvcc at build time)");
}

int kgpu_bench(kgpu_bench_row *rows, int max_rows, int *n_rows, double *peak_gbps)
{
    (void)rows, (void)max_rows, (void)peak_gbps;
    *n_rows = 0;
    return pgci_error_set(PGCI_EUNSUPPORTED, "pgci was built without CUDA (no nvcc at build time)");
}

#else
/* ISO C forbids an empty translation unit. */
typedef int kgpu_stub_unused;
#endif
