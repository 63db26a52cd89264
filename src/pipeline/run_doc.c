#include "pipeline/run_doc.h"
#include "pipeline/run_shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/pgci_version.h"
#include "verify/verify.h"

void run_doc_init(run_doc *d, const char *command, int with_timestamp)
{
    json_t *r = json_object();
    json_object_set_new(r, "schema", json_string(RUN_DOC_SCHEMA));
    json_object_set_new(r, "schema_version", json_integer(RUN_DOC_VERSION));
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("pgci"));
    json_object_set_new(tool, "version", json_string(PGCI_VERSION));
    json_object_set_new(r, "tool", tool);
    json_object_set_new(r, "command", json_string(command));
    json_t *ts = json_null();
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if ((sde && *sde) || with_timestamp) {
        time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
        struct tm tm;
        char buf[32];
        gmtime_r(&t, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        json_decref(ts);
        ts = json_string(buf);
    }
    json_object_set_new(r, "timestamp", ts);
    json_t *inputs = json_object();
    json_object_set_new(inputs, "files", json_array());
    json_object_set_new(r, "inputs", inputs);
    json_object_set_new(r, "configs", json_array());
    json_object_set_new(r, "checks", json_array());
    json_object_set_new(r, "findings", json_array());
    json_t *sum = json_object();
    json_object_set_new(sum, "errors", json_integer(0));
    json_object_set_new(sum, "warnings", json_integer(0));
    json_object_set_new(sum, "info", json_integer(0));
    json_object_set_new(r, "summary", sum);
    json_object_set_new(r, "timings_ms", json_object());
    d->root = r;
    d->timings = with_timestamp;
}

void run_doc_free(run_doc *d)
{
    if (d->root)
        json_decref(d->root);
    d->root = NULL;
}

void run_doc_set_input(run_doc *d, const char *key, const char *value)
{
    json_object_set_new(json_object_get(d->root, "inputs"), key,
                        value ? json_string(value) : json_null());
}

/* Where path is, or would go, in files (sorted by path); *found when it is there. */
static size_t file_slot(json_t *files, const char *path, json_t **found)
{
    size_t lo = 0, hi = json_array_size(files);
    *found = NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        json_t *f = json_array_get(files, mid);
        int c = strcmp(json_string_value(json_object_get(f, "path")) ?: "", path);
        if (c == 0) {
            *found = f;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* inputs.files stays sorted by path, each path once: several configs read the same
 * upstream module, and a merge of shards must list what the unsharded run lists. */
void run_doc_add_input_file(run_doc *d, const char *path, const char *sha256_hex)
{
    json_t *files = json_object_get(json_object_get(d->root, "inputs"), "files");
    json_t *have;
    size_t at = file_slot(files, path, &have);
    if (have)
        return; /* read once per run: the first hash is the one the run used */
    json_t *f = json_object();
    json_object_set_new(f, "path", json_string(path));
    json_object_set_new(f, "sha256", json_string(sha256_hex));
    json_array_insert_new(files, at, f);
}

static json_t *find_by(json_t *arr, const char *key, const char *value)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        const char *v = json_string_value(json_object_get(o, key));
        if (v && !strcmp(v, value))
            return o;
    }
    return NULL;
}

json_t *run_doc_set_config(run_doc *d, const char *module, const char *path, const char *status,
                           const char *message)
{
    json_t *arr = json_object_get(d->root, "configs");
    json_t *c = find_by(arr, "module", module);
    if (!c) {
        c = json_object();
        json_object_set_new(c, "module", json_string(module));
        json_array_append_new(arr, c);
    }
    json_object_set_new(c, "path", path ? json_string(path) : json_null());
    json_object_set_new(c, "status", json_string(status));
    json_object_set_new(c, "message", message ? json_string(message) : json_null());
    return c;
}

void run_doc_set_check(run_doc *d, const char *id, const char *status, const char *reason)
{
    json_t *arr = json_object_get(d->root, "checks");
    json_t *c = find_by(arr, "id", id);
    if (!c) {
        c = json_object();
        json_object_set_new(c, "id", json_string(id));
        json_array_append_new(arr, c);
    }
    json_object_set_new(c, "status", json_string(status));
    json_object_set_new(c, "reason", reason ? json_string(reason) : json_null());
}

