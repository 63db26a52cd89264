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

/* The method `name` as instances of class `cls` find it in m: on cls, then on its
 * bases that m defines, depth first in base order; NULL when none. */
const index_def *callees_resolve(const index_module *m, const char *cls, const char *name);

#endif
