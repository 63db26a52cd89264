/*
 * pieces.h - a source read as its statements, most of them found byte for byte
 * in a donor: what of it must still be parsed.
 *
 * A module-level statement parses the same wherever it stands at module level,
 * and a statement of a class's body wherever it stands in a body at the same
 * indentation: its tree depends on its bytes only; its lines move. So a source
 * whose statements are mostly another's (a checked-in file and its regeneration,
 * a regenerated file and the upstream module it copies) needs only the others
 * parsed: py_pieces_plan() finds each statement (py_top_split) among the donor's
 * by its bytes, and puts those it cannot find, in order, into one text to parse,
 * with the source's row of each of that text's rows. A module-level class the
 * donor lacks whole is split in turn: its header and the statements of its body
 * the donor lacks go into the text, the others are found among the donor's
 * class-body statements.
 *
 * The structural comparison plans the checked-in file against the regenerated
 * one (src/py/structural.c); the forest of a regenerated file plans it against
 * the upstream module (src/py/forest.c).
 */
#ifndef PGCI_PY_PIECES_H
#define PGCI_PY_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/strbuf.h"
#include "core/vec.h"

/* A donor's statements by their bytes: module-level ones (kind 0) and those of
 * its module-level classes' bodies (kind 1), each numbered from 1 in the order
 * added. */
typedef struct py_span {
    uint32_t start, end;
} py_span;

typedef struct py_key_span {
    const char *src; /* the text the span indexes */
    uint32_t start, end;
} py_key_span;

typedef struct py_keys {
    const char *src; /* the text py_keys_add() indexes */
    VEC(py_key_span) spans[2];
    hashmap by[2];
} py_keys;

/* Adds the statement src[start..end) of the kind; returns its number. */
size_t py_keys_add(py_keys *k, int kind, uint32_t start, uint32_t end);

/* The same for a statement of another text, text[start..end), which must outlive
 * the keys (a forest's donors are several texts). */
size_t py_keys_add_in(py_keys *k, int kind, const char *text, uint32_t start, uint32_t end);

/* The number of a statement of the kind whose bytes are s[0..len), or 0. */
long py_keys_find(const py_keys *k, int kind, const char *s, size_t len);

void py_keys_free(py_keys *k);

/* A statement of the planned source: found in the donor, or parsed. */
typedef struct py_piece {
    long donor;                  /* its number among the donor's statements; 0: parsed */
    uint32_t start;              /* its first byte in the source (after its indentation) */
    uint32_t row;                /* its first row in the source */
    uint32_t from;               /* parsed: the source's byte where its text starts */
    uint32_t cat_start, cat_end; /* parsed: its bytes in the text of those parsed */
    size_t sub_begin, sub_end;   /* a class parsed in part: its body's pieces in mplan */
} py_piece;

typedef struct py_pieces {
    VEC(py_piece) plan;  /* the module-level statements */
    VEC(py_piece) mplan; /* the body statements of the classes parsed in part */
    strbuf cat;          /* the text to parse */
    VEC(uint32_t) rows;  /* a row of cat -> the source's row */
} py_pieces;

/* Plans src[0..len) against the donor. At least one module-level statement is
 * parsed (the module's node comes from a parse), and a class parsed in part
 * keeps one statement of its body, its shortest. 0, or PGCI_EUNSUPPORTED when
 * py_top_split() cannot tell the statements (ps is then empty). */
int py_pieces_plan(const py_keys *donor, const char *src, size_t len, py_pieces *ps);

void py_pieces_free(py_pieces *ps);

#endif
