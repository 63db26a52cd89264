/*
 * normalize.h - patchgen's normalisation step (its _normalize.ruff_fix_and_format):
 * `ruff check --fix --quiet [--isolated] --ignore E402,B007[,extra] FILE` then
 * `ruff format --quiet [--isolated] FILE`, on a temporary file outside the
 * workspace, with the workspace root as working directory so that its ruff
 * configuration applies exactly as it does when patchgen's drift check runs there.
 *
 * ruff is run through the process API with an argument vector (never a shell).
 * A ruff that cannot be started, exits non-zero (as `ruff check --fix` does when
 * violations remain) or runs past the timeout is an error naming the command, its
 * exit status and its output.
 */
#ifndef PGCI_PATCHGEN_NORMALIZE_H
#define PGCI_PATCHGEN_NORMALIZE_H

#include <stddef.h>

#include "core/strbuf.h"
#include "core/vec.h"

typedef struct normalize_opts {
    const char *ruff;           /* the ruff command (argv[0]); NULL: "ruff" on PATH */
    const strvec *extra_ignore; /* ruff_extra_ignore codes, or NULL */
    int isolated;               /* ruff_isolated: pass --isolated */
    const char *cwd;            /* where ruff runs: the workspace root; NULL: inherit */
    const char *file_name;      /* base name of the temporary file ("x.py" when NULL) */
    int timeout_ms;             /* per ruff invocation; 0: 120 s */
} normalize_opts;

/* Normalises src[0..len) and appends the result to out. */
int normalize_ruff(const normalize_opts *o, const char *src, size_t len, strbuf *out);

/* The argument vectors normalize_ruff() runs, for messages and docs: `which` 0 is
 * the check, 1 the format; `file` is the path passed last. Free with strvec_free. */
void normalize_argv(const normalize_opts *o, int which, const char *file, strvec *argv);

/* "ruff 0.13.2" (the first line of `ruff --version`) into out. */
int normalize_ruff_version(const char *ruff, strbuf *out);

#endif
