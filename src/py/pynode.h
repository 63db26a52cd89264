/*
 * pynode.h - reading tree-sitter nodes the way a Python reader means them: where a
 * definition really ends (not at its trailing comments), and an expression's
 * source as one clean line (comments out, line breaks joined).
 */
#ifndef PGCI_PY_PYNODE_H
#define PGCI_PY_PYNODE_H

#include <stdint.h>

#include "core/strbuf.h"
#include "py/py.h"

/* 1 for a node the source really holds: not null, and not one tree-sitter's error
 * recovery made up (a MISSING node, or one of zero width). */
int pynode_is_real(TSNode n);

/* The function definition (decorated or not) that starts at byte `at` of t in *def;
 * fails (PGCI_ENOTFOUND) when none starts there. */
int pynode_function_at(const py_tree *t, uint32_t at, TSNode *def);

/* 1 when the node is an import statement (plain, from, or from __future__). */
int pynode_is_import(TSNode n);

/* 1 when the node's children may be statements: the module, a block, and the
 * compound statements other than def and class with their clauses (their
 * statements are under a block). A statement is never under an expression, a
 * parameter or a decorator. */
int pynode_holds_statements(TSNode n);

/* 1 when the node is a comment (tree-sitter keeps comments as extra nodes, even in
 * the middle of a block or an argument list). */
int pynode_is_comment(TSNode n);

/* The node's last code byte: its end, not counting comments at the end of it (a
 * block's trailing comment belongs to no statement for Python). */
TSPoint pynode_code_end(TSNode n, uint32_t *end_byte);

/* 1-based last line of code of the node (as Python's ast end_lineno). */
unsigned pynode_end_line(TSNode n);

/* Appends the node's source with comments removed and every run of whitespace that
 * holds a line break (or a backslash continuation) joined: into nothing after an
 * opening bracket or before a closing one, into one space elsewhere. String
 * literals are copied untouched. */
void pynode_text_clean(strbuf *out, const py_tree *t, TSNode n);

/* The node's children, in order, without comments: named ones only when
 * named_only. Returns their number; *out is malloc'ed (NULL when none), free it.
 * One pass with a tree cursor, where ts_node_child(n, i) in a loop would be
 * quadratic. */
size_t pynode_children(TSNode n, int named_only, TSNode **out);

/* The docstring of a body (a block or the module): its first statement when that
 * is a lone str literal (bytes and f-strings are not docstrings for Python), as a
 * string or concatenated_string node; a null node when there is none. */
TSNode pynode_docstring(const py_tree *t, TSNode body);

/* 1 when the tree under n is deeper than `limit` levels (measured without
 * recursion, so it is safe on any input). The walkers over a tree recurse; this is
 * their guard against a hostile file of 100000 nested brackets. */
int pynode_deeper_than(TSNode n, unsigned limit);

/* 1 when nothing under n, a node at `depth`, can be deeper than `limit`: n has no
 * error and its length in bytes bounds its depth. Along any path down the tree a
 * level either leaves out at least one byte of the level above it or is one of
 * the grammar's short chains of nodes over the same bytes (over the 8,500 Python
 * files of transformers 5.9.0, 5.16.1 and 5.24.0, VeOmni 0.1.12 and pgci's
 * fixtures, 150 MB, a subtree's depth exceeds its length in bytes by 2 at most);
 * the bound allows 4 levels a byte and 32 more. A depth walk steps over such a
 * node. */
int pynode_depth_bounded(TSNode n, unsigned depth, unsigned limit);

/* The i-th named child that is not a comment (null node when there is none). */
TSNode pynode_named_child(TSNode n, uint32_t i);

#endif
