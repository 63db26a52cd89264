/*
 * The registry: which checks `pgci check` runs, in report order.
 */
#include <string.h>

#include "checks/checks.h"

const check_def *const check_gate[] = {
    &check_drift,
    &check_ruff_equivalence,
    &check_diff_consistency,
    &check_names,
    &check_targets,
    &check_protocol_registration,
    &check_protocol_retired,
    &check_protocol_comments,
    &check_protocol_siblings,
    &check_protocol_tests,
    &check_protocol_import,
    NULL,
};

const check_def *check_find(const char *id)
{
    for (size_t i = 0; check_gate[i]; i++)
        if (!strcmp(check_gate[i]->id, id))
            return check_gate[i];
    return NULL;
}
