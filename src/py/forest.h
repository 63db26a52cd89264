/*
 * forest.h - a source's statements as nodes of trees already made, instead of
 * one tree of its own.
 *
 * A regenerated file is mostly its upstream module, copied statement by
 * statement: of its 2.6 MB on the real tree, 47 % are module-level statements,
 * or statements of a class's body, that the upstream module has byte for byte.
 * Its forest takes those statements' nodes from the upstream module's tree (the
 * run parsed it to generate the file) and parses only the rest, as one text
 * (py_pieces_plan against the upstream module's statements). A statement's node
 * depends on its bytes only, so each statement reads as in a parse of the whole
 * file, at its own offset: the source's byte of a node's byte is that byte plus
 * the statement's delta, and so for rows.
 *
 * The names check (scope_analyze_forest) and the structural comparison read a
 * regenerated file through its forest. py_forest_build() declines
 * (PGCI_EUNSUPPORTED) what it cannot read with certainty - a text py_top_split()
 * declines, a parsed part with a syntax error, a donated statement at another
 * column - and its callers then parse the file whole; PGCI_VERIFY_FOREST makes
 * them compare both ways on every file.
 */
#ifndef PGCI_PY_FOREST_H
#define PGCI_PY_FOREST_H

#include <stddef.h>

#include "py/pieces.h"
#include "py/py.h"

typedef struct py_forest_stmt {
    TSNode node;         /* the statement (a decorated definition whole) */
    const py_tree *t;    /* the tree it is in: a donor's or the parsed text's */
    long delta;          /* the source's byte of the node's byte b: b + delta */
    long row_delta;      /* the source's row of the node's row r: r + row_delta */
    uint32_t start, end; /* its bytes in the source (a class parsed in part: to its
                          * last statement's end) */
    /* a class parsed in part: its block in the parsed tree, and its body's
     * statements in the forest's members; a null node and none otherwise */
    TSNode body;
    size_t mem_begin, mem_end;
} py_forest_stmt;

typedef struct py_forest {
    py_tree file;   /* the source, a copy (src, len, path; no tree) */
    py_tree parsed; /* the tree of what no donor statement gave */
    const py_tree *donor;
    py_forest_stmt *tops; /* the module-level statements, in order */
    size_t ntops;
    py_forest_stmt *members; /* the body statements of the classes parsed in part */
    size_t nmembers;
} py_forest;

/* The forest of src[0..len) against donor, a tree without syntax errors that
 * must outlive the forest. kin[0..nkin) are more donors, trees without syntax
 * errors that must outlive it too: the `parsed` of earlier forests against the
 * same donor, whose statements the forest takes as it takes the donor's (the
 * configs regenerated from one upstream module share much of what is not the
 * module's: a GPU config and its NPU sibling override the same methods); a
 * statement both have is the donor's. 0, or PGCI_EUNSUPPORTED (nothing to free)
 * when the file must be parsed whole, or another negative code with the message
 * set. */
int py_forest_build(py_forest *f, const char *src, size_t len, const char *path,
                    const py_tree *donor, const py_tree *const *kin, size_t nkin);

void py_forest_free(py_forest *f);

/* The source's byte and row of a forest node's start. */
uint32_t py_forest_byte(const py_forest_stmt *s, TSNode n);
unsigned py_forest_row(const py_forest_stmt *s, TSNode n);

#endif
