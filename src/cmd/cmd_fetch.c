/*
 * pgci fetch - get the upstream modules at one or more tags into the cache.
 *
 * Every (module, tag) is tried, even after a failure, so one run reports every
 * problem; each failure is one line on stderr and the exit status is then 2.
 * The summary goes to stdout (stderr with --print, which writes the sources
 * themselves to stdout).
 *
 * Without --module the modules come from the workspace (-C DIR, else the current
 * directory): the source_module of every config. The workspace also supplies the
 * source ([tool.pgci] upstream) unless --source is given, and the tag (v<pin>)
 * unless --tag is.
 */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/log.h"
#include "core/sha256.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

static const char usage[] =
    "pgci fetch [--tag T ...] [--module M ...] [--source SPEC] [--no-cache] [-C DIR]";
static const char summary[] =
    "Fetches upstream modules at each tag into the cache ($XDG_CACHE_HOME/pgci).\n"
    "SPEC is an https:// URL template with {tag} and {path} (default: GitHub's\n"
    "huggingface/transformers raw files), git:PATH (a local clone) or dir:PATH\n"
    "(a site-packages or a checkout; {tag} allowed). Without --module: every\n"
    "config's source_module in the workspace, from its [tool.pgci] upstream, at\n"
    "v<pin> unless --tag is given. Exit 2 if any file could not be fetched, after\n"
    "trying every one.";

static int print_tags(upstream *u)
{
    strvec tags = STRVEC_INIT;
    int r = upstream_list_tags(u, &tags);
    if (r == 0)
        for (size_t i = 0; i < tags.len; i++)
            printf("%s\n", tags.items[i]);
    strvec_free(&tags);
    return r < 0 ? cmd_error() : EXIT_CLEAN;
}

/* --format json: every (tag, module) with its path, size and SHA-256, or its error,
 * then the counters. Errors are on stderr as well, one line each. */
static int print_json(upstream *u, const upstream_item *items, const strbuf *results,
                      char *const *errors, size_t total, size_t failed)
{
    json_t *root = json_object(), *files = json_array();
    json_object_set_new(root, "source", json_string(upstream_describe(u)));
    for (size_t k = 0; k < total; k++) {
        json_t *f = json_object();
        json_object_set_new(f, "tag", json_string(items[k].tag));
        json_object_set_new(f, "module", json_string(items[k].module));
        if (errors[k]) {
            json_object_set_new(f, "error", json_string(errors[k]));
        } else {
            strbuf path = STRBUF_INIT;
            char hex[SHA256_HEX_LEN + 1];
            upstream_module_path(&path, items[k].module);
            sha256_hex(results[k].buf, results[k].len, hex);
            json_object_set_new(f, "path", json_string(path.buf));
            json_object_set_new(f, "bytes", json_integer((json_int_t)results[k].len));
            json_object_set_new(f, "sha256", json_string(hex));
            strbuf_free(&path);
        }
        json_array_append_new(files, f);
    }
    json_object_set_new(root, "files", files);
    upstream_stats st;
    upstream_get_stats(u, &st);
    json_t *sum = json_object();
    json_object_set_new(sum, "fetched", json_integer((json_int_t)st.fetched));
    json_object_set_new(sum, "from_cache", json_integer((json_int_t)st.cached));
    json_object_set_new(sum, "failed", json_integer((json_int_t)failed));
    json_object_set_new(sum, "bytes", json_integer((json_int_t)st.bytes));
    json_object_set_new(sum, "requests", json_integer((json_int_t)st.requests));
    json_object_set_new(root, "summary", sum);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return pgci_error_set(PGCI_ERROR, "cannot encode the fetch results as JSON");
    printf("%s\n", text);
    free(text);
    return 0;
}

/* The workspace, when it has to supply the modules (and then source and tag), or
 * the source for --list-tags; *ws stays NULL otherwise. */
