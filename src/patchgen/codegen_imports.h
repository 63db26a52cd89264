/*
 * codegen_imports.h - the import block of a generated file (PATCHGEN_SPEC.md §3.2):
 * every import statement of the upstream module, nested ones included, in source
 * order, re-rendered on one line the way Python's ast.unparse writes it, relative
 * imports made absolute against source_module, drop_import_names applied.
 *
 * (Internal to the code generator.)
 */
#ifndef PGCI_PATCHGEN_CODEGEN_IMPORTS_H
#define PGCI_PATCHGEN_CODEGEN_IMPORTS_H

#include "core/vec.h"
#include "patchgen/patch_spec.h"
#include "py/py.h"

/* Appends one rendered line per kept import statement to out. */
void cgimp_render(strvec *out, const py_tree *t, const pg_config *cfg);

#endif
