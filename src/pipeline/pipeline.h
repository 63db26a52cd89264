/*
 * pipeline.h - what both pipelines (the gate, pipeline/gate.h, and the survey,
 * pipeline/survey.h) share: the config selection, the ruff command and the
 * workspace's upstream. Commands that take the same options (pgci regen --shard)
 * use them too, so every command reads them the same way.
 */
#ifndef PGCI_PIPELINE_PIPELINE_H
#define PGCI_PIPELINE_PIPELINE_H

#include "core/vec.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

/* Parses "K/N" (1 <= K <= N). */
int pipeline_parse_shard(const char *s, int *k, int *n);

/* The configs of ws selected by `only` and the shard, in discovery order. Fails
 * on a name that matches no config. */
int pipeline_select(const workspace *ws, const strvec *only, int shard_k, int shard_n,
                    const ws_config ***out, size_t *n);

/* The ruff command to run (malloc'ed): `cli` (--ruff) or [tool.pgci] ruff or
 * "ruff", made absolute when it is a relative path. */
char *pipeline_ruff_command(const workspace *ws, const char *cli);

/* Opens the workspace's upstream: `source` when not NULL, else the workspace's
 * ([tool.pgci] upstream or the default), a relative dir: path read under the
 * workspace root. cache_dir NULL: the default cache. */
int pipeline_upstream_open(upstream **out, const workspace *ws, const char *source,
                           const char *cache_dir, int jobs);

/* The same, the upstream validating into the run's parse set and remembering
 * valid files in the result cache (either may be NULL; both must outlive it).
 * no_cache: upstream files are fetched again, never read from (nor written to)
 * the cache of upstream files (--no-cache). */
int pipeline_upstream_open_with(upstream **out, const workspace *ws, const char *source,
                                const char *cache_dir, int jobs, py_parse_set *parses,
                                rcache *results, int no_cache);

/* Fails when two configs write one file: pys[i] (relative to root; NULL: config i
 * writes nothing) names the generated .py of configs[i]. Two paths through a
 * symlinked directory, or differing by "./", are one file. The error names both
 * configs and the file: each regeneration would pass while the other drifts, and
 * every write would put one over the other, run after run. */
int pipeline_require_distinct_outputs(const char *root, const char *const *configs,
                                      const char *const *pys, size_t n);

/* The file the generated path rel (relative to root) names, as
 * pipeline_require_distinct_outputs tells files apart, relative to root's real
 * path when it is under it ("a/./gen/x.py" and a path through a symlinked
 * directory to it are one name), malloc'ed: what a shard records, so that
 * report --merge can tell two configs of different shards writing one file. */
char *pipeline_output_file(const char *root, const char *rel);

#endif
