/*
 * changes.h - the survey's findings grouped by cause: one change per upstream
 * fact (a name no longer imported, a class renamed, a method whose signature
 * moved, a class no longer built by name), however many configs and patches it
 * hits. This is how a maintainer writes the upgrade note; the report renders one
 * section per change (reports/survey_note.c), run.json keeps both the findings
 * (one per fact per config) and the changes.
 *
 * Grouping reads only run.json's findings (their check, severity, title and data),
 * so a merged or reloaded document groups the same way as the run that wrote it.
 */
#ifndef PGCI_CHECKS_CHANGES_H
#define PGCI_CHECKS_CHANGES_H

#include <jansson.h>

/* How a change hits the configs, in the order the note lists them. */
typedef enum change_how {
    CHANGE_FAILS_REGEN = 0, /* a config no longer regenerates */
    CHANGE_DROPPED,         /* a patch is silently dropped or bypassed */
    CHANGE_BREAKS,          /* the generated code breaks at run time */
    CHANGE_CONTRACT,        /* the patch runs against a changed contract */
    CHANGE_DEPRECATION,     /* upstream announced a removal */
    CHANGE_OTHER,           /* notes */
} change_how;

/* "fails-to-regenerate", "silently-dropped", ... */
const char *change_how_name(change_how h);

/* What the survey's summaries count for one finding's target (check and
 * data.kind): 1 a target vanished, 2 a target's signature, decorators, bases or
 * attributes changed, 0 neither (a body change, a name no longer imported, ...).
 * The terminal line (pgci survey) and the report's first sentence both count
 * distinct targets by it. */
int changes_target_count_kind(const char *check, const char *kind);

/* Groups findings (a run.json findings array): sets data.change (the change id)
 * on each finding, creating data when null, and returns the changes, ordered for
 * the note: [{id, title, kind, how, severity, symbol, configs: [...], findings: n,
 * action}]. New reference. */
json_t *changes_group(json_t *fs);

#endif
