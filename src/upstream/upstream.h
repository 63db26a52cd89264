/*
 * upstream.h - getting the upstream `transformers` source of a module at a tag.
 *
 * One interface over three sources: http (libcurl, `curl -f` semantics), git (a
 * local clone through libgit2) and dir (a site-packages or a repository with src/).
 * Every file returned is UTF-8 Python that parses without errors; anything else
 * (an HTML page, binary data) is an error that says so. Results are kept in a
 * content-addressed cache; a warm run makes no request.
 *
 * (Contract header: implemented in upstream.c, source_http.c, source_git.c,
 * source_dir.c, cache.c.)
 */
#ifndef PGCI_UPSTREAM_UPSTREAM_H
#define PGCI_UPSTREAM_UPSTREAM_H

#include <stddef.h>

#include "core/strbuf.h"
#include "core/vec.h"

typedef struct upstream upstream;

typedef struct upstream_opts {
    /* "https://.../{tag}/src/{path}" (default when NULL), "git:/path/to/clone",
     * or "dir:/path" ({tag} may appear in the path). */
    const char *spec;
    const char *cache_dir;   /* NULL: $XDG_CACHE_HOME/pgci or ~/.cache/pgci */
    int no_cache;            /* 1: neither read nor write the cache */
    long connect_timeout_ms; /* 0: 10 s */
    long total_timeout_ms;   /* 0: 60 s */
    size_t max_bytes;        /* 0: 16 MiB */
    int retries;             /* 0: 3 (5xx, timeouts, connection errors only) */
    int jobs;                /* parallel transfers; 0: 8 */
} upstream_opts;

int upstream_open(upstream **out, const upstream_opts *opts);
void upstream_free(upstream *u);

/* "transformers.models.llama.modeling_llama" -> "transformers/models/llama/modeling_llama.py" */
void upstream_module_path(strbuf *out, const char *module);

/* The source of `module` at `tag` into out. */
int upstream_fetch(upstream *u, const char *tag, const char *module, strbuf *out);

/* Fetches many modules at one tag in parallel. results[i] receives the source of
 * modules->items[i]; errors[i] is NULL or the message for that module. Returns 0
 * when all succeeded, else the first error's code (every module is still tried). */
int upstream_fetch_all(upstream *u, const char *tag, const strvec *modules, strbuf *results,
                       char **errors);

/* Release tags known to the source (git: through libgit2; others: unsupported). */
int upstream_list_tags(upstream *u, strvec *out);

#endif
