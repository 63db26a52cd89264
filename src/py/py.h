/*
 * py.h - the tree-sitter wrapper: parsing Python and reading nodes.
 *
 * A py_tree owns a copy of the source and the tree-sitter tree over it. Node
 * positions are byte offsets into py_tree.src; lines and columns for messages are
 * 1-based. Parsers are cached per thread, so parsing from several threads is safe.
 */
#ifndef PGCI_PY_PY_H
#define PGCI_PY_PY_H

#include <stddef.h>
#include <tree_sitter/api.h>

#include "core/strbuf.h"

typedef struct py_tree {
    TSTree *tree;
    char *src; /* owned, NUL-terminated */
    size_t len;
    char *path;   /* for messages; owned */
    void *shared; /* a parse set's copy: the set's entry, which owns src (parse_set.c) */
} py_tree;

/* The grammar (from the tree-sitter-python sdist built by the Makefile). */
const TSLanguage *tree_sitter_python(void);

/* Parses src[0..len). Always builds a tree (tree-sitter recovers from errors); use
 * py_first_error() to reject input that is not valid Python. */
int py_parse(py_tree *t, const char *src, size_t len, const char *path);

/* Reads and parses a file. */
int py_parse_file(py_tree *t, const char *path);

void py_tree_free(py_tree *t);

TSNode py_root(const py_tree *t);

/* 1 and *err set to the first ERROR or MISSING node when the tree has one. */
int py_first_error(const py_tree *t, TSNode *err);

/* Sets the error slot to "PATH:LINE:COL: syntax error near '...'" for the tree's
 * first error and returns PGCI_EINVALID; returns 0 when the tree is clean. */
int py_check_syntax(const py_tree *t);

/* The characters tree-sitter-python's grammar skips as blank between tokens (its
 * extras) where CPython's tokenizer refuses them ("invalid non-printable
 * character"): a vertical tab, U+FEFF, U+2060 and U+200B. The first of them in
 * [p, end), its code point in *cp (when cp is not NULL); NULL when there is none. */
const char *py_next_ts_blank(const char *p, const char *end, unsigned *cp);

/* The node's source bytes (not NUL-terminated) and their length. */
const char *py_text(const py_tree *t, TSNode n, size_t *len);
/* A malloc'ed NUL-terminated copy of the node's source. */
char *py_text_dup(const py_tree *t, TSNode n);
/* 1 when the node's text equals s. */
int py_text_eq(const py_tree *t, TSNode n, const char *s);

/* 1 when the node's type is `type`. */
int py_is(TSNode n, const char *type);
/* The child in `field` (null node when absent; test with ts_node_is_null). */
TSNode py_field(TSNode n, const char *field);

/* 1-based line and column of the node's start. */
unsigned py_line(TSNode n);
unsigned py_col(TSNode n);

/* Moves c to the next node of a pre-order walk: into the current node's first
 * child when `enter` (and it has one), else to the next sibling of the node or of
 * its nearest ancestor that has one, never above the node c started at. 0 when
 * the walk is over. */
int py_cursor_next(TSTreeCursor *c, int enter);

/* This thread's tree-sitter parser for Python, made on first use and deleted at
 * thread exit; shared by every parse on the thread (each use is synchronous). */
TSParser *py_thread_parser(void);

#endif
