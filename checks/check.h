/*
 * check.h - the one interface every check implements.
 *
 * A check reads the run context (the workspace, one check_input per config with
 * its checked-in files, the upstream source and the fresh regeneration) and
 * appends findings. It never prints and never writes. When it cannot do its job
 * (no ruff, no upstream, no GPU) it says so by returning CHECK_NOT_RUN with a
 * reason: a check that did not run is never counted as passed.
 */
#ifndef PGCI_CHECKS_CHECK_H
#define PGCI_CHECKS_CHECK_H

#include <stddef.h>

#include "cache/result_cache.h"
#include "checks/finding.h"
#include "py/parse_set.h"
#include "core/strbuf.h"
#include "patchgen/codegen.h"
#include "patchgen/patch_spec.h"
#include "workspace/workspace.h"

/* One config as the checks see it. Byte buffers are not NUL-terminated
 * necessarily; lengths are given. NULL means "not available" (see each field). */
typedef struct check_input {
    const char *module;        /* config module name */
    const char *config_path;   /* workspace-relative path of the config file */
    const char *source_module; /* NULL when the config did not evaluate */
    const char *py_path;       /* workspace-relative checked-in .py (NULL: unknown) */
    const char *diff_path;     /* workspace-relative checked-in .diff */
    const char *checked_py;    /* NULL: the file is missing */
    size_t checked_py_len;
    const char *checked_diff; /* NULL: the file is missing */
    size_t checked_diff_len;
    const char *upstream; /* upstream module source at the tag; NULL: not fetched */
    size_t upstream_len;
    const char *raw; /* fresh codegen output before ruff; NULL: regeneration failed */
    size_t raw_len;
    const char *expected_py; /* fresh output after ruff; NULL: ruff not run */
    size_t expected_py_len;
    const char *expected_diff; /* .diff of upstream against expected_py (or raw) */
    size_t expected_diff_len;
    const char *error;    /* why evaluation or regeneration failed; NULL when it did not */
    const pg_config *cfg; /* evaluated config; NULL when evaluation failed */
    const cg_note *notes; /* what codegen did silently (missing targets, ...) */
    size_t n_notes;
} check_input;

typedef struct check_ctx {
    const workspace *ws;
    const char *tag; /* the upstream tag the regen used */
    check_input *inputs;
    size_t n_inputs;
    const char *ruff;         /* ruff command when available, else NULL */
    const char *ruff_version; /* "0.13.2" when known */
    const char *ruff_missing; /* why ruff is unavailable, when it is */
    /* Normalises a source the way the regeneration does (ruff check --fix, then
     * ruff format, with the workspace's settings); NULL when ruff is unavailable.
     * Provided by the pipeline so checks need not know how ruff is run. */
    int (*normalize)(void *arg, const char *path_hint, const char *src, size_t len, strbuf *out);
    void *normalize_arg;
    /* `pgci check --base REV`: the revision the change set is compared with (the
     * protocol-retired check reads the changed paths through libgit2); NULL: none */
    const char *base;
    int jobs; /* worker threads for check_each_input(); <= 0: 1 */
    /* the result cache, for checks whose results are a function of bytes they
     * are given (names); NULL: none */
    rcache *cache;
    /* the run's parse set: a regenerated (raw) output that more than one check
     * parses (ruff-equivalence's structural mode, names) is parsed once; NULL:
     * each parses its own */
    py_parse_set *parses;
    /* The other configs of the checked packages when only some are checked
     * (pgci check CONFIG, --shard): evaluated and read, never regenerated. Only
     * checks that read a package as a whole look at them (gate_context.h). */
    const check_input *context;
    size_t n_context;
} check_ctx;

/* CHECK_NOT_RUN: the check was asked for and could not run (it fails the gate
 * unless allowed to skip). CHECK_NOT_CONFIGURED: it needs something the workspace
 * or the invocation did not ask for ([tool.pgci] python, ruff under --no-ruff,
 * .diff files under --no-diff); listed, never failing. */
enum { CHECK_RAN = 0, CHECK_NOT_RUN = 1, CHECK_NOT_CONFIGURED = 2 };

/* One config's share of a check: appends its findings to out; returns 0, or a
 * negative error with the message set. Runs on a worker thread: it may read ctx
 * and in, and write only out. */
