/*
 * regen.h - the regeneration pipeline for configs of a workspace: evaluate the
 * config, get the upstream module at a tag, generate, normalise with ruff, and
 * diff against upstream - the three artifacts patchgen would write (the .py, the
 * .diff) plus what patchgen does silently (codegen notes). Results are data;
 * nothing here prints.
 */
#ifndef PGCI_PATCHGEN_REGEN_H
#define PGCI_PATCHGEN_REGEN_H

#include <stddef.h>

#include "core/strbuf.h"
#include "patchgen/codegen.h"
#include "patchgen/normalize.h"
#include "patchgen/patch_spec.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

typedef struct regen_opts {
    const char *tag;     /* upstream tag, "v5.9.0" */
    const char *version; /* "Based on: transformers==..."; NULL: the tag without its "v" */
    int no_ruff;         /* 1: skip normalisation (raw output, .diff of the raw output) */
    normalize_opts ruff; /* file_name is filled per config */
    rcache *cache;       /* codegen results (ruff's go through ruff.cache); NULL: none */
    cg_shared *shared;   /* parses shared with the run's other configs; NULL: none */
} regen_opts;

/* One config's regeneration. Strings are owned (free with regen_output_free). */
typedef struct regen_output {
    char *config_path;   /* workspace-relative config file */
    char *config_module; /* dotted module of the config */
    char *source_module;
    char *target_file;
    char *py_path;   /* where the .py goes: <config dir>/generated/<target_file> (or -o DIR) */
    char *diff_path; /* <same dir>/<target stem>.diff */
    strbuf upstream; /* the upstream module as patchgen reads it */
    strbuf raw;      /* codegen output before ruff */
    strbuf py;       /* the normalised output (== raw with no_ruff, plus no final newline) */
    strbuf diff;     /* the .diff */
    cg_result cg;    /* notes of what patchgen does silently */
    int normalized;  /* 1 when ruff ran */
    double ms_eval, ms_fetch, ms_codegen, ms_ruff, ms_diff;
    int status;          /* 0, or the negative error code of the step that failed */
    int upstream_failed; /* 1 when the step that failed is reading the upstream module: an
                            environment failure (network, tag, source), not the config's */
    char *error;         /* its message */
} regen_output;

/* The output paths patchgen uses for a config at `config_dir` (workspace-relative)
 * and target_file, with `out_dir` overriding the generated/ directory. Fails on a
 * target_file that is not a safe relative path. */
int regen_output_paths(const char *config_dir, const char *out_dir, const char *target_file,
                       char **py_path, char **diff_path);

/* Generate, normalise and diff one evaluated config against its upstream module's
 * raw text. Fills out (which the caller zeroes); returns out->status. */
int regen_generate(const pg_config *cfg, const char *upstream_raw, size_t len, const regen_opts *o,
                   regen_output *out);

/* regen_generate() in three steps, for callers that normalise many outputs in
 * one ruff batch: codegen (fills upstream, raw, cg; py too with no_ruff), then
 * the caller normalises raw into py and reports the outcome to
 * regen_normalized() (status 0, or the error of normalize_ruff_batch's item),
 * then regen_finish() makes the .diff. Each returns out->status. */
int regen_codegen(const pg_config *cfg, const char *upstream_raw, size_t len, const regen_opts *o,
                  regen_output *out);
int regen_normalized(const pg_config *cfg, regen_output *out, int status, const char *error);
int regen_finish(const pg_config *cfg, regen_output *out);

/* The base name of the config's target file (ruff's temporary file name). */
const char *regen_file_name(const pg_config *cfg);

typedef struct regen_batch_opts {
    regen_opts base;
    const char *var_name; /* -c NAME; NULL: "config" */
    const char *out_dir;  /* -o DIR (absolute or relative to cwd); NULL: beside each config */
    int jobs;             /* worker threads; <= 0: 1 */
    upstream *up;         /* where upstream modules come from */
    /* configs already evaluated by the caller (borrowed, one per config, in the
     * same order): phase 1 is skipped. NULL: evaluate here. A NULL entry is a
     * config that did not evaluate: its error is eval_errors[i]. */
    pg_config *const *evaluated;
    const char *const *eval_errors;
    /* the run's parse set, shared with the upstream layer that validated the
     * modules (upstream_opts.parses); NULL: the batch keeps its own */
    py_parse_set *parses;
    /* whether each config regenerates is all that is asked (the survey's look at
     * tag B, and its second look, at tag A, at the configs failing at B): ruff's
     * check decides as always, its format and the .diff are skipped, and
     * outs[i].py and .diff are empty. A refusal's error is ruff's own words, as
     * the full way's, with verdict_words (the look at B, which reports it), and
     * not without (normalize_opts.words). */
    int verdict_only;
    int verdict_words;
    /* nobody reads the .diff (pgci regen without --diff): it is not made, and
     * outs[i].diff stays empty */
    int no_diff;
} regen_batch_opts;

/* The whole pipeline for configs[0..n) of ws, in parallel (each worker thread has
 * its own evaluator). outs[i] receives configs[i]'s result; a failure in one
 * config is recorded there and the others still run. Returns 0 when all
 * succeeded, else the first failure's code (in config order). */
int regen_workspace(const workspace *ws, const ws_config *const *configs, size_t n,
                    const regen_batch_opts *o, regen_output *outs);

void regen_output_free(regen_output *r);

#endif
