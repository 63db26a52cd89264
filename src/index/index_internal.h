/*
 * index_internal.h - what the index's own files share and nobody else needs.
 */
#ifndef PGCI_INDEX_INDEX_INTERNAL_H
#define PGCI_INDEX_INDEX_INTERNAL_H

#include <stdint.h>

#include "py/py.h"

/* Per-symbol classification the fingerprint walk caches (zero-initialise one per
 * module; the grammar has fewer symbols than this, larger ones are classified
 * each time). */
typedef struct index_fp_cache {
    unsigned char kind[1024];
} index_fp_cache;

/* The fingerprint of a body (see index_def.fingerprint). `docstring` is the body's
 * docstring node (hashed dedented) or a null node. */
uint64_t index_fingerprint(const py_tree *t, TSNode body, TSNode docstring, index_fp_cache *cache);

#endif
