/*
 * finding_groups.h - findings that say one thing, shown once.
 *
 * A workspace file every config imports, or sibling configs' identical patches,
 * make one upstream change a finding per config: the same severity, check, place
 * and title, only the config differs (5.22.2 -> 5.24.0 on VeOmni: 145 errors for
 * five lines of one file). Annotations and code scanning show such a fact once,
 * naming its configs; the Markdown and the text output group by upstream change
 * on their own.
 */
#ifndef PGCI_REPORTS_FINDING_GROUPS_H
#define PGCI_REPORTS_FINDING_GROUPS_H

#include <jansson.h>
#include <stddef.h>

#include "core/vec.h"

typedef struct finding_group {
    json_t *first;  /* the group's first finding, borrowed from the run */
    strvec configs; /* the configs that have it, in the run's order, once each */
    size_t count;   /* findings in the group */
} finding_group;

typedef struct finding_groups {
    finding_group *items;
    size_t len, cap;
} finding_groups;

#define FINDING_GROUPS_INIT                                                                        \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Groups the findings (a JSON array of run.json findings) by severity, check,
 * path, line, column and title, in the order of each group's first finding. */
void finding_groups_build(finding_groups *out, json_t *findings);
void finding_groups_free(finding_groups *g);

#endif