static int open_workspace(workspace **ws, const char *dir, int list_tags, const char *source,
                          strvec *modules, strvec *tags)
{
    int need_ws = !modules->len && !list_tags;
    if (need_ws || (list_tags && !source)) {
        if (workspace_open(ws, dir) < 0) {
            if (need_ws)
                return pgci_error_wrap(PGCI_EUSAGE, "fetch: no --module given and no workspace");
            pgci_error_clear();
            *ws = NULL;
        }
    }
    if (!need_ws)
        return 0;
    int r = workspace_source_modules(*ws, modules);
    if (r < 0)
        return r;
    if (!modules->len)
        return pgci_error_set(PGCI_EUSAGE,
                              "fetch: no config in the workspace at %s names a source_module "
                              "(give --module)",
                              (*ws)->root);
    if (!tags->len && (*ws)->pin)
        strvec_push_owned(tags, workspace_pin_tag(*ws));
    return 0;
}

/* Every (tag, module) in one batch, then the summary line (or the JSON). Returns
 * the exit code. */
static int fetch_all(upstream *u, const strvec *tags, const strvec *modules, int json, int print)
{
    /* the transfers of all tags run together */
    size_t n = modules->len, total = n * tags->len, failed = 0;
    upstream_item *items = pgci_calloc(total, sizeof(*items));
    strbuf *results = pgci_calloc(total, sizeof(strbuf));
    char **errors = pgci_calloc(total, sizeof(char *));
    for (size_t k = 0; k < total; k++) {
        items[k].tag = tags->items[k / n];
        items[k].module = modules->items[k % n];
        strbuf_init(&results[k], 0);
    }
    progress_update("fetch", 0, total, "");
    upstream_fetch_batch(u, items, total, results, errors);
    progress_done();
    for (size_t k = 0; k < total; k++) {
        if (errors[k]) {
            fprintf(stderr, "pgci: error: %s\n", errors[k]);
            failed++;
        } else {
            log_verbose("%s@%s: %zu bytes", items[k].module, items[k].tag, results[k].len);
            if (print)
                fwrite(results[k].buf, 1, results[k].len, stdout);
        }
    }
    upstream_stats st;
    upstream_get_stats(u, &st);
    int code = EXIT_CLEAN;
    if (json && print_json(u, items, results, errors, total, failed) < 0)
        code = cmd_error();
    /* with --print stdout holds the sources, so the summary moves to stderr */
    if (!json && !(print && log_level() < LOG_NORMAL))
        fprintf(print ? stderr : stdout,
                "fetch: %zu module%s x %zu tag%s from %s: %zu fetched, %zu from cache, "
                "%zu failed, %zu bytes, %zu request%s\n",
                n, n == 1 ? "" : "s", tags->len, tags->len == 1 ? "" : "s", upstream_describe(u),
                st.fetched, st.cached, failed, st.bytes, st.requests, st.requests == 1 ? "" : "s");
    for (size_t k = 0; k < total; k++) {
        strbuf_free(&results[k]);
        free(errors[k]);
    }
    free(items);
    free(results);
    free(errors);
    return failed || code ? EXIT_ERROR : EXIT_CLEAN;
}