void run_doc_add_timing(run_doc *d, const char *stage, double ms)
{
    if (!d->timings)
        return;
    json_t *t = json_object_get(d->root, "timings_ms");
    double old = json_number_value(json_object_get(t, stage));
    json_object_set_new(t, stage, json_real(old + ms));
}

static void update_summary(run_doc *d)
{
    json_int_t n[3] = {0, 0, 0};
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(d->root, "findings"), i, f)
    {
        int s = severity_parse(json_string_value(json_object_get(f, "severity")));
        if (s >= 0)
            n[s]++;
    }
    json_t *sum = json_object_get(d->root, "summary");
    json_object_set_new(sum, "errors", json_integer(n[SEV_ERROR]));
    json_object_set_new(sum, "warnings", json_integer(n[SEV_WARNING]));
    json_object_set_new(sum, "info", json_integer(n[SEV_INFO]));
}

void run_doc_set_findings(run_doc *d, const findings *fs)
{
    findings sorted = *fs;
    finding **copy = pgci_malloc((fs->len ? fs->len : 1) * sizeof(*copy));
    if (fs->len)
        memcpy(copy, fs->items, fs->len * sizeof(*copy));
    sorted.items = copy;
    findings_sort(&sorted);
    json_object_set_new(d->root, "findings", findings_to_json(&sorted));
    free(copy);
    update_summary(d);
}

void run_doc_dump(const run_doc *d, strbuf *out)
{
    char *s = json_dumps(d->root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (s) {
        strbuf_adds(out, s);
        strbuf_addc(out, '\n');
        free(s);
    }
}

int run_doc_write(const run_doc *d, const char *path)
{
    strbuf sb = STRBUF_INIT;
    run_doc_dump(d, &sb);
    int r = fs_write_atomic(path, sb.buf, sb.len);
    strbuf_free(&sb);
    return r;
}

static int want(const char *path, json_t *root, const char *key, json_type type)
{
    json_t *v = json_object_get(root, key);
    if (!v)
        return pgci_error_set(PGCI_EINVALID, "%s: not a pgci run: '%s' is missing", path, key);
    if (json_typeof(v) != type && !(type == JSON_REAL && json_is_integer(v)))
        return pgci_error_set(PGCI_EINVALID, "%s: '%s' has the wrong type", path, key);
    return 0;
}

int run_doc_parse(run_doc *d, const char *text, size_t len, const char *path)
{
    json_error_t err;
    d->root = NULL;
    d->timings = 0;
    json_t *r = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!r)
        return pgci_error_set(PGCI_EINVALID, "%s:%d:%d: invalid JSON: %s", path, err.line,
                              err.column, err.text);
    int rc = 0;
    if (!json_is_object(r)) {
        rc = pgci_error_set(PGCI_EINVALID, "%s: not a pgci run (the top level is not an object)",
                            path);
        goto out;
    }
    const char *schema = json_string_value(json_object_get(r, "schema"));
    if (!schema || strcmp(schema, RUN_DOC_SCHEMA)) {
        rc = pgci_error_set(PGCI_EINVALID, "%s: not a pgci run (schema is '%s', want '%s')", path,
                            schema ? schema : "missing", RUN_DOC_SCHEMA);
        goto out;
    }
    json_t *v = json_object_get(r, "schema_version");
    if (!json_is_integer(v) || json_integer_value(v) != RUN_DOC_VERSION) {
        char got[32] = "missing";
        if (json_is_integer(v))
            snprintf(got, sizeof(got), "%lld", (long long)json_integer_value(v));
        rc = pgci_error_set(PGCI_EINVALID,
                            "%s: run.json schema version %s is not supported (this pgci reads "
                            "version %d)",
                            path, got, RUN_DOC_VERSION);
        goto out;
    }
    static const struct {
        const char *key;
        json_type type;
    } req[] = {{"tool", JSON_OBJECT},    {"command", JSON_STRING},   {"inputs", JSON_OBJECT},
               {"configs", JSON_ARRAY},  {"checks", JSON_ARRAY},     {"findings", JSON_ARRAY},
               {"summary", JSON_OBJECT}, {"timings_ms", JSON_OBJECT}};
    for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
        if ((rc = want(path, r, req[i].key, req[i].type)) < 0)
            goto out;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(r, "findings"), i, f)
    {
        if (!json_is_object(f) || !json_is_string(json_object_get(f, "check")) ||
            !json_is_string(json_object_get(f, "title")) ||
            severity_parse(json_string_value(json_object_get(f, "severity")) ?: "") < 0) {
            rc = pgci_error_set(PGCI_EINVALID,
                                "%s: finding %zu lacks a check, a title or a valid severity", path,
                                i);
            goto out;
        }
    }
    rc = verify_doc_validate(r, path);
