/*
 * structural.h - comparing two Python sources modulo what ruff changes.
 *
 * Without ruff, pgci cannot reproduce the normalised bytes, but it can still tell
 * whether a checked-in file is the regenerated one up to formatting. Two sources
 * are structurally equal when their tree-sitter trees agree after ignoring:
 *
 *   - layout: whitespace, line breaks, indentation width, line continuations;
 *   - comments (their placement and their text);
 *   - quote style and string prefix case: strings compare by decoded value
 *     (so 'a' == "a" == '''a''' == r'a', b'x' != 'x'), adjacent literals joined;
 *   - docstring layout: a string statement compares by its lines, each stripped;
 *   - numeric literal case (0XFF == 0xff, 1E5 == 1e5);
 *   - redundant parentheses and trailing commas;
 *   - import order and merging: module-level imports compare as a set of
 *     bindings (module, name, alias), and the second source may lack a binding the
 *     first has when the first never uses the bound name (ruff's F401 fix).
 *
 * Everything else (names, operators, statement order, literals' values) counts.
 */
#ifndef PGCI_PY_STRUCTURAL_H
#define PGCI_PY_STRUCTURAL_H

#include <stddef.h>

#include "core/strbuf.h"
#include "py/parse_set.h"

typedef struct structural_result {
    int equal;
    unsigned line_a, line_b; /* 1-based lines of the first difference (0 when equal) */
    strbuf what;             /* a short description of the first difference */
} structural_result;

/* Compares `a` (the regenerated raw output) with `b` (the checked-in file). Fails
 * (negative, message set) only when a source does not parse. */
int structural_compare(const char *a, size_t alen, const char *b, size_t blen,
                       structural_result *res);

/* The same, with `a` read from (or into) a run's parse set, where the names check
 * finds it too (set may be NULL): as a forest against `donor` (the upstream module
 * it was generated from; NULL: none) when it can be read so, else as its tree. */
int structural_compare_in(py_parse_set *set, const char *donor, size_t donor_len, const char *a,
                          size_t alen, const char *b, size_t blen, structural_result *res);

/* The two ways structural_compare() may take, for tests: the checked-in file
 * parsed whole; or by pieces (only its module-level statements that are not the
 * regenerated file's byte for byte are parsed; PGCI_EUNSUPPORTED, res empty, when
 * its statements cannot be told without a parse or either file has an error: the
 * whole comparison then runs). Both give the same result, to the message
 * (PGCI_VERIFY_STRUCTURAL in the environment makes every comparison check it). */
int structural_compare_whole(const char *a, size_t alen, const char *b, size_t blen,
                             structural_result *res);
int structural_compare_pieces(const char *a, size_t alen, const char *b, size_t blen,
                              structural_result *res);
/* By pieces, the regenerated file read as a forest against donor
 * (PGCI_EUNSUPPORTED, res empty, when either declines). */
int structural_compare_forest(const char *donor, size_t donor_len, const char *a, size_t alen,
                              const char *b, size_t blen, structural_result *res);

/* 1 when two results say the same: the verdict, both lines, the message. */
int structural_result_same(const structural_result *x, const structural_result *y);

void structural_result_free(structural_result *res);

/* 1 when the bodies of the first function (or class) defined in a and in b are the
 * same modulo formatting, comments and their docstrings, and, in a function's
 * body, the annotations of the names it assigns (`x: A | None = v`: never
 * evaluated, PEP 526; those of a class it defines count); 0 when not; negative
 * when a source does not parse. Signatures are not compared: the caller does. */
int structural_bodies_equal(const char *a, size_t alen, const char *b, size_t blen);

/* The same answer for two definitions inside parsed modules, read from their
 * trees instead of a parse of their text: the function or class (decorated or
 * not) that starts at byte a_start of ta, and the one at b_start of tb. Negative
 * when either tree has no definition starting there. */
int structural_def_bodies_equal(const py_tree *ta, uint32_t a_start, const py_tree *tb,
                                uint32_t b_start);

#endif
