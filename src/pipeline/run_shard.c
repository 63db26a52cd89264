/*
 * Shards and run errors in run.json (see run_shard.h).
 */
#include "pipeline/run_shard.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/vec.h"

static json_t *str_array(const strvec *v)
{
    json_t *a = json_array();
    for (size_t i = 0; v && i < v->len; i++)
        json_array_append_new(a, json_string(v->items[i]));
    return a;
}

void run_doc_set_shard(run_doc *d, int k, int n, const strvec *configs, const strvec *all)
{
    json_t *s = json_object();
    json_object_set_new(s, "k", json_integer(k));
    json_object_set_new(s, "n", json_integer(n));
    json_object_set_new(s, "configs", str_array(configs));
    json_object_set_new(s, "all", str_array(all));
    json_object_set_new(d->root, "shard", s);
}

void run_doc_set_outputs(run_doc *d, const char *const *configs, const char *const *files, size_t n)
{
    json_t *sh = json_object_get(d->root, "shard");
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        if (configs[i] && files[i])
            json_object_set_new(o, configs[i], json_string(files[i]));
    json_object_set_new(json_is_object(sh) ? sh : d->root, "outputs", o);
}

/* A part's outputs: its shard's, or those of a run over named configs. */
static json_t *part_outputs(const run_doc *d)
{
    json_t *o = json_object_get(json_object_get(d->root, "shard"), "outputs");
    return o ? o : json_object_get(d->root, "outputs");
}

int run_doc_shared_output_error(const char *a, const char *b, const char *file)
{
    return pgci_error_set(PGCI_EINVALID,
                          "%s and %s both write %s, so each regeneration overwrites the other's: "
                          "give one of them another target_file",
                          a, b, file);
}

typedef struct config_output {
    const char *config, *file;
} config_output;

/* The workspace's order: discovery sorts configs by path, part by part. */
static int cmp_output(const void *pa, const void *pb)
{
    return fs_path_cmp(((const config_output *)pa)->config, ((const config_output *)pb)->config);
}

int run_doc_check_shared_outputs(const run_doc *docs, size_t n)
{
    VEC(config_output) all = VEC_INIT;
    for (size_t s = 0; s < n; s++) {
        const char *cfg;
        json_t *f;
        json_object_foreach(part_outputs(&docs[s]), cfg, f)
        {
            if (json_is_string(f))
                VEC_PUSH(&all, ((config_output){cfg, json_string_value(f)}));
        }
    }
    if (all.len > 1)
        qsort(all.items, all.len, sizeof(all.items[0]), cmp_output);
    int r = 0;
    for (size_t i = 1; i < all.len && r == 0; i++)
        for (size_t j = 0; j < i && r == 0; j++)
            if (!strcmp(all.items[i].file, all.items[j].file))
                r = run_doc_shared_output_error(all.items[j].config, all.items[i].config,
                                                all.items[j].file);
    VEC_FREE(&all);
    return r;
}

void run_doc_set_error(run_doc *d, const char *message)
{
    json_object_set_new(d->root, "error", json_string(message));
}

const char *run_doc_error(const run_doc *d)
{
    return json_string_value(json_object_get(d->root, "error"));
}

static int has_string(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i,
                       v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return 1;
    return 0;
}

/* Every config of `all` is in some shard's list. */
static int check_covered(const run_doc *docs, size_t n, json_t *all)
{
    size_t i;
    json_t *m;
    json_array_foreach(all, i, m)
    {
        int found = 0;
        for (size_t s = 0; s < n && !found; s++)
            found = has_string(json_object_get(json_object_get(docs[s].root, "shard"), "configs"),
                               json_string_value(m));
        if (!found)
            return pgci_error_set(PGCI_EINVALID,
                                  "config %s is in no shard (the shards were split from "
                                  "different config lists?)",
                                  json_string_value(m));
    }
    return 0;
}

int run_doc_check_shards(const run_doc *docs, const char *const *paths, size_t n)
{
    size_t with = 0;
    for (size_t s = 0; s < n; s++)
        with += json_is_object(json_object_get(docs[s].root, "shard"));
    if (!with)
        return 0;
    if (with != n)
        return pgci_error_set(PGCI_EINVALID, "cannot merge shards with runs that are not shards");
    json_t *first = json_object_get(docs[0].root, "shard");
    json_int_t total = json_integer_value(json_object_get(first, "n"));
    const char **by_k = pgci_calloc((size_t)total + 1, sizeof(*by_k));
    int r = 0;
    for (size_t s = 0; r == 0 && s < n; s++) {
        json_t *sh = json_object_get(docs[s].root, "shard");
        json_int_t k = json_integer_value(json_object_get(sh, "k"));
        json_int_t nn = json_integer_value(json_object_get(sh, "n"));
        if (nn != total || k < 1 || k > total)
            r = pgci_error_set(PGCI_EINVALID, "%s is shard %lld/%lld, %s is of %lld shards",
                               paths[s], (long long)k, (long long)nn, paths[0], (long long)total);
        else if (by_k[k])
            r = pgci_error_set(PGCI_EINVALID, "shard %lld/%lld is given twice: %s and %s",
                               (long long)k, (long long)total, by_k[k], paths[s]);
        else
            by_k[k] = paths[s];
    }
    for (json_int_t k = 1; r == 0 && k <= total; k++)
        if (!by_k[k])
            r = pgci_error_set(PGCI_EINVALID,
                               "shard %lld/%lld is missing: the merged report would leave its "
                               "configs out (pass every shard's run.json)",
                               (long long)k, (long long)total);
    free(by_k);
    if (r == 0)
        r = check_covered(docs, n, json_object_get(first, "all"));
    return r;
}

void run_doc_dedupe_findings(run_doc *d)
{
    json_t *fs = run_doc_findings(d);
    for (size_t i = 1; i < json_array_size(fs);) {
        if (json_equal(json_array_get(fs, i), json_array_get(fs, i - 1)))
            json_array_remove(fs, i);
        else
            i++;
    }
}
