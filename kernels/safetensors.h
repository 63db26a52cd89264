/*
 * safetensors.h - reading and writing the safetensors format.
 *
 * Layout: an 8-byte little-endian header length N, N bytes of JSON
 * {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
 * "__metadata__": {"k": "v"}}, then the data; offsets are relative to the data.
 *
 * The reader treats the file as hostile: the header length, every offset and every
 * shape is checked against the file before anything is read, tensors must tile the
 * data exactly (no overlap, no gap, nothing after the last), and the byte count of
 * each must equal its shape times its dtype size, with overflow checked. Files are
 * mapped read-only; nothing is trusted that was not checked.
 */
#ifndef PGCI_KERNELS_SAFETENSORS_H
#define PGCI_KERNELS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

typedef enum st_dtype { ST_F32, ST_F16, ST_BF16, ST_F64, ST_I64, ST_I32, ST_N_DTYPES } st_dtype;

#define ST_MAX_DIMS 8
#define ST_MAX_HEADER (100u << 20)

typedef struct st_tensor {
    char *name;
    st_dtype dtype;
    int ndim;
    uint64_t shape[ST_MAX_DIMS];
    uint64_t numel;
    uint64_t begin, end; /* byte offsets into the data section */
} st_tensor;

typedef struct st_file {
    void *map; /* the mapping when opened with st_open(), else NULL */
    size_t map_len;
    const unsigned char *data; /* the data section */
    size_t data_len;
    st_tensor *tensors; /* in header order */
    size_t n;
} st_file;

/* "F32" ... ; NULL for an unknown dtype. Size in bytes of one element. */
const char *st_dtype_name(st_dtype d);
size_t st_dtype_size(st_dtype d);

/* Parses and validates a whole file held in memory (buf is borrowed: it must
 * outlive f). `what` names the file in errors. */
int st_parse(st_file *f, const void *buf, size_t len, const char *what);

/* Opens and validates a file through a read-only mapping. */
int st_open(st_file *f, const char *path);

/* The tensor named `name`, or NULL. */
const st_tensor *st_find(const st_file *f, const char *name);

/* Converts a floating tensor (F32, F16, BF16, F64) to fp32 into out[0..numel). */
int st_read_f32(const st_file *f, const st_tensor *t, float *out);

void st_close(st_file *f);

/* --- writing -------------------------------------------------------------------- */

typedef struct st_entry {
    char *name;
    st_dtype dtype;
    int ndim;
    uint64_t shape[ST_MAX_DIMS];
    const void *data; /* borrowed; numel * dtype size bytes, little-endian */
} st_entry;

typedef struct st_writer {
    st_entry *items;
    size_t len, cap;
} st_writer;

#define ST_WRITER_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Adds a tensor (the data is borrowed until the file is written). */
void st_writer_add(st_writer *w, const char *name, st_dtype dtype, int ndim, const uint64_t *shape,
                   const void *data);

/* Serialises every tensor, sorted by name, into out (appending). The header is
 * padded with spaces to a multiple of 8 bytes so the data is aligned. */
int st_writer_build(const st_writer *w, strbuf *out);

/* Writes the file atomically (no partial file on failure). */
int st_writer_write(const st_writer *w, const char *path);

void st_writer_free(st_writer *w);

#endif
