/*
 * gate_fix.h - `pgci check --fix`: rewrite what drifted, and only what can be
 * trusted.
 *
 * A config's files are rewritten only when its regeneration is the whole story:
 * a config with any error from another check in the same run (a missing or
 * vanished target, a names error, an upstream that does not look like the
 * module) or a misspelled target (a near miss) is left alone and said so; a
 * finding that only says the config's generated file is absent (data kind
 * "not-checked-in") does not count, since writing the file answers it. Every path is checked to
 * resolve inside the workspace before the first byte is written (fs_safe.h); a replaced file keeps
 * its mode and owner. The drift, ruff-equivalence and .diff findings of the files
 * rewritten are fixed, so they leave the findings for the run's `fixed` list.
 */
#ifndef PGCI_PIPELINE_GATE_FIX_H
#define PGCI_PIPELINE_GATE_FIX_H

#include "checks/check.h"
#include "checks/finding.h"
#include "core/vec.h"

/* Rewrites the drifted files of in[0..n) under root. fixed gets the paths written,
 * refused one "module: why" per config left alone. Returns 0, or a negative error
 * (message set) when a path is refused or a write fails: then, when the refusal
 * came from the check before writing, nothing was written. */
int gate_fix_apply(const char *root, const check_input *in, size_t n, findings *fs, strvec *fixed,
                   strvec *refused);

#endif
