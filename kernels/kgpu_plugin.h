/*
 * kgpu_plugin.h - the plain-C boundary between pgci and its CUDA plugin.
 *
 * kernels/kgpu.cu is built into a shared object (pgci-cuda.so) that pgci
 * dlopen()s only when the GPU path is probed (kernels/kgpu_load.c), so that no
 * other command pays for loading libcudart and cuBLAS. The plugin exports one
 * function, KGPU_PLUGIN_ENTRY, returning a table of function pointers. It uses no
 * symbol of the pgci executable: only header-only helpers (kmath.h, kbreak.h) and
 * the struct definitions below it shares with pgci, whose sizes it reports so that
 * the loader refuses a plugin built against other layouts. Errors come back as
 * text in a caller-provided buffer; the loader turns them into pgci errors.
 *
 * Compatibility: `abi` is always the first member and is checked before anything
 * else is read. Bump KGPU_PLUGIN_ABI on any change to this file or to the shared
 * structs' meaning.
 */
#ifndef PGCI_KERNELS_KGPU_PLUGIN_H
#define PGCI_KERNELS_KGPU_PLUGIN_H

#include <stddef.h>

#include "kernels/kgpu.h"
#include "kernels/model.h"
#include "kernels/twin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KGPU_PLUGIN_ABI 1
#define KGPU_PLUGIN_ENTRY "pgci_cuda_plugin_entry"

typedef struct kgpu_plugin {
    unsigned abi;        /* KGPU_PLUGIN_ABI of the plugin's build; first, always */
    unsigned table_size; /* sizeof(kgpu_plugin) */
    /* sizeof each struct the plugin shares with pgci, as the plugin saw them */
    size_t sizeof_model, sizeof_model_layer, sizeof_model_tensor, sizeof_toy_config;
    size_t sizeof_kfwd_out, sizeof_bench_row;

    /* 1 when a CUDA device can run the kernels; else 0 with the reason in why.
     * The device's name goes to name (when not NULL). */
    int (*probe)(char *why, size_t why_len, char *name, size_t name_len);
    /* The forward pass into out, whose arrays the caller allocated for
     * batch * seq tokens (kfwd_out_alloc); labels are the next-token labels
     * (kref_labels). 0 on success, -1 with the reason in err. */
    int (*forward)(const model *m, const int *ids, const int *labels, int batch, int seq, int bf16,
                   unsigned brk, kfwd_out *out, char *err, size_t err_len);
    /* The kernel benchmark (kgpu_bench); -1 with the reason in err. */
    int (*bench)(kgpu_bench_row *rows, int max_rows, int *n_rows, double *peak_gbps, char *err,
                 size_t err_len);
} kgpu_plugin;

/* The type of KGPU_PLUGIN_ENTRY. */
typedef const kgpu_plugin *(*kgpu_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
