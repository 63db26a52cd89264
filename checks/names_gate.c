/*
 * names in the gate: undefined names (F821) and redefinitions (F811) in what each
 * config regenerates to (the normalised output, or the raw one when ruff did not
 * run or refused it; the checked-in file when regeneration produced nothing),
 * unused imports (F401) as notes, natively (no ruff).
 * This is what catches a patch body still writing `Optional[...]` after upstream
 * stopped importing it. The target Python comes from the workspace's
 * [tool.ruff] target-version (ruff's default, 3.9, when unset).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/result_cache.h"
#include "checks/checks.h"
#include "checks/names.h"
#include "checks/names_origin.h"
#include "core/error.h"
#include "workspace/toml.h"

static int names_whole(const check_ctx *ctx, const check_input *in, const char *src, size_t len,
                       const names_opts *o, findings *out);

/* Aborts when the findings of a forest are not those of the whole tree
 * (PGCI_VERIFY_FOREST; tests set it). */
static void verify_forest(const check_input *in, const char *src, size_t len, const names_opts *o,
                          const findings *got)
{
    findings want = FINDINGS_INIT;
    check_ctx none;
    memset(&none, 0, sizeof(none));
    names_whole(&none, in, src, len, o, &want);
    json_t *a = findings_to_json(got), *b = findings_to_json(&want);
    if (!json_equal(a, b)) {
        char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
        fprintf(stderr, "pgci: %s: the names check reads as a forest %s, whole %s\n", in->py_path,
                x, y);
        abort();
    }
    json_decref(a);
    json_decref(b);
    findings_free(&want);
}

/* The names findings of src under o, computed (out empty). A regenerated file
 * (raw or normalised) is read as a forest against its upstream module, or else
 * parsed whole, through the run's parse set (ruff-equivalence's structural mode
 * reads the raw one too). */
static int names_of(const check_ctx *ctx, const check_input *in, const char *src, size_t len,
                    const names_opts *o, findings *out)
{
    const py_forest *f = ctx->parses && (src == in->raw || src == in->expected_py) && in->upstream
                             ? py_parse_set_get_forest(ctx->parses, src, len, in->py_path,
                                                       in->upstream, in->upstream_len)
                             : NULL;
    if (!f)
        return names_whole(ctx, in, src, len, o, out);
    if (check_names_forest(out, f, in->module, in->py_path, o) < 0) {
        /* whatever fails reading a forest, the whole tree says (out is empty) */
        pgci_error_clear();
        findings_free(out);
        findings empty = FINDINGS_INIT;
        *out = empty;
        py_parse_set_release_forest(ctx->parses, f);
        return names_whole(ctx, in, src, len, o, out);
    }
    py_parse_set_release_forest(ctx->parses, f);
    if (getenv("PGCI_VERIFY_FOREST"))
        verify_forest(in, src, len, o, out);
    return 0;
}

/* The names findings of src's whole tree. A raw output's comes from the run's
 * parse set (ruff-equivalence's structural mode parses it too). */
static int names_whole(const check_ctx *ctx, const check_input *in, const char *src, size_t len,
                       const names_opts *o, findings *out)
{
    py_tree t;
    py_parse_set *set = src == in->raw ? ctx->parses : NULL;
    if ((set ? py_parse_set_get(set, src, len, in->py_path, &t)
             : py_parse(&t, src, len, in->py_path)) < 0)
        return PGCI_ERROR;
    if (check_names_tree(out, &t, in->module, in->py_path, o) < 0) {
        /* a generated file that does not parse is itself the finding */
        findings_add(out, "names", SEV_ERROR, in->module, in->py_path, 0, 0, NULL, "%s",
                     pgci_error_last());
        pgci_error_clear();
    }
    if (set)
        py_parse_set_release(&t);
    else
        py_tree_free(&t);
    return 0;
}

