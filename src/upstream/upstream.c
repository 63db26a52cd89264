/*
 * upstream.c - one interface over the http, git and dir sources, plus the rules
 * every fetched file obeys no matter where it came from.
 *
 * The flow for a batch of modules at one tag: check the names, look each file up
 * in the cache (http only: local sources are already fast and exact), hand the
 * misses to the source (http: all at once through the curl multi interface),
 * validate every body, and only then cache it. A file that failed anywhere is
 * neither returned nor cached, and its message says what (package@tag and path),
 * where (URL, repository or directory) and why.
 */
#include "upstream/upstream.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/par.h"
#include "py/py.h"
#include "upstream/source.h"

#define DEFAULT_URL "https://github.com/huggingface/transformers/raw/{tag}/src/{path}"

char *upstream_redact(const char *s)
{
    strbuf out = STRBUF_INIT;
    const char *p = s;
    for (const char *m; (m = strstr(p, "://"));) {
        const char *host = m + 3;
        size_t auth = strcspn(host, "/?#@ \t\n'\"");
        strbuf_add(&out, p, (size_t)(host - p));
        p = host;
        if (host[auth] == '@') { /* user information before the host */
            strbuf_adds(&out, "***");
            p = host + auth;
        }
    }
    strbuf_adds(&out, p);
    return strbuf_detach(&out, NULL);
}

/* Rewrites the current error's message with upstream_redact; returns r. */
static int redact_error(int r)
{
    char *msg = upstream_redact(pgci_error_last());
    pgci_error_set(r, "%s", msg);
    free(msg);
    return r;
}

struct upstream {
    upstream_kind kind;
    char *spec;       /* the URL template, the absolute clone path, or the directory template */
    char *describe;   /* for messages */
    char *cache_dir;  /* NULL: no cache */
    int cache_broken; /* a write failed: warned once, not written again this run */
    char *ca_file;    /* NULL: the system's CA store */
    http_params hp;
    git_src *git;
    upstream_stats stats;
    py_parse_set *parses; /* borrowed; NULL: none */
    rcache *results;      /* borrowed; NULL: none */
    int cpu_jobs;         /* threads validating what a dir: or git: source read */
};

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

int upstream_module_check(const char *module)
{
    if (!module || !module[0])
        return pgci_error_set(PGCI_EINVALID, "module name is empty");
    const char *s = module;
    for (;;) {
        if (!is_ident_start(*s))
            return pgci_error_set(PGCI_EINVALID,
                                  "module name '%s' is not dotted identifiers (at offset %zu)",
                                  module, (size_t)(s - module));
        while (is_ident_char(*s))
            s++;
        if (*s == '\0')
            return 0;
        if (*s != '.')
            return pgci_error_set(PGCI_EINVALID,
                                  "module name '%s' is not dotted identifiers (at offset %zu)",
                                  module, (size_t)(s - module));
        s++;
    }
}

int upstream_tag_check(const char *tag)
{
    if (!tag || !tag[0])
        return pgci_error_set(PGCI_EINVALID, "tag is empty");
    if (tag[0] == '.' || tag[0] == '-')
        return pgci_error_set(PGCI_EINVALID, "tag '%s' must not start with '%c'", tag, tag[0]);
    for (const char *s = tag; *s; s++)
        if (!is_ident_char(*s) && *s != '.' && *s != '-' && *s != '+')
            return pgci_error_set(PGCI_EINVALID,
                                  "tag '%s' has a character other than letters, digits, '.', "
                                  "'_', '+' and '-'",
                                  tag);
    if (strstr(tag, ".."))
        return pgci_error_set(PGCI_EINVALID, "tag '%s' contains '..'", tag);
    return 0;
}

void upstream_module_path(strbuf *out, const char *module)
{
    for (const char *s = module; *s; s++)
        strbuf_addc(out, *s == '.' ? '/' : *s);
    strbuf_adds(out, ".py");
}

