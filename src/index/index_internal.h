/*
 * index_internal.h - what the index's own files share and nobody else needs.
 */
#ifndef PGCI_INDEX_INDEX_INTERNAL_H
#define PGCI_INDEX_INDEX_INTERNAL_H

#include <stdint.h>

#include "py/py.h"

/* The fingerprint of a body (see index_def.fingerprint). `docstring` is the body's
 * docstring node (hashed dedented) or a null node. */
uint64_t index_fingerprint(const py_tree *t, TSNode body, TSNode docstring);

#endif