/* The key of names_of(): everything it reads (and pgci's build). */
static void names_key(const check_input *in, const char *src, size_t len, const names_opts *o,
                      uint8_t key[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    rcache_key_begin(&c, "names");
    rcache_key_adds(&c, in->module);
    rcache_key_adds(&c, in->py_path);
    rcache_key_addu(&c, (unsigned long long)o->py_minor);
    rcache_key_addu(&c, o->select);
    rcache_key_addu(&c, (unsigned long long)o->ignore_noqa);
    rcache_key_add(&c, src, len);
    sha256_final(&c, key);
}

/* names_of(), from the result cache when an earlier run computed it for the same
 * source and options (a warm `pgci check` parses no generated file), then put on
 * the config lines that wrote the names. */
static int names_cached(const check_ctx *ctx, const check_input *in, const char *src, size_t len,
                        const names_opts *o, findings *out)
{
    uint8_t key[SHA256_DIGEST_LEN];
    strbuf hit = STRBUF_INIT;
    findings mine = FINDINGS_INIT;
    int cached = 0;
    if (ctx->cache) {
        names_key(in, src, len, o, key);
        if (rcache_get(ctx->cache, "names", key, &hit)) {
            json_t *arr = json_loadb(hit.buf, hit.len, 0, NULL);
            cached = arr && findings_from_json(&mine, arr) == 0;
            json_decref(arr);
        }
        strbuf_free(&hit);
    }
    if (!cached && names_of(ctx, in, src, len, o, &mine) < 0) {
        findings_free(&mine);
        return PGCI_ERROR;
    }
    if (ctx->cache && !cached) {
        json_t *arr = findings_to_json(&mine);
        char *txt = json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (txt)
            rcache_put(ctx->cache, "names", key, txt, strlen(txt));
        free(txt);
        json_decref(arr);
    }
    /* on the config line that wrote the name, the generated line in the detail
     * (outside the cache: it reads the config files) */
    names_to_config(&mine, 0, in, src, len, ctx->ws ? ctx->ws->root : NULL);
    findings_move(out, &mine);
    findings_free(&mine);
    return 0;
}

/* One config: its generated source's names. arg: the workspace's names_opts. */
static int one_names(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    const names_opts *o = arg;
    const char *src = in->expected_py ? in->expected_py : in->raw ? in->raw : in->checked_py;
    size_t len = in->expected_py ? in->expected_py_len : in->raw ? in->raw_len : in->checked_py_len;
    if (!src || !in->py_path)
        return 0;
    /* raw output is what ruff --fix will still clean: its F811 and F401 are
     * fixed by removing the import, so only F821 is a defect there */
    names_opts oi = *o;
    if (!in->expected_py && in->raw && src == in->raw)
        oi.select = NAMES_F821;
    return names_cached(ctx, in, src, len, &oi, out);
}

static int begin_names(const check_ctx *ctx, void **arg, strbuf *why)
{
    names_opts o = NAMES_OPTS_INIT;
    const char *tv = ctx->ws && ctx->ws->doc
                         ? toml_str(toml_get_path(ctx->ws->doc, "tool.ruff.target-version"))
                         : NULL;
    if (tv && names_python_parse(tv, &o.py_minor) < 0)
        pgci_error_clear();
    size_t checked = 0;
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        const check_input *in = &ctx->inputs[i];
        checked += (in->expected_py || in->raw || in->checked_py) && in->py_path;
    }
    if (!checked && ctx->n_inputs) {
        strbuf_adds(why, "no generated file to read");
        return CHECK_NOT_RUN;
    }
    names_opts *mine = pgci_calloc(1, sizeof(*mine));
    *mine = o;
    *arg = mine;
    return CHECK_RAN;
}

static int end_names(const check_ctx *ctx, void *arg, strbuf *why)
{
    (void)ctx, (void)why;
    free(arg);
    return CHECK_RAN;
}

static const check_each_def names_each = {.begin = begin_names, .one = one_names, .end = end_names};

const check_def check_names = {.id = "names",
                               .summary = "undefined and redefined names in generated files",
                               .each = &names_each};