/* The offset of the first byte that is not well-formed UTF-8 (no overlongs, no
 * surrogates, nothing past U+10FFFF), or len when all of it is. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c == 0xe0)
                lo = 0xa0;
            if (c == 0xed)
                hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c == 0xf0)
                lo = 0x90;
            if (c == 0xf4)
                hi = 0x8f;
        } else {
            return i;
        }
        if (i + n >= len) /* the sequence runs past the end */
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k <= n; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf)
                return i;
        i += n + 1;
    }
    return len;
}

/* 1 when the text starts (after a BOM and whitespace) like an HTML or XML page. */
static int looks_like_html(const char *s, size_t len)
{
    static const char *const starts[] = {"<!doctype", "<html", "<head", "<body", "<?xml", "<!--"};
    size_t i = 0;
    if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        i = 3;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
        size_t n = strlen(starts[k]);
        if (len - i >= n && !strncasecmp(s + i, starts[k], n))
            return 1;
    }
    return 0;
}

void upstream_set_parse_set(upstream *u, py_parse_set *parses)
{
    u->parses = parses;
}

int upstream_validate(const char *data, size_t len, const char *name)
{
    return upstream_validate_shared(data, len, name, NULL);
}

int upstream_validate_shared(const char *data, size_t len, const char *name, py_parse_set *parses)
{
    const char *nul = memchr(data, '\0', len);
    if (nul)
        return pgci_error_set(PGCI_EINVALID,
                              "%s is binary data (a NUL byte at offset %zu), not Python source",
                              name, (size_t)(nul - data));
    size_t bad = utf8_invalid_at((const unsigned char *)data, len);
    if (bad < len)
        return pgci_error_set(
            PGCI_EINVALID, "%s is not valid UTF-8 (byte 0x%02x at offset %zu), not Python source",
            name, (unsigned char)data[bad], bad);
    if (looks_like_html(data, len))
        return pgci_error_set(PGCI_EINVALID,
                              "%s is an HTML page, not Python (an error or login page served "
                              "with a success status?)",
                              name);
    py_tree t = {0};
    int r = parses ? py_parse_set_get(parses, data, len, name, &t) : py_parse(&t, data, len, name);
    if (r == 0)
        r = py_check_syntax(&t);
    if (parses)
        py_parse_set_release(&t);
    else
        py_tree_free(&t);
    if (r < 0)
        return pgci_error_wrap(PGCI_EINVALID, "not valid Python");
    return 0;
}

/* An absolute form of a path from a spec: relative ones hang off base_dir. */
static char *absolute(const char *path, const char *base_dir)
{
    if (path[0] == '/')
        return pgci_strdup(path);
    strbuf sb = STRBUF_INIT;
    if (base_dir) {
        fs_join(&sb, base_dir, path);
    } else {
        char cwd[PATH_MAX];
        fs_join(&sb, getcwd(cwd, sizeof(cwd)) ? cwd : ".", path);
    }
    return strbuf_detach(&sb, NULL);
}

/*
 * The source kinds by prefix. Adding a new kind: its value in upstream_kind
 * (upstream.h), a row here, a source_<kind>.c behind upstream/source.h, and its
 * case where upstream_open, upstream_fetch_batch and upstream_list_tags switch on
 * the kind. Nothing outside src/upstream/ reads a prefix: it asks
 * upstream_spec_kind.
 */
static const struct {
    const char *prefix;
    upstream_kind kind;
    int keep_prefix; /* 1: the path is the whole spec (a URL) */
} spec_kinds[] = {
    {"https://", UPSTREAM_HTTP, 1},
    {"http://", UPSTREAM_HTTP, 1},
    {"git:", UPSTREAM_GIT, 0},
    {"dir:", UPSTREAM_DIR, 0},
};

int upstream_spec_kind(const char *spec, const char **path)
{
    for (size_t i = 0; spec && i < sizeof(spec_kinds) / sizeof(spec_kinds[0]); i++) {
        if (!pgci_starts_with(spec, spec_kinds[i].prefix))
            continue;
        const char *rest = spec_kinds[i].keep_prefix ? spec : spec + strlen(spec_kinds[i].prefix);
        if (!rest[0])
            return -1;
        if (path)
            *path = rest;
        return (int)spec_kinds[i].kind;
    }
    return -1;
}

