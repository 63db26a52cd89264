/*
 * protocol-retired: what the patchgen protocol retired stays retired.
 *
 *   - retired.file: a model package with a patch config has no hand-written
 *     modeling_<model>.py, gpu_patch.py or npu_patch.py (the monkey-patching
 *     files the generated modeling replaced; patterns in
 *     [tool.pgci.protocol.retired] files).
 *   - retired.generated-only (with `pgci check --base REV`): a change set that
 *     touches a config's generated/ files must also touch what they are
 *     generated from: the config, a config its patches come from (an NPU config
 *     importing GPU patches, a MoE config reusing dense ones), or the pin in
 *     pyproject.toml. The change set is REV's tree against the working tree
 *     and index, read through libgit2, so it covers commits after REV and what
 *     is not committed yet. A hand edit of generated code is exactly what the
 *     drift check catches later; this names it at review time.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "upstream/git_api.h"

/* The package's modules (stems) that only a branch dead at the tag imports, from
 * its __init__.py, and what those import in turn within the package (a legacy
 * modeling_<m>.py importing gpu_patch.py): the older pin's path, kept on purpose. */
static void legacy_modules(const check_ctx *ctx, const proto_package *p, strvec *out)
{
    strbuf rel = STRBUF_INIT, src = STRBUF_INIT;
    fs_join(&rel, p->dir, "__init__.py");
    py_tree t;
    if (proto_read(ctx->ws, rel.buf, &src) == 0 && proto_parse(ctx, &src, rel.buf, &t) == 0) {
        proto_dead_imports(&t, ctx->tag, out);
        proto_tree_free(ctx, &t);
    }
    pgci_error_clear();
    for (size_t i = 0; i < out->len; i++) {
        strbuf_reset(&rel);
        strbuf_reset(&src);
        fs_join(&rel, p->dir, out->items[i]);
        strbuf_adds(&rel, ".py");
        if (proto_read(ctx->ws, rel.buf, &src) < 0 || py_parse(&t, src.buf, src.len, rel.buf) < 0) {
            pgci_error_clear();
            continue;
        }
        /* what it imports within the package is on the same path */
        strvec more = STRVEC_INIT;
        proto_relative_imports(&t, &more);
        for (size_t k = 0; k < more.len; k++)
            if (strvec_find(out, more.items[k]) < 0)
                strvec_push(out, more.items[k]);
        strvec_free(&more);
        py_tree_free(&t);
    }
    strbuf_free(&rel);
    strbuf_free(&src);
}

static void check_files(const check_ctx *ctx, const proto_settings *s, const proto_package *p,
                        findings *out)
{
    strvec legacy = STRVEC_INIT;
    legacy_modules(ctx, p, &legacy);
    const char *base = strrchr(p->dir, '/');
    base = base ? base + 1 : p->dir;
    const char *models[2] = {p->model, strcmp(base, p->model) ? base : NULL};
    strvec seen = STRVEC_INIT;
    for (size_t i = 0; i < s->retired.len; i++) {
        for (size_t m = 0; m < 2 && models[m]; m++) {
            char *name = proto_subst(s->retired.items[i], "model", models[m]);
            strbuf rel = STRBUF_INIT;
            fs_join(&rel, p->dir, name);
            size_t stem = strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".py")
                              ? strlen(name) - 3
                              : strlen(name);
            char *mod = pgci_strndup(name, stem);
            int kept = strvec_find(&legacy, mod) >= 0;
            free(mod);
            if (!kept && strvec_find(&seen, rel.buf) < 0 && proto_exists(ctx->ws, rel.buf)) {
                strvec_push(&seen, rel.buf);
                proto_add(out, s, "retired.file", p->inputs.items[0]->module, rel.buf, 0,
                          "%s is retired: %s is generated from %s now", name, p->dir,
                          p->inputs.items[0]->config_path);
            }
            strbuf_free(&rel);
            free(name);
        }
    }
    strvec_free(&seen);
    strvec_free(&legacy);
}

/* ---- --base ------------------------------------------------------------------ */

typedef struct changes {
    strvec paths;       /* workspace-relative */
    const char *prefix; /* the workspace root relative to the repository workdir ("" or "a/b/") */
} changes;

static int on_delta(const git_diff_delta *d, float progress, void *arg)
{
    (void)progress;
    changes *c = arg;
    const char *paths[2] = {d->old_file.path, d->new_file.path};
    for (int i = 0; i < 2; i++) {
        const char *p = paths[i];
        if (!p || strncmp(p, c->prefix, strlen(c->prefix)))
            continue;
        p += strlen(c->prefix);
        if (strvec_find(&c->paths, p) < 0)
            strvec_push(&c->paths, p);
    }
    return 0;
}

static int git_fail(const git_api *G, const char *what, const char *base)
{
    return pgci_error_set(PGCI_EINVALID, "--base %s: %s: %s", base, what, git_api_why(G));
}

