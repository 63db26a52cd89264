/*
 * body_uses.h - what a patch body uses from the code around it: the methods it
 * calls through `self`/`cls` (with the shape of each call and of what it does with
 * the result) and the free names it reads (every name read and not bound in the
 * body: module-level functions, classes, constants, imports, builtins).
 *
 * Read from the body's syntax tree. Bound names are over-approximated (any name
 * assigned, imported, defined or taken as a parameter anywhere in the body is
 * bound everywhere in it), so a free name is one the body certainly takes from
 * its module.
 */
#ifndef PGCI_CHECKS_BODY_USES_H
#define PGCI_CHECKS_BODY_USES_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec.h"
#include "py/py.h"

typedef struct body_call {
    char *method;        /* self.<method>(...) or cls.<method>(...) */
    size_t n_positional; /* positional arguments passed (a *args counts as many) */
    int star_args;       /* the call passes *args or **kwargs */
    strvec keywords;     /* keyword argument names passed */
    int unpacked;        /* names a tuple unpacking of the result binds; 0 when none */
    uint64_t kept;       /* of an unpacking: bit i when value i is bound to a name the
                          * body reads by it (not `_`, not `_`-led); the first 64 */
    int result_used;     /* the result is assigned, unpacked, indexed or read from */
    unsigned line;       /* 1-based, in the body */
    int via_dict;        /* while reading: 1 + the dict local a `**kw` splats */
} body_call;

/* `Cls.method` run with a stand-in for `self`: a local bound once to
 * `SimpleNamespace(k=..., ...)` passed as the first argument of `Cls.method(...)`,
 * or after `Cls.method` in one call's arguments (`partial(f, Cls.method, fake)`);
 * the stand-in has the attributes its keywords name and nothing else. */
typedef struct body_stand_in {
    char *cls, *method;
    strvec attrs;
    int ref; /* while reading: 1 + the local */
} body_stand_in;

typedef struct body_uses {
    body_call *calls;
    size_t n_calls;
    /* calls of a free name, `f(...)` (method: the name): a module-level function,
     * or one the module imports. A local bound once to a free name or to a
     * conditional choice of free names (`fn = a if c else b`) calls each of them;
     * a `**kw` of a local bound once to a dict literal with string keys, and used
     * nowhere else, passes those keys */
    body_call *name_calls;
    size_t n_name_calls;
    /* what a loop over a container of submodules does with each element: `for
     * layer in self.layers[...]:` (or `enumerate(self.layers)`), then
     * `layer.attention_type` (elem_attrs: pairs container, attribute; unique) or
     * `layer(...)` (elem_calls, method: the container) */
    strvec elem_attrs;
    body_call *elem_calls;
    size_t n_elem_calls;
    strvec loads; /* free names, in order of first use, unique */
    /* the stand-ins the body runs a class's method on (named nowhere else) */
    body_stand_in *stand_ins;
    size_t n_stand_ins;
} body_uses;

/* Reads the uses of one body (a def or a class, as the config file writes it).
 * Fails only when the text cannot be parsed at all. */
int body_uses_read(body_uses *out, const char *text, size_t len);

/* The same from a tree of the body already made (py_parse or a parse set's). */
void body_uses_of_tree(body_uses *out, const py_tree *t);

/* The same from statements of a bigger tree, as if their lines were parsed alone:
 * stmts[0..n) are the module-level statements of t (children of `parent`, its root)
 * on the body's lines, the first of which is row row0 of t (a call's line counts
 * from it). A def at column 0 of a file Python accepts reads the same inside its
 * file's tree as alone (survey_object_uses: one parse of a config file for its
 * evaluation and its bodies' checks). */
void body_uses_of_statements(body_uses *out, const py_tree *t, TSNode parent, const TSNode *stmts,
                             size_t n, unsigned row0);

void body_uses_free(body_uses *u);

/* 1 when two readings of a body are the same in every field (a body read in its
 * config file's tree against its lines parsed alone: PGCI_VERIFY_OBJECT_VIEWS). */
int body_uses_equal(const body_uses *a, const body_uses *b);

#endif
