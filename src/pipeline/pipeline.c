/*
 * What the gate and the survey share: which configs to run on, which ruff to run,
 * the upstream the workspace names, and that no two configs write one file.
 */
#include "pipeline/pipeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/hashmap.h"
#include "pipeline/run_shard.h"

int pipeline_parse_shard(const char *s, int *k, int *n)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (*end != '/')
        goto bad;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 1 || b < 1 || a > b || b > 10000)
        goto bad;
    *k = (int)a;
    *n = (int)b;
    return 0;
bad:
    return pgci_error_set(PGCI_EUSAGE, "--shard wants K/N with 1 <= K <= N, not '%s'", s);
}

int pipeline_select(const workspace *ws, const strvec *only, int shard_k, int shard_n,
                    const ws_config ***out, size_t *n)
{
    const ws_config **sel = pgci_calloc(ws->configs.len + 1, sizeof(*sel));
    size_t m = 0;
    if (only && only->len) {
        for (size_t i = 0; i < only->len; i++) {
            const ws_config *c = workspace_find_config(ws, only->items[i]);
            if (!c) {
                free(sel);
                return pgci_error_set(PGCI_ENOTFOUND, "no config '%s' in %s (see pgci list)",
                                      only->items[i], ws->root);
            }
            int dup = 0;
            for (size_t k = 0; k < m; k++)
                dup |= sel[k] == c;
            if (!dup)
                sel[m++] = c;
        }
    } else {
        for (size_t i = 0; i < ws->configs.len; i++)
            sel[m++] = &ws->configs.items[i];
    }
    if (shard_n > 1) {
        /* round robin keeps shards balanced when configs are sorted by model */
        size_t w = 0;
        for (size_t i = 0; i < m; i++)
            if ((int)(i % (size_t)shard_n) == shard_k - 1)
                sel[w++] = sel[i];
        m = w;
    }
    *out = sel;
    *n = m;
    return 0;
}

/* A ruff command with a '/' runs with the workspace root as its working
 * directory, so a relative one is made absolute first: against the current
 * directory when given on the command line, against the workspace root when it
 * comes from [tool.pgci]. A bare name is left for PATH. */
char *pipeline_ruff_command(const workspace *ws, const char *cli)
{
    const char *cmd = cli ? cli : ws->ruff ? ws->ruff : "ruff";
    if (!strchr(cmd, '/') || cmd[0] == '/')
        return pgci_strdup(cmd);
    strbuf p = STRBUF_INIT;
    if (cli) {
        char cwd[4096];
        if (getcwd(cwd, sizeof(cwd)))
            fs_join(&p, cwd, cmd);
        else
            strbuf_adds(&p, cmd);
    } else {
        fs_join(&p, ws->root, cmd);
    }
    return strbuf_detach(&p, NULL);
}

int pipeline_upstream_open(upstream **out, const workspace *ws, const char *source,
                           const char *cache_dir, int jobs)
{
    return pipeline_upstream_open_with(out, ws, source, cache_dir, jobs, NULL, NULL, 0);
}

int pipeline_upstream_open_with(upstream **out, const workspace *ws, const char *source,
                                const char *cache_dir, int jobs, py_parse_set *parses,
                                rcache *results, int no_cache)
{
    upstream_opts uo;
    memset(&uo, 0, sizeof(uo));
    uo.spec = source ? source : ws->upstream;
    uo.base_dir = ws->root;
    uo.cache_dir = cache_dir;
    uo.jobs = jobs;
    uo.parses = parses;
    uo.results = results;
    uo.no_cache = no_cache;
    return upstream_open(out, &uo);
}

/* rel with its "." and empty parts dropped ("a/./b//c" is "a/b/c"). */
static char *path_clean(const char *rel)
{
    strbuf n = STRBUF_INIT;
    for (const char *s = rel; *s;) {
        size_t len = strcspn(s, "/");
        if (len && !(len == 1 && s[0] == '.'))
            strbuf_addf(&n, "%s%.*s", n.len ? "/" : "", (int)len, s);
        s += len + (s[len] == '/');
    }
    return strbuf_detach(&n, NULL);
}

/* What identifies the file a generated path names: its directory's real path and
 * its name when the directory exists (two paths through a symlinked directory are
 * one file), else the cleaned path. */
static char *output_identity(const char *root, const char *rel)
{
    strbuf p = STRBUF_INIT;
    fs_join(&p, root, rel);
    char *dir = fs_dirname(p.buf);
    char *real = realpath(dir, NULL);
    char *id = real ? pgci_asprintf("%s/%s", real, strrchr(p.buf, '/') + 1) : path_clean(rel);
    free(real);
    free(dir);
    strbuf_free(&p);
    return id;
}

char *pipeline_output_file(const char *root, const char *rel)
{
    char *id = output_identity(root, rel);
    char *real_root = id[0] == '/' ? realpath(root, NULL) : NULL;
    size_t n = real_root ? strlen(real_root) : 0;
    if (n > 1 && !strncmp(id, real_root, n) && id[n] == '/')
        memmove(id, id + n + 1, strlen(id + n + 1) + 1);
    free(real_root);
    return id;
}

int pipeline_require_distinct_outputs(const char *root, const char *const *configs,
                                      const char *const *pys, size_t n)
{
    hashmap seen = HASHMAP_INIT; /* identity -> 1 + the index of the first config */
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        if (!pys[i])
            continue;
        char *id = output_identity(root, pys[i]);
        uintptr_t first = (uintptr_t)hashmap_get(&seen, id);
        if (first) {
            char *py = path_clean(pys[first - 1]);
            r = run_doc_shared_output_error(configs[first - 1], configs[i], py);
            free(py);
        } else {
            hashmap_put(&seen, id, (void *)(uintptr_t)(i + 1));
        }
        free(id);
    }
    hashmap_free(&seen);
    return r;
}
