/*
 * scope.h - Python name binding and resolution, the way pyflakes and ruff model it.
 *
 * scope_analyze() walks a tree-sitter Python tree once, building scopes (module,
 * class, function, lambda, comprehension, type-parameter and the implicit
 * `__class__` cell), bindings (imports, assignments, definitions, parameters,
 * deletions, exception names, global/nonlocal declarations) and references, in the
 * order ruff's checker does: module and class bodies at once, function and lambda
 * bodies, string annotations, `from __future__ import annotations` annotations and
 * type-parameter bounds deferred to the end of the module. It then derives three
 * pyflakes rules from that model:
 *
 *   F821  a load that resolves to no binding (undefined name);
 *   F811  a definition or import that shadows an unused one on the same branch;
 *   F401  an import that nothing reads.
 *
 * The model follows ruff 0.13.2's semantic model rule for rule; docs/names.md lists
 * the rules and the known differences. It reports, never prints.
 */
#ifndef PGCI_PY_SCOPE_H
#define PGCI_PY_SCOPE_H

#include <stddef.h>

#include "py/forest.h"
#include "py/py.h"

/* One pyflakes diagnostic. */
typedef struct scope_diag {
    const char *code;     /* "F821", "F811", "F401" (static) */
    unsigned line, col;   /* 1-based; col counts characters like ruff */
    char *name;           /* the name as ruff prints it */
    unsigned prev_line;   /* F811: line of the shadowed definition; 0 otherwise */
    unsigned parent_line; /* F811/F401 of a `from` import: the statement's first line,
                           * where ruff also honours a noqa comment; 0 otherwise */
} scope_diag;

typedef struct scope_diags {
    scope_diag *items;
    size_t len, cap;
} scope_diags;

#define SCOPE_DIAGS_INIT                                                                           \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

typedef struct scope_opts {
    int py_minor; /* target Python 3.x: builtins added in 3.10/3.11/3.13 depend on it */
    int is_init;  /* the file is an __init__.py (`__path__` is defined there) */
} scope_opts;

/* The default options: Python 3.9 (ruff's target when run with --isolated). */
#define SCOPE_OPTS_INIT                                                                            \
    {                                                                                              \
        9, 0                                                                                       \
    }

/* Analyses a parsed module and appends its F821, F811 and F401 diagnostics to out,
 * sorted by position. The tree must be free of syntax errors (py_check_syntax).
 * Returns 0, or a negative PGCI_E* code with the message set. */
int scope_analyze(const py_tree *t, const scope_opts *o, scope_diags *out);

/* The same for a module read as a forest (py/forest.h): the same diagnostics as
 * scope_analyze() of the source's tree. */
int scope_analyze_forest(const py_forest *f, const scope_opts *o, scope_diags *out);

/* Sorts diagnostics by line, column, code. */
void scope_diags_sort(scope_diags *d);

void scope_diags_free(scope_diags *d);

#endif
