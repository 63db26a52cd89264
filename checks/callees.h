/*
 * callees.h - the survey follows what patch bodies use, not only what they
 * replace. For every patch body (override, replacement, helper) of one config,
 * against upstream at tags A and B:
 *
 *  - calls through `self`/`cls`, resolved on the patched class and its upstream
 *    bases in the same module: the method vanished at B (error, with successor
 *    candidates when one is likely), its signature changed (error when the call
 *    as written no longer binds: a keyword it passes is gone, more required
 *    positional parameters than it passes; else a warning), what it returns
 *    changed while the body uses the result (the width of a returned tuple, the
 *    return annotation), its body changed (a note);
 *  - module-level names the body reads (functions, classes, constants) that the
 *    module defined at A and no longer defines at B, every distinct name, with a
 *    successor candidate when one is likely (imports: signatures.h);
 *  - calls of module-level functions and of functions the module imports from
 *    another transformers module (`create_causal_mask(...)`, through a local
 *    `fn = a if c else b` or a `**kw` dict literal too): their signature changed
 *    (error when the call no longer binds), their body changed (a note; not for
 *    imported ones, whose contract is their signature);
 *  - calls of a submodule, `self.attr(...)` where upstream's `__init__` sets
 *    `self.attr = Cls(...)` with Cls defined in the module: Cls.forward as a
 *    method called through self;
 *  - reachability: a replaced or patched class that the module instantiated by
 *    name at A and no longer references at all at B (a factory builds its
 *    replacement): the patch silently stops applying, an error.
 *
 * Findings: check "callees", kinds callee-vanished, callee-signature-changed,
 * callee-return-changed, callee-body-changed, name-removed, unreachable.
 */
#ifndef PGCI_CHECKS_CALLEES_H
#define PGCI_CHECKS_CALLEES_H

#include "checks/signatures.h"

void check_callees(findings *out, const survey_pair *p);

/* "Base[T]" / "mod.Base" / "Base" -> the name the module would define, malloc'ed;
 * NULL for a keyword ("metaclass=M"). */
char *callees_base_name(const char *base);

/* The classes a walk over bases visited, each once: a diamond is not walked twice,
 * and a hostile module's fan of repeated bases (`class A(B, B, B, B)`, ten deep)
 * costs its classes, not their paths. A walk stops at CALLEES_WALK_MAX classes. */
#define CALLEES_WALK_MAX 256
typedef struct callees_walk {
    const index_def *seen[CALLEES_WALK_MAX];
    size_t n;
} callees_walk;

/* 1 the first time c is met (and notes it), 0 after, or when the walk is full. */
int callees_walk_first(callees_walk *w, const index_def *c);

/* The method `name` as instances of class `cls` find it in m: on cls, then on its
 * bases that m defines, depth first in base order; NULL when none. */
const index_def *callees_resolve(const index_module *m, const char *cls, const char *name);

/* The transformers module m imports `name` from at module level, absolute
 * ("transformers.masking_utils" for `from ...masking_utils import name` in
 * transformers.models.x.modeling_x), malloc'ed; NULL when m does not import it so. */
char *callees_import_source(const index_module *m, const char *name);

/* The same, reading imports under a module-level `if` too: where a package's
 * `__init__` takes a name from under `if TYPE_CHECKING:` (the import that tells
 * where a lazily exported class is defined). */
char *callees_import_source_any(const index_module *m, const char *name);

/* 1 when cfg gives class cls a method `name`: an override of `cls.name`, or a
 * replacement of cls whose text defines it. */
int callees_config_defines(const pg_config *cfg, const char *cls, const char *name);

/* The class (m defines it) of what cls's `__init__` in module m (src[0..len))
 * assigns to `self.<attr>` by calling it, `Cls(...)` or `Cls._from_config(...)`;
 * with `anywhere` the first such call in the value (`None if c.skip else
 * Cls(...)`, each element of `nn.ModuleList([Cls(c) for ...])`); malloc'ed, NULL
 * when none. */
char *callees_class_made(const index_module *m, const char *src, size_t len, const char *cls,
                         const char *attr, int anywhere);

/* Appends to mods (unique) the transformers modules module a (the model's module
 * at A) imports a function from that a patch body of cfg may call (its name
 * followed by `(` anywhere in a body's text): what the survey fetches at both tags
 * for survey_pair.ext. */
void callees_imported_modules(strvec *mods, const pg_config *cfg, const index_module *a);

#endif
