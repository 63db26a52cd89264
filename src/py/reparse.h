/*
 * reparse.h - tree-sitter's incremental parse: the tree of a text that differs
 * from an already parsed one, reusing the old tree's parts where the texts agree:
 * in one stretch of bytes, as the code generator needs after each method it puts
 * into a class (patchgen re-parses the whole class every time), or line by line,
 * as the structural comparison derives a regenerated file's tree from the tree of
 * the checked-in file it is compared with.
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

/* The same for texts that differ in many places: the edits come from a line
 * matching of the two texts (reparse.c says how). */
int py_reparse_lines(py_tree *t, const char *src, size_t len);

/* Parses src[0..len) as py_parse() does, from the tree of `near` (a similar text,
 * left as it is) by py_reparse_lines; near may be NULL: a fresh parse. */
int py_parse_near(py_tree *t, const char *src, size_t len, const char *path, const py_tree *near);

#endif
