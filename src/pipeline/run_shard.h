/*
 * run_shard.h - what a run.json records beyond findings: the shard it covers and
 * the error that stopped it; and the check that a set of shards is whole.
 *
 * `pgci check --shard K/N` records {"k", "n", "configs" (this shard's), "all"
 * (every config of the workspace)} under "shard", so `pgci report --merge` can
 * tell a missing or duplicated shard from a complete set instead of rendering a
 * partial run as the whole. A run stopped by an environment error (exit 2)
 * records it under "error", so the report and comment steps still have
 * something to show.
 */
#ifndef PGCI_PIPELINE_RUN_SHARD_H
#define PGCI_PIPELINE_RUN_SHARD_H

#include "core/vec.h"
#include "pipeline/run_doc.h"

/* Records shard k of n, with this shard's config modules and all of them. */
void run_doc_set_shard(run_doc *d, int k, int n, const strvec *configs, const strvec *all);

/* Records what each config of a run over part of the workspace (a shard, or the
 * configs named on the command line) writes: files[i] (relative to the workspace;
 * NULL: nothing) is the generated .py of configs[i] (its path), under
 * shard.outputs, or the run's "outputs" when d records no shard. */
void run_doc_set_outputs(run_doc *d, const char *const *configs, const char *const *files,
                         size_t n);

/* The one-line error of two configs writing one generated file, a and b in the
 * workspace's order (PGCI_EINVALID): the gate's, and the merge's of shards. */
int run_doc_shared_output_error(const char *a, const char *b, const char *file);

/* Two configs of the parts docs[0..n) that write one file (their outputs): the
 * first such pair in the workspace's order, as the unsharded gate finds it, with
 * the error set; 0 when none. Returns PGCI_EINVALID then. */
int run_doc_check_shared_outputs(const run_doc *docs, size_t n);

/* Records the error that stopped the run (one line). */
void run_doc_set_error(run_doc *d, const char *message);

/* The error a run recorded, or NULL. */
const char *run_doc_error(const run_doc *d);

/* Checks that docs[0..n) (from paths[0..n), for messages) are either no shards,
 * or every shard of one K/N split exactly once, together covering every config.
 * Returns 0, or PGCI_EINVALID with the message set. */
int run_doc_check_shards(const run_doc *docs, const char *const *paths, size_t n);

/* Drops findings that equal the one before them (a sorted array): a package-wide
 * check reports a package once per shard that holds one of its configs. */
void run_doc_dedupe_findings(run_doc *d);

#endif