int upstream_open(upstream **out, const upstream_opts *opts)
{
    upstream_opts o = {0};
    if (opts)
        o = *opts;
    const char *spec = o.spec && o.spec[0] ? o.spec : DEFAULT_URL;
    upstream *u = pgci_calloc(1, sizeof(*u));
    int r = 0;
    u->hp.connect_timeout_ms = o.connect_timeout_ms > 0 ? o.connect_timeout_ms : 10000;
    u->hp.total_timeout_ms = o.total_timeout_ms > 0 ? o.total_timeout_ms : 60000;
    u->hp.stall_timeout_ms = o.stall_timeout_ms > 0 ? o.stall_timeout_ms : 30000;
    u->hp.max_bytes = o.max_bytes > 0 ? o.max_bytes : (size_t)16 << 20;
    u->hp.retries = o.retries < 0 ? 0 : o.retries > 0 ? o.retries : 3;
    u->hp.retry_delay_ms = o.retry_delay_ms > 0 ? o.retry_delay_ms : 500;
    u->hp.retry_after_max_ms = o.retry_after_max_ms > 0 ? o.retry_after_max_ms : 60000;
    u->hp.jobs = o.jobs > 0 ? o.jobs : 8;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    u->cpu_jobs = o.jobs > 0 ? o.jobs : cpus > 0 ? (int)cpus : 1;
    if (o.ca_file && !fs_is_file(o.ca_file)) {
        r = pgci_error_set(PGCI_ENOTFOUND, "CA certificate file %s does not exist", o.ca_file);
        goto fail;
    }
    u->ca_file = o.ca_file ? pgci_strdup(o.ca_file) : NULL;
    u->parses = o.parses;
    u->results = o.results;
    u->hp.ca_file = u->ca_file;
    for (const char *c = spec; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            r = pgci_error_set(PGCI_EINVALID, "upstream source spec contains a control character");
            goto fail;
        }
    const char *path;
    int kind = upstream_spec_kind(spec, &path);
    if (kind < 0) {
        r = pgci_error_set(PGCI_EINVALID,
                           "unknown upstream source '%s' (expected an https:// URL template "
                           "with {path}, git:PATH or dir:PATH)",
                           spec);
        goto fail;
    }
    u->kind = (upstream_kind)kind;
    switch (u->kind) {
    case UPSTREAM_HTTP:
        if (!strstr(spec, "{path}")) {
            r = pgci_error_set(PGCI_EINVALID,
                               "upstream URL template '%s' has no {path} placeholder", spec);
            goto fail;
        }
        u->spec = pgci_strdup(spec);
        u->describe = upstream_redact(spec);
        break;
    case UPSTREAM_GIT:
        u->spec = absolute(path, o.base_dir);
        u->describe = pgci_asprintf("git repository %s", u->spec);
        if ((r = git_src_open(&u->git, u->spec, o.git_fetch, u->hp.total_timeout_ms)) < 0)
            goto fail;
        break;
    case UPSTREAM_DIR:
        u->spec = absolute(path, o.base_dir);
        u->describe = pgci_asprintf("directory %s", u->spec);
        break;
    }
    if (u->kind == UPSTREAM_HTTP && !o.no_cache) {
        strbuf cd = STRBUF_INIT;
        if (o.cache_dir)
            strbuf_adds(&cd, o.cache_dir);
        else if ((r = cache_default_dir(&cd)) < 0)
            goto fail;
        u->cache_dir = strbuf_detach(&cd, NULL);
    }
    *out = u;
    return 0;
fail:
    upstream_free(u);
    return r < 0 ? redact_error(r) : r;
}

void upstream_free(upstream *u)
{
    if (!u)
        return;
    git_src_free(u->git);
    free(u->spec);
    free(u->describe);
    free(u->cache_dir);
    free(u->ca_file);
    free(u);
}

