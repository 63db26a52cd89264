/*
 * upstream.h - getting the upstream `transformers` source of a module at a tag.
 *
 * One interface over three sources: http (libcurl, `curl -f` semantics), git (a
 * local clone through libgit2) and dir (a site-packages or a repository with src/).
 * Every file returned is UTF-8 Python that parses without errors and is a module
 * (not empty, except a package's __init__.py; not a JSON document); anything else
 * (an HTML page, binary data, an empty body) is an error that says so. Results are kept in a
 * content-addressed cache; a warm run makes no request.
 *
 * (Contract header: implemented in upstream.c, source_http.c, source_git.c,
 * source_dir.c, cache.c.)
 */
#ifndef PGCI_UPSTREAM_UPSTREAM_H
#define PGCI_UPSTREAM_UPSTREAM_H

#include <stddef.h>

#include "cache/result_cache.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "py/parse_set.h"

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
    /* Added by the fetch implementation (all optional, zero means the default): */
    const char *base_dir;    /* relative git:/dir: paths resolve against it (the
                                workspace root); NULL: the current directory */
    long stall_timeout_ms;   /* abort a body that stalls (under 1 byte/s) this long; 0: 30 s */
    long retry_delay_ms;     /* first backoff delay, doubled per retry; 0: 500 ms */
    long retry_after_max_ms; /* cap on a server's Retry-After; 0: 60 s */
    int git_fetch;           /* git: fetch tags from the clone's remote "origin" first */
    const char *ca_file;     /* http: trust these CA certificates (PEM) instead of the
                                system's; NULL: the system store */
    py_parse_set *parses;    /* validation parses into this run's parse set (borrowed,
                                it must outlive the upstream), so that the code
                                generator reuses them; NULL: parse and drop */
    rcache *results;         /* the result cache: bytes validated by an earlier run of
                                this pgci build are not parsed again; NULL: none */
} upstream_opts;

/* retries < 0 means no retry at all (0 keeps the default of 3). */

/* What a handle did so far, for the summary line of `pgci fetch`. */
typedef struct upstream_stats {
    size_t fetched;  /* files read from the source (network, clone or directory) */
    size_t cached;   /* files served from the cache */
    size_t bytes;    /* bytes of all files returned */
    size_t requests; /* HTTP requests made, retries included */
} upstream_stats;

/* The kinds of upstream source, told by the spec's prefix. */
typedef enum upstream_kind {
    UPSTREAM_HTTP, /* "https://..." or "http://...": a URL template with {path} */
    UPSTREAM_GIT,  /* "git:PATH": a local clone */
    UPSTREAM_DIR,  /* "dir:PATH": a directory, {tag} may appear in PATH */
} upstream_kind;

/* The one place a spec's prefix is read: its kind, or -1 when it has none (or
 * nothing after "git:"/"dir:"). *path: the spec itself for http, what follows the
 * prefix for git: and dir:. */
int upstream_spec_kind(const char *spec, const char **path);

int upstream_open(upstream **out, const upstream_opts *opts);
void upstream_free(upstream *u);

/* "transformers.models.llama.modeling_llama" -> "transformers/models/llama/modeling_llama.py" */
void upstream_module_path(strbuf *out, const char *module);

/* Checks a module name from input: identifiers separated by single dots. */
int upstream_module_check(const char *module);

/* Checks a tag from input: letters, digits, '.', '_', '+', '-', not starting with
 * '.' or '-' (it lands in URLs, git refs and directory names). */
int upstream_tag_check(const char *tag);

/* Checks that data is what a fetched module must be: not binary, valid UTF-8, not
 * an HTML page, Python without syntax errors. `name` names it in the message. */
int upstream_validate(const char *data, size_t len, const char *name);
/* Validation from now on parses into `parses` (borrowed; NULL: parse and drop). */
void upstream_set_parse_set(upstream *u, py_parse_set *parses);

/* The same, keeping the tree in `parses` (NULL: as upstream_validate). */
int upstream_validate_shared(const char *data, size_t len, const char *name, py_parse_set *parses);

/* s with the user information of every URL in it ("https://user:token@host/")
 * written as "***@": a token in a source template never reaches a message, a
 * log, run.json or the cache's keys. Caller frees. */
char *upstream_redact(const char *s);

/* A short description of the source for messages: the URL template (its user
 * information redacted), the repository path or the directory. */
const char *upstream_describe(const upstream *u);

/* Counters since upstream_open(). */
void upstream_get_stats(const upstream *u, upstream_stats *out);

/* The source of `module` at `tag` into out. */
int upstream_fetch(upstream *u, const char *tag, const char *module, strbuf *out);

/* Fetches many modules at one tag in parallel. results[i] receives the source of
 * modules->items[i]; errors[i] is NULL or the message for that module. Returns 0
 * when all succeeded, else the first error's code (every module is still tried). */
int upstream_fetch_all(upstream *u, const char *tag, const strvec *modules, strbuf *results,
                       char **errors);

/* One (tag, module) pair of a batch, and the parse set the tree its validation
 * makes goes to (NULL: the upstream's, upstream_set_parse_set). */
typedef struct upstream_item {
    const char *tag;
    const char *module;
    py_parse_set *parses;
} upstream_item;

/* Like upstream_fetch_all, for pairs at any tags: everything missing from the cache
 * goes out at once (http: all transfers in one multi handle, up to `jobs` at a
 * time), so fetching M modules at T tags takes one round, not T. */
int upstream_fetch_batch(upstream *u, const upstream_item *items, size_t n, strbuf *results,
                         char **errors);

/* Tags known to the source, in version order: a git: clone's own (libgit2); for an
 * https: template, those its git repository advertises (upstream_repo_url), listed
 * like `git ls-remote --tags` without a clone; for a dir: source with {tag} in
 * its path, the directories that exist as tags (dir_src_tags); one without {tag}
 * has none (PGCI_EUNSUPPORTED). */
int upstream_list_tags(upstream *u, strvec *out);

/* The git repository an https: URL template reads from, or NULL when the template
 * does not tell: ".../OWNER/REPO/raw/{tag}/..." (GitHub), ".../OWNER/REPO/-/raw/
 * {tag}/..." (GitLab), "https://raw.githubusercontent.com/OWNER/REPO/{tag}/...".
 * Caller frees. */
char *upstream_repo_url(const char *tmpl);

/* The tags the git remote at url (https://, file://, a path) advertises. */
int upstream_remote_tags(const char *url, strvec *out);

#endif
