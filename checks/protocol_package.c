/*
 * Model packages for the protocol checks: the checked configs grouped by the
 * directory they live in (one model package each, as in VeOmni's
 * models/transformers/<model>/), and the small helpers every protocol check uses.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "py/parse_set.h"

static const char cfg_suffix[] = "_patch_gen_config";

char *proto_model_stem(const char *config_path, const proto_settings *s)
{
    const char *base = strrchr(config_path, '/');
    base = base ? base + 1 : config_path;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".py"))
        n -= 3;
    size_t sl = sizeof(cfg_suffix) - 1;
    if (n > sl && !strncmp(base + n - sl, cfg_suffix, sl))
        n -= sl;
    const char *sufs[] = {s->gpu_suffix, s->npu_suffix};
    for (size_t i = 0; i < 2; i++) {
        size_t k = sufs[i] ? strlen(sufs[i]) : 0;
        if (k && n > k && !strncmp(base + n - k, sufs[i], k)) {
            n -= k;
            break;
        }
    }
    return pgci_strndup(base, n);
}

int proto_is_npu(const char *config_path, const proto_settings *s)
{
    if (!config_path || !s->npu_suffix || !s->npu_suffix[0])
        return 0;
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "%s%s.py", s->npu_suffix, cfg_suffix);
    int r = pgci_ends_with(config_path, want.buf);
    strbuf_free(&want);
    return r;
}

char *proto_target_stem(const check_input *in)
{
    const char *t = in->cfg && in->cfg->target_file ? in->cfg->target_file : in->py_path;
    if (!t)
        return NULL;
    const char *base = strrchr(t, '/');
    base = base ? base + 1 : t;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".py"))
        n -= 3;
    return pgci_strndup(base, n);
}

void proto_packages_build(proto_packages *out, const check_ctx *ctx, const proto_settings *s)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        const check_input *in = &ctx->inputs[i];
        if (!in->config_path)
            continue;
        char *dir = fs_dirname(in->config_path);
        proto_package *p = NULL;
        for (size_t k = 0; k < out->len && !p; k++)
            if (!strcmp(out->items[k].dir, dir))
                p = &out->items[k];
        if (!p) {
            proto_package np;
            memset(&np, 0, sizeof(np));
            np.dir = dir;
            np.model = proto_model_stem(in->config_path, s);
            VEC_PUSH(out, np);
            p = &out->items[out->len - 1];
        } else {
            free(dir);
        }
        VEC_PUSH(&p->inputs, in);
    }
    /* the rest of each package, when only some of its configs are checked */
    for (size_t i = 0; i < ctx->n_context; i++) {
        const check_input *in = &ctx->context[i];
        char *dir = in->config_path ? fs_dirname(in->config_path) : NULL;
        for (size_t k = 0; dir && k < out->len; k++)
            if (!strcmp(out->items[k].dir, dir))
                VEC_PUSH(&out->items[k].inputs, in);
        free(dir);
    }
}

void proto_packages_free(proto_packages *ps)
{
    for (size_t i = 0; i < ps->len; i++) {
        free(ps->items[i].dir);
        free(ps->items[i].model);
        VEC_FREE(&ps->items[i].inputs);
    }
    VEC_FREE(ps);
}

int proto_read(const workspace *ws, const char *rel, strbuf *out)
{
    strbuf p = STRBUF_INIT;
    int r = fs_join_under(&p, ws->root, rel, "protocol file");
    if (r == 0)
        r = fs_is_file(p.buf) ? fs_read_file(out, p.buf, 0) : PGCI_ENOTFOUND;
    strbuf_free(&p);
    if (r < 0)
        pgci_error_clear();
    return r;
}

int proto_parse(const check_ctx *ctx, const strbuf *src, const char *rel, py_tree *t)
{
    int r = ctx->parses ? py_parse_set_get(ctx->parses, src->buf, src->len, rel, t)
                        : py_parse(t, src->buf, src->len, rel);
    if (r < 0)
        pgci_error_clear();
    return r;
}

void proto_tree_free(const check_ctx *ctx, py_tree *t)
{
    if (ctx->parses)
        py_parse_set_release(t);
    else
        py_tree_free(t);
}

int proto_exists(const workspace *ws, const char *rel)
{
    strbuf p = STRBUF_INIT;
    int ok = fs_join_under(&p, ws->root, rel, "protocol file") == 0 && fs_is_file(p.buf);
    pgci_error_clear();
    strbuf_free(&p);
    return ok;
}

finding *proto_add(findings *fs, const proto_settings *s, const char *rule, const char *config,
                   const char *path, unsigned line, const char *title_fmt, ...)
{
    int sev = proto_sev(s, rule);
    if (sev == PROTO_OFF)
        return NULL;
    const char *check = "protocol";
    for (size_t i = 0; i < proto_n_rules; i++)
        if (!strcmp(proto_rules[i].id, rule))
            check = proto_rules[i].check;
    strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, title_fmt);
    strbuf_vaddf(&t, title_fmt, ap);
    va_end(ap);
    json_t *data = json_pack("{s:s}", "rule", rule);
    finding *f = findings_add(fs, check, (severity)sev, config, path, line, 0, data, "%s", t.buf);
    strbuf_free(&t);
    return f;
}

char *proto_subst(const char *pattern, const char *key, const char *value)
{
    strbuf out = STRBUF_INIT, k = STRBUF_INIT;
    strbuf_addf(&k, "{%s}", key);
    const char *p = pattern, *hit;
    while ((hit = strstr(p, k.buf))) {
        strbuf_add(&out, p, (size_t)(hit - p));
        strbuf_adds(&out, value);
        p = hit + k.len;
    }
    strbuf_adds(&out, p);
    strbuf_free(&k);
    return strbuf_detach(&out, NULL);
}
