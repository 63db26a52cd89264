/*
 * rope-compat: a fused rotary replacement that rotates the whole head dimension
 * is wrong on a model whose configuration rotates only part of it
 * (partial_rotary_factor < 1) or interleaves multimodal rotary sections
 * (mrope_interleaved): the logits change and nothing fails. The configuration's
 * defaults come from upstream `configuration_<model>.py` at tag B.
 *
 * A replacement counts as full-head when its source never mentions the partial
 * rotary knobs (partial_rotary_factor, rotary_dim, rotary_ndims, mrope).
 */
#include <stdlib.h>
#include <string.h>

#include "checks/contracts.h"

static int is_rotary_target(const char *t)
{
    return strstr(t, "rotary") || strstr(t, "Rotary") || !strcmp(t, "rotate_half");
}

static int handles_partial(const char *text)
{
    return strstr(text, "partial_rotary_factor") || strstr(text, "rotary_dim") ||
           strstr(text, "rotary_ndims") || strstr(text, "mrope");
}

/* The default of a configuration field: an __init__ parameter or a class attribute
 * of the *Config class. */
static const char *config_default(const index_module *m, const char *field)
{
    for (size_t i = 0; m && i < m->n_defs; i++) {
        const index_def *c = m->defs[i];
        if (c->kind != INDEX_CLASS || !strstr(c->name, "Config"))
            continue;
        const index_def *init = index_member(c, "__init__");
        const index_param *p = init ? index_param_find(init, field) : NULL;
        if (p && p->default_value)
            return p->default_value;
        for (size_t k = 0; k < c->n_attrs; k++)
            if (!strcmp(c->attrs[k].name, field) && c->attrs[k].value)
                return c->attrs[k].value;
    }
    return NULL;
}

static int rotary_patch(const pg_patch *patch)
{
    return is_rotary_target(patch->target) && patch->type != PG_INIT_MODIFICATION;
}

int rope_compat_reads_configuration(const pg_config *cfg)
{
    for (size_t i = 0; i < cfg->patches.len; i++)
        if (rotary_patch(&cfg->patches.items[i]))
            return 1;
    return 0;
}

void check_rope_compat(findings *out, const survey_pair *p)
{
    if (!p->config_b)
        return;
    const char *partial = config_default(p->config_b, "partial_rotary_factor");
    const char *mrope = config_default(p->config_b, "mrope_interleaved");
    double factor = partial ? strtod(partial, NULL) : 1.0;
    int partial_rotary = partial && factor > 0.0 && factor < 1.0;
    int interleaved = mrope && !strcmp(mrope, "True");
    if (!partial_rotary && !interleaved)
        return;
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *patch = &p->cfg->patches.items[i];
        if (!rotary_patch(patch))
            continue;
        char *text = signatures_object_text(patch->replacement);
        int full = text ? !handles_partial(text) : 1;
        free(text);
        if (!full)
            continue;
        json_t *data = json_object();
        json_object_set_new(data, "kind", json_string("rope-compat"));
        json_object_set_new(data, "target", json_string(patch->target));
        if (partial_rotary)
            json_object_set_new(data, "partial_rotary_factor", json_string(partial));
        if (interleaved)
            json_object_set_new(data, "mrope_interleaved", json_true());
        unsigned line, col;
        const char *path = pg_patch_site(patch, p->config_path, &line, &col);
        findings_add(out, "rope-compat", SEV_ERROR, p->config, path, line, col, data,
                     "`%s` is replaced by a full-head rotary, but the model's configuration "
                     "defaults to %s at %s",
                     patch->target,
                     partial_rotary ? "partial rotary (partial_rotary_factor < 1)"
                                    : "interleaved mrope",
                     p->tag_b);
    }
}