const char *upstream_describe(const upstream *u)
{
    return u->describe;
}

void upstream_get_stats(const upstream *u, upstream_stats *out)
{
    *out = u->stats;
}

/* "transformers@v5.16.1 src/transformers/models/llama/modeling_llama.py" */
static char *display_name(const char *tag, const char *module, const char *path)
{
    const char *dot = strchr(module, '.');
    int pkg = dot ? (int)(dot - module) : (int)strlen(module);
    return pgci_asprintf("%.*s@%s src/%s", pkg, module, tag, path);
}

/* The key of a cached file: the template (without its user information: two
 * tokens for one URL read the same files), the tag, the path. */
static char *cache_key(const upstream *u, const char *tag, const char *path)
{
    return pgci_asprintf("pgci-cache-v1\nhttp\n%s\n%s\n%s", u->describe, tag, path);
}

/* upstream_validate_shared(), skipped for bytes an earlier run of this pgci build
 * validated (the result cache remembers them; a failure is never remembered). */
static int validate_once(upstream *u, py_parse_set *parses, const char *data, size_t len,
                         const char *name)
{
    uint8_t key[SHA256_DIGEST_LEN];
    strbuf none = STRBUF_INIT;
    if (u->results) {
        sha256_ctx c;
        rcache_key_begin(&c, "valid-python");
        rcache_key_add(&c, data, len);
        sha256_final(&c, key);
        if (rcache_get(u->results, "valid-python", key, &none))
            return 0;
    }
    int r = upstream_validate_shared(data, len, name, parses);
    if (r == 0 && u->results)
        rcache_put(u->results, "valid-python", key, "", 0);
    return r;
}

/* The first and last bytes that are not a BOM or whitespace: [*b, *e), b == e when
 * there are none. */
static void trim_blank(const char *s, size_t len, size_t *b, size_t *e)
{
    size_t i = len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0, j = len;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' ||
                       s[i] == '\f' || s[i] == '\v'))
        i++;
    while (j > i && (s[j - 1] == ' ' || s[j - 1] == '\t' || s[j - 1] == '\r' || s[j - 1] == '\n' ||
                     s[j - 1] == '\f' || s[j - 1] == '\v'))
        j--;
    *b = i;
    *e = j;
}

/* What the bytes alone tell is not a module, though it parses as Python: an empty
 * body (a 200 or 204 with nothing in it; only a package's __init__.py may be
 * empty), or a JSON document (an API's error object served with 200). Either
 * would pass the syntax check, be cached, and fail every later check. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int refuse_not_a_module(const upstream *u, const char *data, size_t len, const char *base)
{
    /* what a server does; a directory or a git tree just holds the file */
    const int http = u->kind == UPSTREAM_HTTP;
    size_t b, e;
    trim_blank(data, len, &b, &e);
    if (b == e && strcmp(base, "__init__.py") != 0)
        return pgci_error_set(PGCI_EINVALID, "%s is empty%s: not a Python module%s", base,
                              len ? " (only whitespace)" : "",
                              http ? " (an empty body served with a success status?)" : "");
    if (b < e && ((data[b] == '{' && data[e - 1] == '}') || (data[b] == '[' && data[e - 1] == ']')))
        return pgci_error_set(PGCI_EINVALID, "%s is a JSON document, not a Python module%s", base,
                              http ? " (an error served with a success status?)" : "");
    return 0;
}

/* Validates a body that was read: Python, and not an error page served as it. Its
 * tree goes to the item's parse set, or the upstream's. */
static int validate_body(upstream *u, const upstream_item *it, const char *path, const strbuf *body)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int r = validate_once(u, it->parses ? it->parses : u->parses, body->buf, body->len, base);
    return r < 0 ? r : refuse_not_a_module(u, body->buf, body->len, base);
}

/* Caches a validated body. A cache that cannot be written (a read-only home, a
 * file where the directory should be) costs only the next run its downloads: the
 * bytes are good, so they are used, with one warning per run. */