out:
    if (rc < 0)
        json_decref(r);
    else
        d->root = r;
    return rc;
}

int run_doc_load(run_doc *d, const char *path)
{
    strbuf sb = STRBUF_INIT;
    int r = fs_read_file(&sb, path, 256u << 20);
    if (r == 0)
        r = run_doc_parse(d, sb.buf, sb.len, path);
    strbuf_free(&sb);
    return r;
}

static int json_str_cmp(json_t *a, json_t *b, const char *key)
{
    const char *x = json_string_value(json_object_get(a, key));
    const char *y = json_string_value(json_object_get(b, key));
    if (!x || !y)
        return (x != NULL) - (y != NULL);
    return strcmp(x, y);
}

static int cmp_finding_json(const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c;
    if ((c = json_str_cmp(a, b, "config")) || (c = json_str_cmp(a, b, "path")))
        return c;
    json_int_t la = json_integer_value(json_object_get(a, "line"));
    json_int_t lb = json_integer_value(json_object_get(b, "line"));
    if (la != lb)
        return la < lb ? -1 : 1;
    json_int_t ca = json_integer_value(json_object_get(a, "col"));
    json_int_t cb = json_integer_value(json_object_get(b, "col"));
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if ((c = json_str_cmp(a, b, "check")))
        return c;
    return json_str_cmp(a, b, "title");
}

/* Shards are each sorted; the merge must be sorted as a whole to stay
 * byte-identical to an unsharded run. */
static void sort_findings_json(json_t *arr)
{
    size_t n = json_array_size(arr);
    if (n < 2)
        return;
    json_t **v = pgci_malloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(arr, i));
    qsort(v, n, sizeof(*v), cmp_finding_json);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, v[i]);
    free(v);
}

static const char *run_name(const char *const *paths, size_t s, char *buf, size_t size)
{
    if (paths && paths[s])
        return paths[s];
    snprintf(buf, size, "run %zu", s + 1);
    return buf;
}

/* inputs.<key> of d with d's workspace path replaced by "{workspace}": a directory
 * upstream next to the workspace names it, and shards may run in different
 * checkouts. NULL when absent or not a string. */
static char *input_norm(const run_doc *d, const char *key)
{
    const char *v = run_doc_input(d, key);
    const char *ws = run_doc_input(d, "workspace");
    if (!v)
        return NULL;
    const char *at = ws && *ws ? strstr(v, ws) : NULL;
    if (!at)
        return pgci_strdup(v);
    return pgci_asprintf("%.*s{workspace}%s", (int)(at - v), v, at + strlen(ws));
}

/* The key where two runs' inputs differ (their string members but the workspace
 * path), or NULL. */
static const char *inputs_differ(const run_doc *a, const run_doc *b)
{
    const run_doc *both[2] = {a, b};
    for (int side = 0; side < 2; side++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(both[side]->root, "inputs"), k, v)
        {
            if (!strcmp(k, "files") || !strcmp(k, "workspace"))
                continue;
            char *x = input_norm(a, k), *y = input_norm(b, k);
            int same = (!x && !y) || (x && y && !strcmp(x, y));
            free(x);
            free(y);
            if (!same)
                return k;
        }
    }
    return NULL;
}

