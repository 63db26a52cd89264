/*
 * gate_ruff.h - the gate's ruff over the checked-in files (what ruff-equivalence
 * asks: is each one a ruff fixed point?), as one batch on a thread of its own
 * that runs while the configs are regenerated, so that on two cores ruff's work
 * on the checked-in files and codegen's overlap.
 *
 * The checks then get their normalisations through gate_ruff_normalize() (the
 * check_ctx.normalize callback): a source the batch normalised (same file name,
 * same bytes) is answered from it, anything else through normalize_ruff().
 */
#ifndef PGCI_PIPELINE_GATE_RUFF_H
#define PGCI_PIPELINE_GATE_RUFF_H

#include <stddef.h>

#include "core/strbuf.h"
#include "patchgen/normalize.h"

typedef struct gate_ruff gate_ruff;

/* Starts reading and normalising root/paths[0..n) (workspace-relative; NULL or
 * missing files are skipped) with the settings of o (copied; what it points to
 * must outlive the gate_ruff). Never fails: a file that cannot be read or a ruff
 * that fails only means the checks ask again. */
gate_ruff *gate_ruff_start(const normalize_opts *o, const char *root, const char *const *paths,
                           size_t n);

/* Waits for the batch to finish. Call before the checks run. */
void gate_ruff_wait(gate_ruff *g);

/* check_ctx.normalize: arg is the gate_ruff. */
int gate_ruff_normalize(void *arg, const char *path_hint, const char *src, size_t len, strbuf *out);

/* Waits if need be, then frees. Accepts NULL. */
void gate_ruff_free(gate_ruff *g);

#endif