typedef int (*check_input_fn)(const check_ctx *ctx, const check_input *in, void *arg,
                              findings *out);

/* Calls fn for every input, up to ctx->jobs at once. The findings are added to
 * out in input order whatever the scheduling, so output does not depend on -j.
 * Returns 0, or the first failure in input order (its message set). */
int check_each_input(const check_ctx *ctx, check_input_fn fn, void *arg, findings *out);

/* A gate check that is the same work for every config, done config by config.
 * The gate runs the consecutive .each checks of check_registry[] as one group
 * (check_run_group): a worker runs all of them on one config, in table order,
 * then drops the config's regenerated tree, which they share (ruff-equivalence's
 * structural mode makes it, names reads it), so the run's peak memory is not every
 * config's trees at once. */
typedef struct check_each_def {
    /* Before any config: CHECK_RAN with *arg set for one() and end() (NULL is
     * fine), or CHECK_NOT_RUN / CHECK_NOT_CONFIGURED with *why set and nothing
     * allocated, or a negative error (message in the error slot). NULL: CHECK_RAN. */
    int (*begin)(const check_ctx *ctx, void **arg, strbuf *why);
    /* One config; on a worker thread, configs in any order, beside the other
     * checks of the group (so arg is shared across threads). */
    check_input_fn one;
    /* After every config: frees arg; returns CHECK_RAN, or CHECK_NOT_RUN with
     * *why set when there turned out to be nothing to check. NULL: CHECK_RAN. */
    int (*end)(const check_ctx *ctx, void *arg, strbuf *why);
} check_each_def;

struct survey_pair; /* checks/signatures.h */

/* One check: the record every check has, wherever it runs. A gate check sets
 * run (one pass over every config) or each (config by config), a survey contract
 * check compare; a check recorded by a pipeline stage or a command (regen,
 * logits) sets none. */
typedef struct check_def {
    const char *id;      /* "drift" */
    const char *summary; /* one line for --help and reports */
    /* A gate check: appends findings; returns CHECK_RAN, CHECK_NOT_RUN or
     * CHECK_NOT_CONFIGURED (with *why set), or a negative error (message in the
     * error slot). */
    int (*run)(const check_ctx *ctx, findings *out, strbuf *why);
    const check_each_def *each;
    /* A survey contract check: compares one config's upstream at tag A with tag
     * B and appends findings. NULL on a survey check whose findings another
     * check's compare makes (auto-docstring's come from signatures'). */
    void (*compare)(findings *out, const struct survey_pair *p);
} check_def;

/* Runs one gate check alone (.run, or .each over every input): its findings to
 * out; the status as .run's. */
int check_run(const check_def *c, const check_ctx *ctx, findings *out, strbuf *why);

/* One check's outcome in a group. */
typedef struct check_outcome {
    int status; /* CHECK_RAN, CHECK_NOT_RUN, CHECK_NOT_CONFIGURED, or a negative error */
    strbuf why; /* why it did not run, or the error's message */
    findings fs;
    double ms; /* time spent in its one(), summed over the workers */
} check_outcome;

/* Runs the .each checks defs[0..k) as one group over every input of ctx: out[c]
 * is check c's outcome (findings in input order, whatever -j; an error is the
 * first in input order). Free each with check_outcome_free(). */
void check_run_group(const check_ctx *ctx, const check_def *const *defs, size_t k,
                     check_outcome *out);
void check_outcome_free(check_outcome *o);

/* Which pipeline runs a check. */
typedef enum {
    CHECK_IN_GATE,   /* pgci check: .run or .each over every config, in table order */
    CHECK_IN_SURVEY, /* pgci survey: .compare over each config, in table order */
    CHECK_RECORDED,  /* a stage or a command records it itself (regen, logits) */
} check_where;

/* A row of check_registry[]. */
typedef struct check_entry {
    const check_def *def;
    check_where where;
    const char *title; /* the report's section title */
    int report_order;  /* the section's place in the report, 0 first */
} check_entry;

/* Every check pgci records in run.json, in run order (each pipeline runs its
 * rows in table order, and run.json lists checks as they ran); terminated by a
 * row whose def is NULL. See checks/registry.c for adding a check. */
extern const check_entry check_registry[];

/* Looks a check up by id among every check pgci has; NULL when unknown. */
const check_entry *check_find(const char *id);

#endif