/* configs[module].status of d, or "none". */
static const char *config_status(const run_doc *d, const char *module)
{
    const char *st =
        json_string_value(json_object_get(find_by(run_doc_configs(d), "module", module), "status"));
    return st ? st : "none";
}

/* Parts of one run split by config: no config in two of them (the same run given
 * twice would count its findings twice). */
static int disjoint_configs(const run_doc *runs, const char *const *paths, size_t n)
{
    for (size_t s = 1; s < n; s++) {
        size_t i;
        json_t *c;
        json_array_foreach(run_doc_configs(&runs[s]), i, c)
        {
            const char *m = json_string_value(json_object_get(c, "module"));
            for (size_t t = 0; m && t < s; t++)
                if (find_by(run_doc_configs(&runs[t]), "module", m)) {
                    char bt[32], bs[32];
                    return pgci_error_set(PGCI_EINVALID,
                                          "cannot merge %s and %s: both ran config %s (the same "
                                          "run twice, or overlapping runs)",
                                          run_name(paths, t, bt, sizeof(bt)),
                                          run_name(paths, s, bs, sizeof(bs)), m);
                }
        }
    }
    return 0;
}

/* Parts of one verify run split by suite: each regenerated every config (--tag)
 * or none (the checked-in tree), so their configs agree, and no suite is in two
 * of them. */
