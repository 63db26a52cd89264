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

void run_doc_add_input_file(run_doc *d, const char *path, const char *sha256_hex)
{
    json_t *f = json_object();
    json_object_set_new(f, "path", json_string(path));
    json_object_set_new(f, "sha256", json_string(sha256_hex));
    json_array_append_new(json_object_get(json_object_get(d->root, "inputs"), "files"), f);
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

int run_doc_merge(run_doc *out, const run_doc *shards, size_t n)
{
    if (n == 0)
        return pgci_error_set(PGCI_EUSAGE, "nothing to merge");
    out->root = json_deep_copy(shards[0].root);
    out->timings = 1; /* shards' timings are added up when they have them */
    const char *cmd = run_doc_command(out);
    for (size_t s = 1; s < n; s++) {
        json_t *r = shards[s].root;
        if (strcmp(cmd, run_doc_command(&shards[s])))
            return pgci_error_set(PGCI_EINVALID, "cannot merge a '%s' run with a '%s' run", cmd,
                                  run_doc_command(&shards[s]));
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
        json_array_extend(json_object_get(json_object_get(out->root, "inputs"), "files"),
                          json_object_get(json_object_get(r, "inputs"), "files"));
        const char *k;
        json_object_foreach(json_object_get(r, "timings_ms"), k, v)
        {
            run_doc_add_timing(out, k, json_number_value(v));
        }
    }
    sort_findings_json(json_object_get(out->root, "findings"));
    /* a package-wide finding comes once from each `--shard` holding the package */
    if (json_object_get(out->root, "shard"))
        run_doc_dedupe_findings(out);
    json_object_del(out->root, "shard"); /* the merge is the whole run */
    update_summary(out);
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
