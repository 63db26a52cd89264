/*
 * gate_verdict.h - what a gate run says about each config, and whether the run
 * itself could say anything.
 *
 * A config is "drift" only when its checked-in files differ from the fresh
 * regeneration (drift, ruff-equivalence, diff-consistency errors); any other
 * error makes it "error", and one that could not be regenerated is "failed".
 * An upstream that could not be read (no network, an unknown tag, HTML, binary)
 * or does not look like the module (empty, defining none of the classes and
 * functions the config patches) is the environment's failure, not the PR's: the
 * gate reports it as an error of the run (exit 2), never as findings.
 */
#ifndef PGCI_PIPELINE_GATE_VERDICT_H
#define PGCI_PIPELINE_GATE_VERDICT_H

#include "checks/finding.h"
#include "patchgen/patch_spec.h"
#include "patchgen/regen.h"

/* "ok", "drift", "error" or "failed" (regeneration failed: failed != 0). */
const char *gate_status_of(const findings *fs, const char *module, int failed);

/* The environment failure among outs[0..n) (cfgs: the evaluated configs, NULL
 * where evaluation failed), as one malloc'ed line naming the first and counting
 * the others; NULL when there is none. tag names the upstream tag. */
char *gate_env_failure(const regen_output *outs, pg_config *const *cfgs, size_t n, const char *tag);

#endif