static void cache_store(upstream *u, const char *tag, const char *path, const strbuf *body)
{
    if (!u->cache_dir || u->cache_broken)
        return;
    char *key = cache_key(u, tag, path);
    if (cache_put(u->cache_dir, key, body->buf, body->len) < 0) {
        u->cache_broken = 1;
        log_warn("%s; going on without caching upstream files", pgci_error_last());
        pgci_error_clear();
    }
    free(key);
}

/* Records the outcome of one module whose body was validated (code: the read's or
 * the validation's result, its message set): caches it, or words the error. */
static int record(upstream *u, const char *tag, const char *name, const char *path,
                  const char *where, int code, strbuf *body, char **error)
{
    if (code == 0)
        cache_store(u, tag, path, body);
    if (code < 0) {
        char *msg = pgci_asprintf("cannot fetch %s from %s: %s", name, where, pgci_error_last());
        *error = upstream_redact(msg);
        free(msg);
        strbuf_reset(body);
        return code;
    }
    u->stats.fetched++;
    u->stats.bytes += body->len;
    return 0;
}

/* Validates, then records the outcome of one module. */
static int settle(upstream *u, const upstream_item *it, const char *name, const char *path,
                  const char *where, int code, strbuf *body, char **error)
{
    if (code == 0)
        code = validate_body(u, it, path, body);
    return record(u, it->tag, name, path, where, code, body, error);
}

/* What a dir: or git: source read, validated on worker threads (each validation
 * is a parse) and then recorded in item order. */
typedef struct local_reads {
    upstream *u;
    const upstream_item *items;
    char **paths;
    strbuf *results;
    int *code;  /* per item: the read's result, then the validation's */
    char **why; /* per item: the message of a failure */
    char **where;
    int *local; /* per item: read from a local source */
} local_reads;

static void validate_local(void *arg, size_t worker, size_t i)
{
    (void)worker;
    local_reads *l = arg;
    if (!l->local[i] || l->code[i] < 0)
        return;
    l->code[i] = validate_body(l->u, &l->items[i], l->paths[i], &l->results[i]);
    if (l->code[i] < 0) {
        l->why[i] = pgci_strdup(pgci_error_last());
        pgci_error_clear();
    }
}

static void settle_local(local_reads *l, const upstream_item *items, char **names, size_t n,
                         int *codes, char **errors)
{
    par_for(n, l->u->cpu_jobs, validate_local, l);
    for (size_t i = 0; i < n; i++) {
        if (!l->local[i])
            continue;
        if (l->code[i] < 0)
            pgci_error_set(l->code[i], "%s", l->why[i] ? l->why[i] : "failed");
        codes[i] = record(l->u, items[i].tag, names[i], l->paths[i], l->where[i], l->code[i],
                          &l->results[i], &errors[i]);
    }
}

/* A batch in flight: what the http completion callback needs to settle a job. */
typedef struct batch {
    upstream *u;
    const upstream_item *items;
    char **names, **paths;
    http_job *jobs;
    size_t *job_of;
    strbuf *results;
    char **errors;
    int *codes;
} batch;

/* Validates and caches one finished transfer while the others are still running. */
static void on_http_done(void *arg, size_t k)
{
    batch *b = arg;
    size_t i = b->job_of[k];
    http_job *j = &b->jobs[k];
    if (j->code < 0)
        pgci_error_set(j->code, "%s", j->why ? j->why : "unknown error");
    /* hand the body over rather than copy it */
    strbuf tmp = b->results[i];
    b->results[i] = j->body;
    j->body = tmp;
    b->codes[i] = settle(b->u, &b->items[i], b->names[i], b->paths[i], j->url, j->code,
                         &b->results[i], &b->errors[i]);
}

