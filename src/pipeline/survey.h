/*
 * survey.h - the pin-bump survey as a library call: what breaks, and what breaks
 * silently, if the workspace moves from upstream tag A to tag B.
 *
 * Every config is evaluated; every module a config names is fetched and indexed
 * at both tags; every config is regenerated against B (codegen and ruff errors,
 * missing targets: "N of M configs fail to regenerate"); and the two indexes are
 * compared under each patch (signatures.h), with the contract checks that need
 * both tags (deprecations, name_map output fields, rotary compatibility).
 */
#ifndef PGCI_PIPELINE_SURVEY_H
#define PGCI_PIPELINE_SURVEY_H

#include "checks/finding.h"
#include "core/vec.h"
#include "pipeline/run_doc.h"
#include "workspace/workspace.h"

typedef struct survey_opts {
    const char *from;   /* a tag, or "pin" (default) */
    const char *to;     /* a tag, or "latest" */
    const char *source; /* upstream source spec; NULL: the workspace's */
    const char *ruff;   /* NULL: [tool.pgci] ruff, else "ruff" */
    int no_ruff;
    const char *var_name;
    const strvec *only;
    int shard_k, shard_n;
    int jobs;
    const char *cache_dir; /* pgci's cache (upstream files; results/ under it); NULL: default */
    int no_cache;          /* neither read nor write the result cache nor the upstream files' */
    int timestamp;
    int exits_after; /* the process exits after the run: the trees are left to the exit */
} survey_opts;

typedef struct survey_result {
    findings fs;
    run_doc doc;
    char *from, *to; /* resolved tags */
    size_t n_configs;
    size_t n_failed;   /* configs that fail to evaluate or regenerate against `to` */
    size_t n_standing; /* of those, configs that fail to regenerate against `from` too */
    size_t n_vanished; /* targets that vanished */
    size_t n_changed;  /* targets whose signature, decorators, bases or attributes changed */
    strvec not_run;
} survey_result;

int survey_run(const workspace *ws, const survey_opts *o, survey_result *out);
void survey_result_free(survey_result *r);

#endif