static int verify_parts(const run_doc *runs, const char *const *paths, size_t n)
{
    char b0[32], bs[32];
    for (size_t s = 1; s < n; s++) {
        const char *p0 = run_name(paths, 0, b0, sizeof(b0)),
                   *ps = run_name(paths, s, bs, sizeof(bs));
        for (int side = 0; side < 2; side++) {
            size_t i;
            json_t *c;
            json_array_foreach(run_doc_configs(side ? &runs[s] : &runs[0]), i, c)
            {
                const char *m = json_string_value(json_object_get(c, "module"));
                const char *x = m ? config_status(&runs[0], m) : "",
                           *y = m ? config_status(&runs[s], m) : "";
                if (strcmp(x, y))
                    return pgci_error_set(PGCI_EINVALID,
                                          "cannot merge %s and %s: they regenerated config %s "
                                          "differently (%s, %s)",
                                          p0, ps, m, x, y);
            }
        }
        for (size_t t = 0; t < s; t++) {
            char bt[32];
            int r = verify_doc_check_parts(runs[t].root, runs[s].root,
                                           run_name(paths, t, bt, sizeof(bt)), ps, 1);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

/* Refuses runs that are not parts of one run: another command, another pgci,
 * other inputs, suites run at another tag or on another tree, or a config (a
 * verify run: a suite) that two of them ran. */
static int check_parts(const run_doc *runs, const char *const *paths, size_t n)
{
    char b0[32], b1[32];
    const char *p0 = run_name(paths, 0, b0, sizeof(b0));
    for (size_t s = 1; s < n; s++) {
        const run_doc *r = &runs[s];
        const char *ps = run_name(paths, s, b1, sizeof(b1));
        if (strcmp(run_doc_command(&runs[0]), run_doc_command(r)))
            return pgci_error_set(PGCI_EINVALID, "cannot merge a '%s' run with a '%s' run (%s, %s)",
                                  run_doc_command(&runs[0]), run_doc_command(r), p0, ps);
        json_t *v0 = json_object_get(json_object_get(runs[0].root, "tool"), "version");
        json_t *vs = json_object_get(json_object_get(r->root, "tool"), "version");
        if (!json_equal(v0, vs))
            return pgci_error_set(PGCI_EINVALID,
                                  "cannot merge %s and %s: they were written by different pgci "
                                  "versions (%s, %s)",
                                  p0, ps, json_string_value(v0) ?: "?",
                                  json_string_value(vs) ?: "?");
        const char *k = inputs_differ(&runs[0], r);
        if (k) {
            const char *x = run_doc_input(&runs[0], k), *y = run_doc_input(r, k);
            return pgci_error_set(PGCI_EINVALID,
                                  "cannot merge %s and %s: they ran with different inputs.%s "
                                  "(%s, %s)",
                                  p0, ps, k, x ?: "none", y ?: "none");
        }
        /* a survey's shards each ran every suite (--verify): the same tag and tree */
        int rc = verify_doc_check_parts(runs[0].root, r->root, p0, ps, 0);
        if (rc < 0)
            return rc;
    }
    if (!strcmp(run_doc_command(&runs[0]), "verify"))
        return verify_parts(runs, paths, n);
    return disjoint_configs(runs, paths, n);
}

/* Unites the runs' input files (sorted, each path once); two hashes of one path
 * mean the runs did not read the same tree. */
static int merge_files(run_doc *out, const run_doc *runs, const char *const *paths, size_t n)
{
    json_t *files = json_object_get(json_object_get(out->root, "inputs"), "files");
    json_array_clear(files);
    int r = 0;
    for (size_t s = 0; r == 0 && s < n; s++) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(json_object_get(runs[s].root, "inputs"), "files"), i, f)
        {
            const char *p = json_string_value(json_object_get(f, "path"));
            const char *h = json_string_value(json_object_get(f, "sha256"));
            json_t *have;
            if (!p || !h)
                continue;
            file_slot(files, p, &have);
            if (have && strcmp(json_string_value(json_object_get(have, "sha256")), h)) {
                char bs[32];
                r = pgci_error_set(PGCI_EINVALID,
                                   "cannot merge: the runs read different bytes of %s (%s)", p,
                                   run_name(paths, s, bs, sizeof(bs)));
                break;
            }
            run_doc_add_input_file(out, p, h);
        }
    }
    return r;
}

/* The merged run failed if any part did, or (own: what only the merge sees) as a
 * whole: it carries every error, on one line, each part's named by its file when
 * there are several. */
static void merge_errors(run_doc *out, const run_doc *runs, const char *const *paths, size_t n,
                         const char *own)
{
    size_t with = own != NULL, last = 0;
    for (size_t s = 0; s < n; s++)
        if (run_doc_error(&runs[s]))
            with++, last = s;
    json_object_del(out->root, "error");
    if (with == 1) {
        run_doc_set_error(out, own ? own : run_doc_error(&runs[last]));
        return;
    }
    strbuf sb = STRBUF_INIT;
    if (own)
        strbuf_adds(&sb, own);
    for (size_t s = 0; with && s < n; s++) {
        const char *e = run_doc_error(&runs[s]);
        char b[32];
        if (!e)
            continue;
        strbuf_addf(&sb, "%s%s: ", sb.len ? "; " : "", run_name(paths, s, b, sizeof(b)));
        for (; *e; e++)
            strbuf_addc(&sb, *e == '\n' || *e == '\r' ? ' ' : *e);
    }
    if (with)
        run_doc_set_error(out, sb.buf);
    strbuf_free(&sb);
}

/* The index of config c in a shard's "all" (the workspace's config order), or the
 * size of all when it is not there. */
static size_t index_in(json_t *all, json_t *c)
{
    const char *m = json_string_value(json_object_get(c, "module"));
    size_t i;
    json_t *v;
    json_array_foreach(all, i,
                       v) if (m && json_is_string(v) && !strcmp(json_string_value(v), m)) return i;
    return json_array_size(all);
}

typedef struct ranked_config {
    json_t *c;
    size_t rank; /* its index in the shards' config list */
} ranked_config;

static int cmp_config(const void *pa, const void *pb)
{
    const ranked_config *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    const char *x = json_string_value(json_object_get(a->c, "path"));
    const char *y = json_string_value(json_object_get(b->c, "path"));
    int c = x && y ? fs_path_cmp(x, y) : 0;
    return c ? c : json_str_cmp(a->c, b->c, "module");
}

/* The unsharded run lists configs in the workspace's order (discovery: by path,
 * part by part), which shards record in shard.all. */
static void sort_configs(json_t *arr, json_t *all)
{
    size_t n = json_array_size(arr);
    if (n < 2)
        return;
    ranked_config *v = pgci_malloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        v[i].c = json_incref(json_array_get(arr, i));
        v[i].rank = json_is_array(all) ? index_in(all, v[i].c) : 0;
    }
    qsort(v, n, sizeof(*v), cmp_config);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, v[i].c);
    free(v);
}

