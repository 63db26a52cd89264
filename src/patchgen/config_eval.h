/*
 * config_eval.h - evaluating *_patch_gen_config.py files statically (no Python).
 *
 * (Contract header: implemented by config_eval.c. See PATCHGEN_SPEC.md §1.)
 */
#ifndef PGCI_PATCHGEN_CONFIG_EVAL_H
#define PGCI_PATCHGEN_CONFIG_EVAL_H

#include "patchgen/patch_spec.h"
#include "workspace/workspace.h"

typedef struct config_eval config_eval;

/* An evaluator over one workspace: sibling-config imports resolve through the
 * workspace's package_prefix / search_root; each config file is parsed once per
 * evaluator (a cache by path), so one run parses every file at most once. ws may
 * be NULL (no sibling imports then); only root, search_root and package_prefix are
 * read. An evaluator is not thread-safe: use one per thread. */
int config_eval_new(config_eval **out, const workspace *ws);
void config_eval_free(config_eval *ev);

/* Evaluates the config file (workspace-relative or absolute path) and returns the
 * PatchConfig bound to `var_name` (NULL: "config"). Unsupported constructs that
 * touch a PatchConfig are errors naming file:line:col and the construct's text. */
int config_eval_file(config_eval *ev, const char *path, const char *var_name, pg_config **out);

/* config_eval_file() on source text instead of the file's contents (the fuzzer, the
 * tests); `path` names it in messages and gives its module name, and sibling imports
 * still resolve through the workspace. A path this evaluator has already evaluated
 * keeps its first result (the cache is by path). */
int config_eval_buffer(config_eval *ev, const char *path, const char *src, size_t len,
                       const char *var_name, pg_config **out);

/* Evaluates configs[0..n) on up to `jobs` worker threads (core/par), one evaluator
 * each: an evaluator is not thread-safe, and what a config evaluates to does not
 * depend on what else its evaluator loaded before. Each outcome lands in its slot:
 * cfgs[i], or NULL with rcs[i] the error code and whys[i] its message (the caller
 * frees the configs and the messages); ms[i] the time it took (ms may be NULL).
 * The configs of one package (directory) go to one worker as far as the load
 * allows, so that a config its siblings import is evaluated once. The configs are
 * self-contained: the evaluators are gone when this returns. */
void config_eval_all(const workspace *ws, const ws_config *const *configs, size_t n,
                     const char *var_name, int jobs, pg_config **cfgs, int *rcs, char **whys,
                     double *ms);

#endif
