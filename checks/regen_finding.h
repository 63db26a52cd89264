/*
 * regen_finding.h - a config that cannot be evaluated or regenerated, as a finding.
 */
#ifndef PGCI_CHECKS_REGEN_FINDING_H
#define PGCI_CHECKS_REGEN_FINDING_H

#include "checks/finding.h"

/* Adds a "regen" error "<what>: <first line of message>", and what other causes the
 * message gives (regen_causes.h: " (and 4 more: F811 `causal_conv1d_fn`, ...)"); the other lines of
 * the message (ruff's diagnostics, say) become the detail. */
void regen_finding(findings *out, const char *config, const char *path, const char *what,
                   const char *message);

#endif
