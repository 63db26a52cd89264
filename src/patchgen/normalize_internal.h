/*
 * normalize_internal.h - shared by normalize.c (ruff on one file) and
 * normalize_batch.c (ruff on many, and the cache around both).
 */
#ifndef PGCI_PATCHGEN_NORMALIZE_INTERNAL_H
#define PGCI_PATCHGEN_NORMALIZE_INTERNAL_H

#include "patchgen/normalize.h"

/* ruff on one file, as patchgen runs it, without the cache. *refused (may be
 * NULL) is set to 1 when the failure is ruff's verdict on the file (`ruff check
 * --fix` exited 1: violations it could not fix), a function of the file and the
 * settings like a result, and 0 for any other failure (ruff missing, killed,
 * timed out, a broken configuration). */
int normalize_ruff_uncached(const normalize_opts *o, const char *src, size_t len, strbuf *out,
                            int *refused);

/* Runs one batched ruff (`which` 0: check --fix, 1: format) over files with
 * the working directory and settings of o. Returns 0 when ruff exited 0; for the
 * check, 1 when it exited 1 (violations --fix left), with its JSON report of
 * them (--output-format json) in out; negative otherwise. */
int normalize_run_many(const normalize_opts *o, int which, const strvec *files, strbuf *out);

#endif