int run_doc_merge(run_doc *out, const run_doc *shards, const char *const *paths, size_t n)
{
    out->root = NULL;
    if (n == 0)
        return pgci_error_set(PGCI_EUSAGE, "nothing to merge");
    int rc = check_parts(shards, paths, n);
    if (rc < 0)
        return rc;
    out->root = json_deep_copy(shards[0].root);
    out->timings = 1; /* shards' timings are added up when they have them */
    for (size_t s = 1; s < n; s++) {
        json_t *r = shards[s].root;
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(r, "configs"), i, v)
        {
            const char *m = json_string_value(json_object_get(v, "module"));
            json_t *arr = json_object_get(out->root, "configs");
            if (m && !find_by(arr, "module", m))
                json_array_append(arr, v);
        }
        json_array_foreach(json_object_get(r, "checks"), i, v)
        {
            const char *id = json_string_value(json_object_get(v, "id"));
            json_t *arr = json_object_get(out->root, "checks");
            json_t *have = id ? find_by(arr, "id", id) : NULL;
            if (!have) {
                json_array_append(arr, v);
            } else {
                /* a check that did not run in one shard did not run for the whole */
                const char *st = json_string_value(json_object_get(v, "status"));
                if (st && strcmp(st, "ran"))
                    json_object_update(have, v);
            }
        }
        json_array_extend(json_object_get(out->root, "findings"), json_object_get(r, "findings"));
        verify_doc_merge(out->root, r);
        const char *k;
        json_object_foreach(json_object_get(r, "timings_ms"), k, v)
        {
            run_doc_add_timing(out, k, json_number_value(v));
        }
    }
    if ((rc = merge_files(out, shards, paths, n)) < 0) {
        run_doc_free(out);
        return rc;
    }
    /* two configs of different parts writing one file: each part passed */
    json_t *shard = json_object_get(out->root, "shard");
    char *own = NULL;
    if (run_doc_check_shared_outputs(shards, n) < 0)
        own = pgci_strdup(pgci_error_last());
    /* runs over named configs: the merge is a part too, writing what they write */
    for (size_t s = 1; s < n; s++)
        if (json_is_object(json_object_get(shards[s].root, "outputs"))) {
            if (!json_is_object(json_object_get(out->root, "outputs")))
                json_object_set_new(out->root, "outputs", json_object());
            json_object_update(json_object_get(out->root, "outputs"),
                               json_object_get(shards[s].root, "outputs"));
        }
    merge_errors(out, shards, paths, n, own);
    sort_configs(json_object_get(out->root, "configs"), json_object_get(shard, "all"));
    sort_findings_json(json_object_get(out->root, "findings"));
    /* a package-wide finding comes once from each `--shard` holding the package */
    if (shard)
        run_doc_dedupe_findings(out);
    json_object_del(out->root, "shard"); /* the merge is the whole run */
    update_summary(out);
    if (own) {
        pgci_error_set(PGCI_EINVALID, "%s", own);
        free(own);
        return 1;
    }
    return 0;
}

const char *run_doc_command(const run_doc *d)
{
    const char *c = json_string_value(json_object_get(d->root, "command"));
    return c ? c : "";
}

json_t *run_doc_findings(const run_doc *d)
{
    return json_object_get(d->root, "findings");
}

json_t *run_doc_configs(const run_doc *d)
{
    return json_object_get(d->root, "configs");
}

json_t *run_doc_checks(const run_doc *d)
{
    return json_object_get(d->root, "checks");
}

const char *run_doc_input(const run_doc *d, const char *key)
{
    return json_string_value(json_object_get(json_object_get(d->root, "inputs"), key));
}