/* The paths changed between base and the working tree (with the index). */
static int changed_paths(const workspace *ws, const char *base, changes *c)
{
    const git_api *G = git_api_get();
    if (!G)
        return pgci_error_code();
    git_repository *repo = NULL;
    git_object *obj = NULL;
    git_tree *tree = NULL;
    git_diff *diff = NULL;
    int r = 0;
    char real_root[PATH_MAX], real_wd[PATH_MAX];
    if (G->repository_open_ext(&repo, ws->root, 0, NULL) < 0) {
        r = pgci_error_set(PGCI_EINVALID, "--base %s: %s is not inside a git repository", base,
                           ws->root);
        goto out;
    }
    const char *wd = G->repository_workdir(repo);
    if (!wd || !realpath(wd, real_wd) || !realpath(ws->root, real_root)) {
        r = pgci_error_set(PGCI_EINVALID, "--base %s: the repository of %s has no working tree",
                           base, ws->root);
        goto out;
    }
    size_t wl = strlen(real_wd);
    strbuf prefix = STRBUF_INIT;
    if (strlen(real_root) > wl && real_root[wl] == '/') {
        strbuf_adds(&prefix, real_root + wl + 1);
        strbuf_addc(&prefix, '/');
    }
    c->prefix = strbuf_detach(&prefix, NULL);
    if (G->revparse_single(&obj, repo, base) < 0) {
        r = git_fail(G, "no such revision", base);
        goto out;
    }
    if (G->object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) < 0) {
        r = git_fail(G, "not a commit or tree", base);
        goto out;
    }
    git_diff_options o;
    G->diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
    if (G->diff_tree_to_workdir_with_index(&diff, repo, tree, &o) < 0) {
        r = git_fail(G, "cannot diff against the working tree", base);
        goto out;
    }
    if (G->diff_foreach(diff, on_delta, NULL, NULL, NULL, c) < 0)
        r = git_fail(G, "cannot read the diff", base);
out:
    G->diff_free(diff);
    G->tree_free(tree);
    G->object_free(obj);
    G->repository_free(repo);
    return r;
}

static int changed(const changes *c, const char *rel)
{
    return rel && strvec_find(&c->paths, rel) >= 0;
}

/* ws-relative path of an absolute file under the root, else NULL */
static const char *rel_of(const workspace *ws, const char *abs)
{
    size_t n = strlen(ws->root);
    if (!abs || strncmp(abs, ws->root, n) || abs[n] != '/')
        return NULL;
    return abs + n + 1;
}

/* The configs a config imports from (`from <...>_patch_gen_config import ...`),
 * transitively, as workspace-relative paths appended to out. A line scan is
 * enough: patchgen configs import sibling configs at module level only. */
static void imported_configs(const workspace *ws, const char *path, strvec *out)
{
    strvec_push(out, path);
    for (size_t k = 0; k < out->len; k++) {
        strbuf src = STRBUF_INIT;
        if (proto_read(ws, out->items[k], &src) < 0) {
            strbuf_free(&src);
            continue;
        }
        for (const char *p = src.buf; p && *p;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 5 && !strncmp(p, "from ", 5)) {
                const char *m = p + 5;
                size_t ml = strcspn(m, " \n");
                for (size_t i = 0; i < ws->configs.len; i++) {
                    const ws_config *wc = &ws->configs.items[i];
                    if (strlen(wc->module) == ml && !strncmp(wc->module, m, ml) &&
                        strvec_find(out, wc->path) < 0)
                        strvec_push(out, wc->path);
                }
            }
            p = e ? e + 1 : NULL;
        }
        strbuf_free(&src);
    }
}

static int sources_changed(const check_ctx *ctx, const check_input *in, const changes *c)
{
    if (changed(c, in->config_path) || changed(c, "pyproject.toml"))
        return 1;
    strvec cfgs = STRVEC_INIT;
    imported_configs(ctx->ws, in->config_path, &cfgs);
    int hit = 0;
    for (size_t i = 0; i < cfgs.len && !hit; i++)
        hit = changed(c, cfgs.items[i]);
    strvec_free(&cfgs);
    if (hit)
        return 1;
    const pg_config *cfg = in->cfg;
    if (!cfg)
        return 0;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_object *o = cfg->patches.items[i].replacement;
        if (o && changed(c, rel_of(ctx->ws, o->file)))
            return 1;
    }
    for (size_t i = 0; i < cfg->helpers.len; i++)
        if (changed(c, rel_of(ctx->ws, cfg->helpers.items[i]->file)))
            return 1;
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++)
        if (changed(c, rel_of(ctx->ws, cfg->positioned_helpers.items[i].helper->file)))
            return 1;
    return 0;
}

static int check_base(const check_ctx *ctx, const proto_settings *s, findings *out)
{
    changes c;
    memset(&c, 0, sizeof(c));
    int r = changed_paths(ctx->ws, ctx->base, &c);
    if (r == 0) {
        for (size_t i = 0; i < ctx->n_inputs; i++) {
            const check_input *in = &ctx->inputs[i];
            const char *gen[2] = {in->py_path, in->diff_path};
            for (int k = 0; k < 2; k++) {
                if (!changed(&c, gen[k]) || sources_changed(ctx, in, &c))
                    continue;
                proto_add(out, s, "retired.generated-only", in->module, gen[k], 0,
                          "%s changed since %s without a change to %s (or the configs its patches "
                          "come from, or the pin): edit the config and regenerate",
                          gen[k], ctx->base, in->config_path);
            }
        }
    }
    strvec_free(&c.paths);
    free((char *)c.prefix);
    return r;
}

static int run_retired(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    (void)why;
    int r = 0;
    proto_packages ps;
    proto_packages_build(&ps, ctx, s);
    for (size_t i = 0; i < ps.len; i++)
        check_files(ctx, s, &ps.items[i], out);
    proto_packages_free(&ps);
    if (ctx->base && proto_sev(s, "retired.generated-only") != PROTO_OFF)
        r = check_base(ctx, s, out);
    return r < 0 ? r : CHECK_RAN;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_retired);
}

const check_def check_protocol_retired = {
    .id = "protocol-retired",
    .summary =
        "no retired hand-written modeling files; generated/ changes come with a config change",
    .run = run};