int upstream_fetch_batch(upstream *u, const upstream_item *items, size_t n, strbuf *results,
                         char **errors)
{
    int *codes = pgci_calloc(n ? n : 1, sizeof(int));
    char **paths = pgci_calloc(n ? n : 1, sizeof(char *));
    char **names = pgci_calloc(n ? n : 1, sizeof(char *));
    http_job *jobs = pgci_calloc(n ? n : 1, sizeof(http_job));
    size_t *job_of = pgci_calloc(n ? n : 1, sizeof(size_t));
    size_t njobs = 0;
    local_reads lr = {u,
                      items,
                      paths,
                      results,
                      pgci_calloc(n + 1, sizeof(int)),
                      pgci_calloc(n + 1, sizeof(char *)),
                      pgci_calloc(n + 1, sizeof(char *)),
                      pgci_calloc(n + 1, sizeof(int))};

    for (size_t i = 0; i < n; i++) {
        const char *m = items[i].module, *tag = items[i].tag;
        errors[i] = NULL;
        strbuf_reset(&results[i]);
        int r = upstream_tag_check(tag);
        if (r < 0) {
            errors[i] = pgci_asprintf("cannot fetch %s: %s", m, pgci_error_last());
            codes[i] = r;
            continue;
        }
        r = upstream_module_check(m);
        strbuf p = STRBUF_INIT;
        if (r == 0) {
            upstream_module_path(&p, m);
            r = fs_path_check(p.buf, "module path");
        }
        if (r < 0) {
            errors[i] = pgci_asprintf("cannot fetch module at %s: %s", tag, pgci_error_last());
            codes[i] = r;
            strbuf_free(&p);
            continue;
        }
        paths[i] = strbuf_detach(&p, NULL);
        names[i] = display_name(tag, m, paths[i]);
        if (u->kind == UPSTREAM_HTTP) {
            if (u->cache_dir) {
                char *key = cache_key(u, tag, paths[i]);
                int hit = cache_get(u->cache_dir, key, &results[i]);
                free(key);
                /* what an older pgci cached before it refused empty and JSON
                 * bodies is a miss, fetched again */
                if (hit && refuse_not_a_module(u, results[i].buf, results[i].len,
                                               base_name(paths[i])) < 0) {
                    pgci_error_clear();
                    strbuf_reset(&results[i]);
                    hit = 0;
                }
                if (hit) {
                    u->stats.cached++;
                    u->stats.bytes += results[i].len;
                    continue;
                }
            }
            strbuf url = STRBUF_INIT;
            http_url(&url, u->spec, tag, paths[i]);
            jobs[njobs].url = strbuf_detach(&url, NULL);
            strbuf_init(&jobs[njobs].body, 0);
            job_of[njobs++] = i;
            continue;
        }
        strbuf where = STRBUF_INIT;
        if (u->kind == UPSTREAM_GIT)
            r = git_src_read(u->git, tag, paths[i], u->hp.max_bytes, &results[i], &where);
        else
            r = dir_src_read(u->spec, tag, paths[i], u->hp.max_bytes, &results[i], &where);
        lr.local[i] = 1;
        lr.code[i] = r;
        lr.where[i] = strbuf_detach(&where, NULL);
        if (r < 0) {
            lr.why[i] = pgci_strdup(pgci_error_last());
            pgci_error_clear();
        }
    }
    settle_local(&lr, items, names, n, codes, errors);
    for (size_t i = 0; i < n; i++) {
        free(lr.why[i]);
        free(lr.where[i]);
    }
    free(lr.code);
    free(lr.why);
    free(lr.where);
    free(lr.local);

    if (njobs) {
        batch b = {.u = u,
                   .items = items,
                   .names = names,
                   .paths = paths,
                   .jobs = jobs,
                   .job_of = job_of,
                   .results = results,
                   .errors = errors,
                   .codes = codes};
        u->stats.requests += http_fetch_jobs(&u->hp, jobs, njobs, on_http_done, &b);
        for (size_t k = 0; k < njobs; k++) {
            free((char *)jobs[k].url);
            free(jobs[k].why);
            strbuf_free(&jobs[k].body);
        }
    }
    /* the first failure in item order, whatever order the transfers ended in */
    int first = 0;
    for (size_t i = 0; i < n && !first; i++)
        first = codes[i];
    for (size_t i = 0; i < n; i++) {
        free(paths[i]);
        free(names[i]);
    }
    free(paths);
    free(names);
    free(jobs);
    free(job_of);
    free(codes);
    return first;
}

