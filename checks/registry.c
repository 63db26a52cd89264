/*
 * The check table: every check pgci knows, one row each.
 *
 * Adding a new check
 * ------------------
 * 1. Write checks/<name>.c, one check per file:
 *    - a gate check (over the configs and what is checked in) defines
 *      `const check_def check_<name> = {.id = "<id>", .summary = "...",
 *      .run = run_<name>};`
 *      and declares it in checks/checks.h;
 *    - a survey contract check (over one config's upstream at tag A and tag B)
 *      is a function over a `survey_pair` declared in checks/contracts.h, and
 *      its check_def, `survey_<name>`, goes below with `.compare` set to it.
 * 2. Add its row to check_registry[] below. Rows are in run order: `pgci check`
 *    runs the CHECK_IN_GATE rows, `pgci survey` the CHECK_IN_SURVEY rows, each
 *    in the order they appear here, and run.json lists the checks as they ran.
 * 3. Give it its report section: `.title`, and `.report_order`, its place among
 *    the sections of the Markdown report (renumber the rows after it). The
 *    report order is the table order except where noted at a row.
 * Nothing else: the gate, the survey, run.json and the reports take the check's
 * id, place and title from here (tests/unit/test_checks_registry.c checks the
 * table is whole).
 */
#include <string.h>

#include "checks/callees.h"
#include "checks/checks.h"
#include "checks/contracts.h"
#include "checks/inherited.h"

/* Recorded by the regeneration stage of either pipeline. */
static const check_def recorded_regen = {.id = "regen",
                                         .summary = "the config could not be regenerated"};
/* Recorded by pgci run and pgci logits (the kernels, not a pipeline). */
static const check_def recorded_logits = {.id = "logits",
                                          .summary = "kernel-vs-reference logits on toy models"};

/* The survey contract checks (checks/signatures.c, checks/contracts.h). */
static const check_def survey_signatures = {.id = "signatures",
                                            .summary = "targets whose upstream contract changed",
                                            .compare = signatures_compare};
static const check_def survey_auto_docstring = {
    .id = "auto-docstring",
    .summary = "overrides whose docstring lacks new Args"}; /* signatures' compare */
static const check_def survey_deprecations = {
    .id = "deprecations",
    .summary = "upstream code the patches touch that will be removed",
    .compare = check_deprecations};
static const check_def survey_name_map_fields = {.id = "name-map-fields",
                                                 .summary =
                                                     "reused bodies missing dataclass fields",
                                                 .compare = check_name_map_fields};
static const check_def survey_callees = {.id = "callees",
                                         .summary = "what patch bodies call and read upstream",
                                         .compare = check_callees};
static const check_def survey_inherited = {.id = "inherited",
                                           .summary =
                                               "base methods that now tell classes by module",
                                           .compare = check_inherited};
static const check_def survey_rope_compat = {.id = "rope-compat",
                                             .summary =
                                                 "fused rotary on partial or interleaved rotary",
                                             .compare = check_rope_compat};

const check_entry check_registry[] = {
    {&recorded_regen, CHECK_RECORDED, "Configs that fail to regenerate", 0},
    {&check_drift, CHECK_IN_GATE, "Drift from the checked-in files", 1},
    {&check_ruff_equivalence, CHECK_IN_GATE, "Ruff equivalence", 2},
    {&check_diff_consistency, CHECK_IN_GATE, "Stale .diff files", 3},
    {&check_names, CHECK_IN_GATE, "Undefined and redefined names", 4},
    /* the survey records targets too, after its regeneration */
    {&check_targets, CHECK_IN_GATE, "Patch targets", 5},
    {&survey_signatures, CHECK_IN_SURVEY, "Signature changes upstream", 6},
    {&survey_callees, CHECK_IN_SURVEY, "What patch bodies use", 7},
    {&survey_auto_docstring, CHECK_IN_SURVEY, "@auto_docstring arguments", 8},
    /* the survey runs deprecations before name-map-fields; the report has its
     * section after inherited */
    {&survey_deprecations, CHECK_IN_SURVEY, "Deprecations", 12},
    {&survey_name_map_fields, CHECK_IN_SURVEY, "name_map output fields", 9},
    {&survey_rope_compat, CHECK_IN_SURVEY, "Rotary compatibility", 10},
    {&survey_inherited, CHECK_IN_SURVEY, "Inherited behaviour", 11},
    {&recorded_logits, CHECK_RECORDED, "Logits equality", 13},
    {&check_protocol_registration, CHECK_IN_GATE, "Model registration", 14},
    {&check_protocol_retired, CHECK_IN_GATE, "Retired files", 15},
    {&check_protocol_comments, CHECK_IN_GATE, "Patch comment style", 16},
    {&check_protocol_siblings, CHECK_IN_GATE, "GPU/NPU siblings", 17},
    {&check_protocol_tests, CHECK_IN_GATE, "Tests enumerate the model", 18},
    {&check_protocol_import, CHECK_IN_GATE, "Import smoke", 19},
    {NULL, CHECK_RECORDED, NULL, 0},
};

const check_entry *check_find(const char *id)
{
    for (const check_entry *e = check_registry; e->def; e++)
        if (!strcmp(e->def->id, id))
            return e;
    return NULL;
}