int cmd_fetch(int argc, const char **argv)
{
    strvec tags = STRVEC_INIT, modules = STRVEC_INIT, rest = STRVEC_INIT;
    const char *source = NULL, *cacert = NULL, *format = "text";
    int no_cache = 0, git_fetch = 0, list_tags = 0, print = 0;
    int timeout_s = 0, connect_s = 0, stall_s = 0, retries = -1, retry_delay_ms = 0;
    int max_kib = 0, retry_after_max_s = 0;
    const opt table[] = {
        OPT_LIST('t', "tag", &tags, "TAG", "an upstream tag (repeatable)"),
        OPT_LIST('m', "module", &modules, "MODULE",
                 "a dotted module name (repeatable; default: the workspace's configs)"),
        OPT_STR(0, "source", &source, "SPEC", "https://...{tag}...{path}, git:PATH or dir:PATH"),
        OPT_BOOL(0, "no-cache", &no_cache, "neither read nor write the cache"),
        OPT_BOOL(0, "git-fetch", &git_fetch, "git: fetch tags from the clone's origin first"),
        OPT_BOOL(0, "list-tags", &list_tags,
                 "print the source's tags in version order (git: the clone's; https: its "
                 "repository's; dir: with {tag}: the directories there)"),
        OPT_BOOL(0, "print", &print, "write the fetched sources to stdout"),
        OPT_STR(0, "format", &format, "FMT", "text (a summary line) or json (every file)"),
        OPT_GROUP("network:"),
        OPT_INT(0, "timeout", &timeout_s, "SECONDS", "limit for one transfer (default 60)"),
        OPT_INT(0, "connect-timeout", &connect_s, "SECONDS", "limit for connecting (default 10)"),
        OPT_INT(0, "stall-timeout", &stall_s, "SECONDS",
                "abort a body that stops arriving this long (default 30)"),
        OPT_INT(0, "retries", &retries, "N",
                "retries on 5xx, 408, 429, timeouts and connection errors (default 3)"),
        OPT_INT(0, "retry-delay", &retry_delay_ms, "MS",
                "first backoff delay, doubled per retry (default 500)"),
        OPT_INT(0, "retry-after-max", &retry_after_max_s, "SECONDS",
                "longest Retry-After honoured (default 60)"),
        OPT_STR(0, "cacert", &cacert, "FILE", "trust the CA certificates in FILE (PEM)"),
        OPT_INT(0, "max-size", &max_kib, "KIB", "largest file accepted (default 16384)"),
        OPT_END(),
    };
    common_opts common = {0};
    int code = EXIT_CLEAN;
    workspace *ws = NULL;
    upstream *u = NULL;
    if (cmd_parse(argc, argv, table, &common, usage, summary, &rest, &code))
        goto out;
    if (rest.len) {
        pgci_error_set(PGCI_EUSAGE, "fetch: unexpected argument '%s' (see pgci fetch --help)",
                       rest.items[0]);
        code = cmd_error();
        goto out;
    }
    int json = !strcmp(format, "json");
    if ((!json && strcmp(format, "text") != 0) || (json && print)) {
        pgci_error_set(PGCI_EUSAGE,
                       json ? "fetch: --print and --format json both want stdout"
                            : "fetch: unknown --format '%s' (text or json)",
                       format);
        code = cmd_error();
        goto out;
    }
    if (open_workspace(&ws, common.workspace, list_tags, source, &modules, &tags) < 0) {
        code = cmd_error();
        goto out;
    }
    if (ws && !source)
        source = ws->upstream;
    char cwd[PATH_MAX];
    upstream_opts uo = {
        .spec = source,
        .no_cache = no_cache,
        .connect_timeout_ms = (long)connect_s * 1000,
        .total_timeout_ms = (long)timeout_s * 1000,
        .stall_timeout_ms = (long)stall_s * 1000,
        .max_bytes = (size_t)max_kib * 1024,
        .retries = retries < 0    ? 0
                   : retries == 0 ? -1
                                  : retries,
        .retry_delay_ms = retry_delay_ms,
        .retry_after_max_ms = (long)retry_after_max_s * 1000,
        .jobs = common.jobs,
        .git_fetch = git_fetch,
        .ca_file = cacert,
        .base_dir = common.workspace ? common.workspace : getcwd(cwd, sizeof(cwd)),
    };
    if (upstream_open(&u, &uo) < 0) {
        code = cmd_error();
        goto out;
    }
    if (list_tags) {
        code = print_tags(u);
        goto out;
    }
    if (!tags.len) {
        if (ws)
            workspace_no_tag_error(ws, "fetch: no --tag given and the workspace has no "
                                       "transformers pin (see pgci fetch --help)");
        else
            pgci_error_set(PGCI_EUSAGE, "fetch: no --tag given (see pgci fetch --help)");
        code = cmd_error();
        goto out;
    }
    code = fetch_all(u, &tags, &modules, json, print);
out:
    upstream_free(u);
    workspace_free(ws);
    strvec_free(&tags);
    strvec_free(&modules);
    strvec_free(&rest);
    return code;
}