int upstream_fetch_all(upstream *u, const char *tag, const strvec *modules, strbuf *results,
                       char **errors)
{
    upstream_item *items = pgci_calloc(modules->len ? modules->len : 1, sizeof(*items));
    for (size_t i = 0; i < modules->len; i++) {
        items[i].tag = tag;
        items[i].module = modules->items[i];
    }
    int r = upstream_fetch_batch(u, items, modules->len, results, errors);
    free(items);
    return r;
}

int upstream_fetch(upstream *u, const char *tag, const char *module, strbuf *out)
{
    strvec mods = STRVEC_INIT;
    strvec_push(&mods, module);
    strbuf res = STRBUF_INIT;
    char *err = NULL;
    int r = upstream_fetch_all(u, tag, &mods, &res, &err);
    if (r < 0)
        pgci_error_set(r, "%s", err);
    else
        strbuf_add(out, res.buf, res.len);
    free(err);
    strbuf_free(&res);
    strvec_free(&mods);
    return r;
}

char *upstream_repo_url(const char *tmpl)
{
    static const char gh_raw[] = "https://raw.githubusercontent.com/";
    const char *t = strstr(tmpl, "/{tag}");
    if (!t)
        return NULL;
    /* a placeholder before the tag's segment: the repository changes with it */
    if (memchr(tmpl, '{', (size_t)(t - tmpl)))
        return NULL;
    /* https://raw.githubusercontent.com/OWNER/REPO/{tag}/... */
    if (pgci_starts_with(tmpl, gh_raw)) {
        const char *o = tmpl + sizeof(gh_raw) - 1;
        if (t <= o)
            return NULL; /* "{tag}" right after the host: no OWNER/REPO */
        const char *slash = memchr(o, '/', (size_t)(t - o));
        if (!slash || slash == o || slash + 1 == t ||
            memchr(slash + 1, '/', (size_t)(t - slash - 1)))
            return NULL;
        return pgci_asprintf("https://github.com/%.*s.git", (int)(t - o), o);
    }
    /* HOST/OWNER/REPO/raw/{tag}/... (GitHub) or HOST/OWNER/REPO/-/raw/{tag}/... (GitLab) */
    size_t end = (size_t)(t - tmpl);
    if (end < 4 || strncmp(tmpl + end - 4, "/raw", 4))
        return NULL;
    end -= 4;
    if (end >= 2 && !strncmp(tmpl + end - 2, "/-", 2))
        end -= 2;
    const char *host = strstr(tmpl, "://");
    if (!host || (size_t)(host + 3 - tmpl) >= end)
        return NULL;
    const char *path = memchr(host + 3, '/', end - (size_t)(host + 3 - tmpl));
    if (!path || path + 1 >= tmpl + end)
        return NULL; /* no repository path */
    return pgci_asprintf("%.*s.git", (int)end, tmpl);
}

int upstream_remote_tags(const char *url, strvec *out)
{
    return git_remote_tags(url, out);
}

int upstream_list_tags(upstream *u, strvec *out)
{
    if (u->kind == UPSTREAM_HTTP) {
        char *repo = upstream_repo_url(u->spec);
        if (!repo)
            return pgci_error_set(PGCI_EUNSUPPORTED,
                                  "cannot list tags of %s: no git repository can be told from "
                                  "this URL template (use a git: source, or name the tag)",
                                  u->describe);
        int r = git_remote_tags(repo, out);
        free(repo);
        return r < 0 ? redact_error(r) : r;
    }
    if (u->kind == UPSTREAM_DIR)
        return dir_src_tags(u->spec, out);
    return git_src_tags(u->git, out);
}
