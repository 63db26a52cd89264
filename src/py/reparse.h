/*
 * reparse.h - tree-sitter's incremental parse: the tree of a text that differs
 * from an already parsed one in one stretch of bytes, reusing the old tree's
 * parts outside that stretch, as the code generator needs after each method it
 * puts into a class (patchgen re-parses the whole class every time).
 */
#ifndef PGCI_PY_REPARSE_H
#define PGCI_PY_REPARSE_H

#include <stddef.h>

#include "py/py.h"

/* Makes t the tree of src[0..len) (t must own its source, as py_parse leaves
 * it), from t's old tree edited where the texts differ. The tree is the one
 * py_parse() would build; with PGCI_VERIFY_REPARSE set in the environment, each
 * one is compared with a fresh parse and a difference aborts (tests use it). */
int py_reparse(py_tree *t, const char *src, size_t len);

#endif
