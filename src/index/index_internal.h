/*
 * index_internal.h - what the index's own files share and nobody else needs.
 */
#ifndef PGCI_INDEX_INDEX_INTERNAL_H
#define PGCI_INDEX_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "py/py.h"

/* Per-symbol classification the fingerprint walk caches (zero-initialise one per
 * module; the grammar has fewer symbols than this, larger ones are classified
 * each time). */
typedef struct index_fp_cache {
    unsigned char kind[1024];
} index_fp_cache;

/* A body whose fingerprint is known already: where its block starts. */
typedef struct index_fp_known {
    uint32_t start_byte;
    uint64_t fingerprint;
} index_fp_known;

/* The fingerprint of a body (see index_def.fingerprint). `docstring` is the body's
 * docstring node (hashed dedented) or a null node. A def's body met inside it
 * whose block start is in known[0..n_known) counts by that fingerprint, not walked
 * again: a class's fingerprint reads its methods' (index_fingerprint.c). */
uint64_t index_fingerprint(const py_tree *t, TSNode body, TSNode docstring, index_fp_cache *cache,
                           const index_fp_known *known, size_t n_known);

#endif
