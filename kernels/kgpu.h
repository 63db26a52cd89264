/*
 * kgpu.h - the CUDA forward pass and kernel benchmark, behind a C interface.
 *
 * The kernels (kgpu.cu) live in a plugin, pgci-cuda.so, built by nvcc when it
 * exists; these functions (kgpu_load.c, which says where the plugin is looked
 * for) load it on first use, so pgci itself links no CUDA library. The GPU is
 * chosen at run time only: without the plugin (a build without nvcc), without
 * libcudart, a driver or a GPU, kgpu_probe() says why and the GPU comparison is
 * skipped.
 */
#ifndef PGCI_KERNELS_KGPU_H
#define PGCI_KERNELS_KGPU_H

#include <stddef.h>

#include "kernels/model.h"
#include "kernels/twin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when a CUDA device can run the kernels; else 0 with the reason in why. The
 * device's name goes to name (when not NULL). */
int kgpu_probe(char *why, size_t why_len, char *name, size_t name_len);

/* The forward pass on the GPU: the CUDA kernels around cuBLAS GEMMs, activations
 * stored in fp32 or bf16. Outputs come back in fp32. */
int kgpu_forward(const model *m, const int *ids, int batch, int seq, int bf16, unsigned brk,
                 kfwd_out *out);

typedef struct kgpu_bench_row {
    char kernel[32];
    char shape[48];
    double bytes; /* bytes the kernel must read and write */
    double ms;    /* mean time per launch */
    double gbps;  /* bytes / time */
} kgpu_bench_row;

/* Times each memory-bound kernel on large shapes. peak_gbps gets the device's
 * theoretical memory bandwidth (memory clock x bus width x 2). */
int kgpu_bench(kgpu_bench_row *rows, int max_rows, int *n_rows, double *peak_gbps);

#ifdef __cplusplus
}
#endif

#endif
