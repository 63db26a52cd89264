/*
 * names.h - the `names` check: undefined names (F821), redefinitions of unused names
 * (F811) and unused imports (F401) in Python files, natively, with pyflakes' scoping
 * rules as ruff 0.13.2 implements them (see checks/scope.h and docs/names.md).
 *
 * Findings have check id "names"; F821 and F811 are errors, F401 is info. The title
 * reads like pyflakes (`undefined name 'Optional'`); `data` holds {"code", "name"}
 * and, for F811, "previous_line".
 */
#ifndef PGCI_CHECKS_NAMES_H
#define PGCI_CHECKS_NAMES_H

#include "checks/finding.h"
#include "py/forest.h"
#include "py/py.h"

enum { NAMES_F821 = 1, NAMES_F811 = 2, NAMES_F401 = 4, NAMES_ALL = 7 };

typedef struct names_opts {
    int py_minor;    /* target Python 3.x (builtins); ruff's --isolated default is 9 */
    unsigned select; /* NAMES_F821 | NAMES_F811 | NAMES_F401 */
    int ignore_noqa; /* report even what `# noqa` comments suppress */
} names_opts;

#define NAMES_OPTS_INIT                                                                            \
    {                                                                                              \
        9, NAMES_ALL, 0                                                                            \
    }

/* Runs the check on a parsed module and appends its findings (path and config are
 * copied into them; config may be NULL). A tree with syntax errors is refused:
 * PGCI_EINVALID with "PATH:LINE:COL: syntax error near '...'". */
int check_names_tree(findings *out, const py_tree *t, const char *config, const char *path,
                     const names_opts *o);

/* The same for a module read as a forest (py/forest.h): the same findings. */
int check_names_forest(findings *out, const py_forest *f, const char *config, const char *path,
                       const names_opts *o);

/* Reads, parses and checks one file. */
int check_names_file(findings *out, const char *path, const char *config, const names_opts *o);

/* Parses "F821,F811" (case-insensitive, "ALL" for all) into a NAMES_* mask. */
int names_select_parse(const char *list, unsigned *mask);

/* Parses "3.11" or "311" or "py311" into the minor version 11. */
int names_python_parse(const char *s, int *minor);

#endif
