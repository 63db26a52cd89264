/*
 * regen_finding.h - a config that cannot be evaluated or regenerated, as a finding.
 */
#ifndef PGCI_CHECKS_REGEN_FINDING_H
#define PGCI_CHECKS_REGEN_FINDING_H

#include "checks/finding.h"
#include "patchgen/patch_spec.h"

/* Adds a "regen" error "<what>: <first line of message>", and what other causes the
 * message gives (regen_causes.h: " (and 4 more: F811 `causal_conv1d_fn`, ...)"); the other lines of
 * the message (ruff's diagnostics, say) become the detail. The finding is at the
 * config's line the message names (the evaluator's errors), else, when the
 * evaluated config cfg (may be NULL) has a positioned helper whose target the
 * output lacks, at the add_helper_after in the config's file that names it, else,
 * when ruff refused the output, at the line of the config's file that wrote the
 * line of ruff's first diagnostic (its frame's lines found among the config's
 * patch bodies and helpers, names_origin.h). */
void regen_finding(findings *out, const char *config, const char *path, const pg_config *cfg,
                   const char *what, const char *message);

#endif
