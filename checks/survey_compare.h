/*
 * survey_compare.h - the survey's comparison of one config between tags A and B,
 * reporting changes only.
 *
 * Runs every two-tag check on the pair (signatures, callees, deprecations,
 * name_map fields, rotary compatibility), then removes what does not depend on the
 * bump: everything the same checks report when B is A itself (standing facts of
 * the config, such as an @auto_docstring argument already missing at A or a
 * name_map field trap already there, belong to `pgci check`), except deprecations
 * that fall due in (A, B]; and repeats (one finding per fact). A survey of a tag
 * against itself therefore reports nothing.
 */
#ifndef PGCI_CHECKS_SURVEY_COMPARE_H
#define PGCI_CHECKS_SURVEY_COMPARE_H

#include "checks/signatures.h"
#include "patchgen/regen.h"
#include "workspace/workspace.h"

/* Appends the changes between p->a and p->b under p's config to out. targets holds
 * the targets check's findings for all configs (against B); those of this config
 * that the bump caused (a target present at A and missing at B) move to out, the
 * rest stay (the caller drops them). config_a: the configuration module at A. */
void survey_compare(findings *out, const survey_pair *p, const index_module *config_a,
                    findings *targets);

/* survey_compare() in two steps, so that the checks (which read the two tags'
 * indexes and sources only) can run while the configs are regenerated against B,
 * and the targets check's findings (which need that regeneration) join them
 * after: survey_compare_checks() then survey_compare_finish() append exactly
 * what survey_compare() does. */
typedef struct survey_checked {
    findings got;      /* the checks on A and B */
    findings standing; /* the same checks with B := A */
} survey_checked;

void survey_compare_checks(survey_checked *c, const survey_pair *p, const index_module *config_a);
/* Appends to out; frees what c holds. */
void survey_compare_finish(findings *out, const survey_pair *p, survey_checked *c,
                           findings *targets);
void survey_checked_free(survey_checked *c);

/* Of the configs that fail to regenerate against B (outs[i].status < 0), those
 * that fail against A as well: 1 at their index in the returned array (n ints,
 * malloc'ed). Their failure is not the bump's; `pgci check` reports it. Only
 * the failing configs are regenerated again, against A (none when A is B), from
 * the configs at_b->evaluated holds when it holds them (not evaluated again).
 * *why_a: n messages (malloc'ed, as the array), each standing config's failure at
 * A in at_b's words (regen_causes.h reads it); NULL where there is none. */
int *survey_failing_at_a(const workspace *ws, const ws_config *const *sel, size_t n,
                         const regen_batch_opts *at_b, const regen_output *outs, const char *tag_a,
                         char ***why_a);

#endif
