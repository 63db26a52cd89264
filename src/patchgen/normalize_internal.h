/*
 * normalize_internal.h - shared by normalize.c (ruff on one file) and
 * normalize_batch.c (ruff on many, and the cache around both).
 */
#ifndef PGCI_PATCHGEN_NORMALIZE_INTERNAL_H
#define PGCI_PATCHGEN_NORMALIZE_INTERNAL_H

#include "patchgen/normalize.h"

/* normalize_argv's `which` beyond the check (0) and the format (1): the check
 * with a JSON report, without fixing (a lint) or with. */
enum { NORMALIZE_LINT_JSON = 2, NORMALIZE_CHECK_JSON = 3 };

/* ruff on one file, as patchgen runs it, without the cache. *refused (may be
 * NULL) is set to 1 when the failure is ruff's verdict on the file (`ruff check
 * --fix` exited 1: violations it could not fix), a function of the file and the
 * settings like a result, and 0 for any other failure (ruff missing, killed,
 * timed out, a broken configuration). */
int normalize_ruff_uncached(const normalize_opts *o, const char *src, size_t len, strbuf *out,
                            int *refused);

/* Runs one batched ruff (`which` 0: check --fix, 1: format, or one of the JSON
 * checks above) over files with the working directory, settings and report
 * format of the per-file way (so its report on each file reads as that file's
 * alone would). Returns 0 when ruff exited 0 (what it printed in out, when not
 * NULL); for a check, 1 when it exited 1 (violations --fix left), with its report
 * in out and what it wrote on stderr in err (may be NULL); negative otherwise. */
int normalize_run_many(const normalize_opts *o, int which, const strvec *files, strbuf *out,
                       strbuf *err);

/* Sets the error of a ruff process (argv) that exited with `status`: the command
 * and ruff's stderr and stdout, with the temporary directory `tmpdir` read as
 * "<tmp>", capped at a fixed budget. Returns PGCI_EIO. */
int normalize_ruff_failed(const char *const *argv, const char *tmpdir, int status, const char *err,
                          size_t err_len, const char *out, size_t out_len);

/* Cuts the text report of a batched `ruff check --fix` over files (each
 * dir/<k>/<name>, k its index) into each file's part: parts[k] (files->len of
 * them, initialised) gets what ruff prints for files[k] when it runs on that file
 * alone, with "dir/<k>" for that run's directory (empty: nothing to report).
 * Reads ruff's "full" (its default), "concise" and "pylint" formats. Returns how
 * many files have a part, or -1 when the report is not one it can cut
 * (normalize_report.c says when). */
long normalize_report_split(const char *rep, size_t len, const char *dir, const strvec *files,
                            strbuf *parts);

/* One lint of files (each items[todo[k]] written at files->items[k]) without
 * fixing: sure[k] = 1 for a file the fix loop is certain to leave clean
 * (normalize_prelint.c says when), 0 for one it must decide. Returns 0, or
 * negative (nothing marked) when ruff or its report failed. */
int normalize_prelint(const normalize_opts *o, const strvec *files, const normalize_item *items,
                      const size_t *todo, unsigned char *sure);

/* normalize_prelint's reading of the lint's JSON report (report[0..len)): sure[k]
 * as above. Returns 0, or negative (nothing marked) when the report is not a
 * JSON array of diagnostics naming the given files. */
int normalize_prelint_judge(const char *report, size_t len, const strvec *files,
                            const normalize_item *items, const size_t *todo, unsigned char *sure);

/* `ruff check --fix` over files with a JSON report: refused[k] = 1 for each file
 * it leaves a violation in. Returns 0, or negative when ruff failed otherwise or
 * its report cannot be read. */
int normalize_fix_verdicts(const normalize_opts *o, const strvec *files, unsigned char *refused);

#endif
