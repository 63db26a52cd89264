/*
 * source.h - what upstream.c needs from each source and from the cache (internal
 * to src/upstream/). A source only moves bytes and says why it could not;
 * upstream.c validates what comes back, words the "cannot fetch" message, and
 * decides what goes into the cache.
 */
#ifndef PGCI_UPSTREAM_SOURCE_H
#define PGCI_UPSTREAM_SOURCE_H

#include <stddef.h>

#include "core/strbuf.h"
#include "core/vec.h"

/* --- http (source_http.c) ----------------------------------------------------- */

typedef struct http_params {
    long connect_timeout_ms;
    long total_timeout_ms;
    long stall_timeout_ms;
    size_t max_bytes;
    int retries; /* extra attempts after the first */
    long retry_delay_ms;
    long retry_after_max_ms;
    int jobs;
    const char *ca_file; /* NULL: the system's CA store */
} http_params;

/* One URL to download. On return: code 0 and body filled, or code < 0 and why
 * ("HTTP 404", curl's error text, "over the N-byte size cap") malloc'ed. */
typedef struct http_job {
    const char *url;
    strbuf body;
    int code;
    char *why;
    int attempts;
} http_job;

/* Substitutes {tag} and {path} in a URL template. */
void http_url(strbuf *out, const char *tmpl, const char *tag, const char *path);

/* Called once per job as soon as its outcome is final, so the caller can validate
 * and store it while other transfers are still running. */
typedef void (*http_done_fn)(void *arg, size_t index);

/* Downloads every job, up to p->jobs at once through one curl multi handle, with
 * retries and backoff for transient failures. Returns the number of HTTP requests
 * made; the outcome of each job is in the job (and reported to done, when given). */
size_t http_fetch_jobs(const http_params *p, http_job *jobs, size_t n, http_done_fn done,
                       void *arg);

/* --- git (source_git.c) --------------------------------------------------------- */

typedef struct git_src git_src;

/* Opens the clone at repo_path; with fetch_tags, first fetches the tags of its
 * remote "origin", giving up after timeout_ms (0: no limit). */
int git_src_open(git_src **out, const char *repo_path, int fetch_tags, long timeout_ms);
void git_src_free(git_src *g);

/* The blob at refs/tags/<tag>:src/<path>, else refs/tags/<tag>:<path>. where gets
 * the repository and the revision tried. */
int git_src_read(git_src *g, const char *tag, const char *path, size_t max_bytes, strbuf *out,
                 strbuf *where);

/* The repository's tags, in version order (v5.9.0 before v5.10.0). */
int git_src_tags(git_src *g, strvec *out);

/* The tags the remote at url advertises, in version order, without a clone. */
int git_remote_tags(const char *url, strvec *out);

/* --- dir (source_dir.c) --------------------------------------------------------- */

/* The file for `path` under the directory template dir_tmpl ({tag} substituted):
 * <dir>/src/<path> (a repository) or <dir>/<path> (a site-packages). where gets the
 * file tried. */
int dir_src_read(const char *dir_tmpl, const char *tag, const char *path, size_t max_bytes,
                 strbuf *out, strbuf *where);

/* The tags of the directory template dir_tmpl: with {tag} in one of its path
 * components, the names in that component's directory that fill the {tag}
 * ("up-{tag}" and up-v1 give v1) and whose directory exists, in version order.
 * A template without {tag} has no tags (PGCI_EUNSUPPORTED). */
int dir_src_tags(const char *dir_tmpl, strvec *out);

/* --- cache (cache.c) ------------------------------------------------------------- */

/* The cache lives in `root`: objects/<sha256> holds each distinct file once;
 * keys/<sha256 of the key> names the object for one (source, tag, path). */

/* The cache root: $XDG_CACHE_HOME/pgci, else $HOME/.cache/pgci. */
int cache_default_dir(strbuf *out);

/* 1 and the contents in out on a hit (the object's hash is verified); 0 on a miss
 * or a damaged entry. Never an error: a cache that cannot be read is a miss. */
int cache_get(const char *root, const char *key, strbuf *out);

/* Stores data under key: the object first, then the key, each atomically. */
int cache_put(const char *root, const char *key, const char *data, size_t len);

#endif
