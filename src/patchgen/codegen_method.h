/*
 * codegen_method.h - putting an overriding method's source into a class's source
 * text, as patchgen's _replace_method_body_with_preserved() does: in place of the
 * upstream method (upstream decorators kept, the override's header comments moved
 * above them), into an empty `pass` / `...` body, or appended.
 *
 * (Internal to the code generator.)
 */
#ifndef PGCI_PATCHGEN_CODEGEN_METHOD_H
#define PGCI_PATCHGEN_CODEGEN_METHOD_H

#include <stddef.h>

#include "core/strbuf.h"
#include "py/py.h"

typedef struct cgm_method {
    char *name;   /* the method name in the class */
    char *source; /* cleaned, renamed replacement source */
    size_t patch; /* index of the patch */
} cgm_method;

/* 1 when src parses as Python and defines a function somewhere (patchgen's test
 * for whether an override can be applied). */
int cgm_parses_with_function(const char *src, size_t len);

/* Rewrites cls (a class's source segment) with `method` replaced by or given the
 * `preserved` source. *added is set to 1 when the class had no such method.
 * Leaves cls unchanged when it does not parse (as patchgen does). */
void cgm_replace_method(strbuf *cls, const char *method, const char *preserved, int *added);

/* What a class's successive rewrites carry from one to the next: the class's body
 * items (a private list), worked out after a rewrite without a parse where that
 * can be shown, else from a parse that re-parses incrementally from the last tree
 * (py/reparse.h). Zero it first; free with cgm_state_free.
 *
 * Before the first rewrite it may instead hold a view of the class in the tree of
 * the module it comes from (cgm_state_view), so that the first rewrite parses
 * nothing. */
typedef struct cgm_model cgm_model;
/* The shapes of the methods a class's rewrites parse alone, by their text, for a
 * run of many configs (codegen_shared.c keeps one): the same override put into
 * the same class at both tags, or by sibling configs, is parsed once.
 * Thread-safe. */
typedef struct cgm_memo cgm_memo;
cgm_memo *cgm_memo_new(void);
void cgm_memo_free(cgm_memo *m);

typedef struct cgm_state {
    py_tree t;
    int have;
    cgm_model *md;         /* the class's items, when known */
    const py_tree *module; /* the view, until the first rewrite; NULL when none */
    TSNode cdef;
    size_t row0;
    cgm_memo *memo; /* NULL: none */
} cgm_state;

/* The class text was changed by other means (a memoised rewrite): what st knows
 * of it no longer holds. */
void cgm_state_forget(cgm_state *st);

/* The class text the next rewrite starts from is the bytes of module's rows
 * row0.. up to the end of cdef's last line: the class_definition cdef, a
 * top-level statement (column 0) of a module Python accepts, with only blank
 * and comment lines between row0 and its first decorator. Then a fresh parse of
 * that text finds the same class, rows shifted by row0, and accepts it too. The
 * caller checks those bytes; module must outlive the first rewrite. */
void cgm_state_view(cgm_state *st, const py_tree *module, TSNode cdef, size_t row0);

/* cgm_replace_method(), with the class's tree from (and left in) st. */
void cgm_replace_method_in(cgm_state *st, strbuf *cls, const char *method, const char *preserved,
                           int *added);

void cgm_state_free(cgm_state *st);

#endif
