/*
 * The unselected configs of the checked packages (see gate_context.h).
 */
#include "pipeline/gate_context.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/regen.h"

static int selected(const ws_config *c, const ws_config *const *sel, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sel[i] == c)
            return 1;
    return 0;
}

static int in_checked_package(const ws_config *c, const ws_config *const *sel, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(sel[i]->dir, c->dir))
            return 1;
    return 0;
}

static const char *own(gate_context *g, char *s)
{
    g->owned = pgci_realloc(g->owned, (g->n_owned + 1) * sizeof(char *));
    g->owned[g->n_owned++] = s;
    return s;
}

/* The checked-in file at root/rel, owned by g; NULL when it is not there. */
static const char *read_checked(gate_context *g, const char *root, const char *rel, size_t *len)
{
    strbuf p = STRBUF_INIT, data = STRBUF_INIT;
    *len = 0;
    const char *r = NULL;
    if (rel && fs_join_under(&p, root, rel, "generated file") == 0 && fs_is_file(p.buf) &&
        fs_read_file(&data, p.buf, 0) == 0)
        r = own(g, strbuf_detach(&data, len));
    pgci_error_clear();
    strbuf_free(&p);
    strbuf_free(&data);
    return r;
}

static void add_one(gate_context *g, const workspace *ws, const ws_config *c, config_eval *ev,
                    const char *var_name)
{
    check_input *in = &g->inputs[g->n++];
    memset(in, 0, sizeof(*in));
    in->module = c->module;
    in->config_path = c->path;
    pg_config *cfg = NULL;
    if (config_eval_file(ev, c->path, var_name, &cfg) < 0) {
        in->error = own(g, pgci_strdup(pgci_error_last()));
        pgci_error_clear();
        return;
    }
    in->cfg = cfg;
    in->source_module = cfg->source_module;
    char *py = NULL, *diff = NULL;
    if (regen_output_paths(c->dir, NULL, cfg->target_file, &py, &diff) < 0) {
        pgci_error_clear();
        return;
    }
    in->py_path = own(g, py);
    in->diff_path = own(g, diff);
    in->checked_py = read_checked(g, ws->root, in->py_path, &in->checked_py_len);
    in->checked_diff = read_checked(g, ws->root, in->diff_path, &in->checked_diff_len);
}

void gate_context_build(gate_context *out, const workspace *ws, const ws_config *const *sel,
                        size_t n, config_eval *ev, const char *var_name)
{
    memset(out, 0, sizeof(*out));
    out->inputs = pgci_calloc(ws->configs.len + 1, sizeof(*out->inputs));
    for (size_t i = 0; i < ws->configs.len; i++) {
        const ws_config *c = &ws->configs.items[i];
        if (!selected(c, sel, n) && in_checked_package(c, sel, n))
            add_one(out, ws, c, ev, var_name);
    }
}

void gate_context_free(gate_context *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->inputs[i].cfg)
            pg_config_free((pg_config *)c->inputs[i].cfg);
    for (size_t i = 0; i < c->n_owned; i++)
        free(c->owned[i]);
    free(c->owned);
    free(c->inputs);
    memset(c, 0, sizeof(*c));
}
