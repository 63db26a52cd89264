/*
 * Inherited behaviour keyed on the class's module. The base classes live in
 * transformers.modeling_utils, which the survey indexes at both tags beside the
 * configs' modules; a class reaches them through its bases in its own module
 * (Qwen3MoeForCausalLM -> Qwen3MoePreTrainedModel -> PreTrainedModel).
 */
#include "checks/inherited.h"

#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/signatures.h"
#include "core/error.h"
#include "core/vec.h"
#include "patchgen/codegen_text.h"

/* The bases of cls (through its module) that base_mod defines, into out. */
static void external_walk(strvec *out, const index_module *m, const index_module *base_mod,
                          const char *cls, int depth, callees_walk *w)
{
    const index_def *c = depth < 12 ? index_find(m, cls) : NULL;
    if (c && !callees_walk_first(w, c))
        return;
    for (size_t i = 0; c && i < c->n_bases; i++) {
        const char *b = c->bases[i];
        const char *dot = strrchr(b, '.');
        char *name = pgci_strndup(dot ? dot + 1 : b, strcspn(dot ? dot + 1 : b, "[( ="));
        if (index_find(m, name) && strcmp(name, cls))
            external_walk(out, m, base_mod, name, depth + 1, w);
        else if (index_find(base_mod, name) && strvec_find(out, name) < 0)
            strvec_push(out, name);
        free(name);
    }
}

static void external_bases(strvec *out, const index_module *m, const index_module *base_mod,
                           const char *cls)
{
    callees_walk w = {.n = 0};
    external_walk(out, m, base_mod, cls, 0, &w);
}

char *inherited_from(const index_module *m, const index_module *base_mod, const char *cls,
                     const char *method)
{
    strvec bases = STRVEC_INIT;
    external_bases(&bases, m, base_mod, cls);
    char *from = NULL;
    for (size_t i = 0; !from && i < bases.len; i++) {
        const index_def *d = callees_resolve(base_mod, bases.items[i], method);
        if (d && d->kind == INDEX_FUNCTION && d->parent)
            from = pgci_strdup(d->parent->qualname);
    }
    strvec_free(&bases);
    return from;
}

/* 1 when def's text reads the class's module against "transformers". */
static int keys_on_module(const char *src, size_t len, const index_def *d)
{
    if (!src || !d || d->end_byte > len || d->start_byte >= d->end_byte)
        return 0;
    size_t n = d->end_byte - d->start_byte;
    const char *t = src + d->start_byte;
    return memmem(t, n, "__module__", 10) && memmem(t, n, "transformers", 12);
}

static void report(findings *out, const survey_pair *p, const char *cls, const char *base,
                   const index_def *mb, strvec *seen)
{
    if (strvec_find(seen, mb->qualname) >= 0)
        return;
    strvec_push(seen, mb->qualname);
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string("inherited-module-keyed"));
    json_object_set_new(data, "target", json_string(mb->qualname));
    json_object_set_new(data, "class", json_string(cls));
    json_object_set_new(data, "base", json_string(base));
    json_object_set_new(data, "module", json_string("transformers.modeling_utils"));
    survey_site site = signatures_class_site(p, cls);
    finding *f = findings_add(
        out, "inherited", SEV_WARNING, p->config, site.path, site.line, site.col, data,
        "`%s` inherits `%s`, which now tells classes by their module at %s: the generated "
        "class lives outside `transformers.`",
        cls, mb->qualname, p->tag_b);
    if (f && mb->end_byte <= p->base_src_b_len) {
        /* from its line's start, dedented: a method's decorator and def line up */
        size_t from = mb->start_byte;
        while (from > 0 && strchr(" \t", p->base_src_b[from - 1]))
            from--;
        strbuf text = STRBUF_INIT;
        cgtext_dedent(&text, p->base_src_b + from, mb->end_byte - from);
        finding_set_detail(f, text.buf);
        strbuf_free(&text);
    }
}

void check_inherited(findings *out, const survey_pair *p)
{
    if (!p->a || !p->b || !p->base_a || !p->base_b)
        return;
    strvec seen = STRVEC_INIT, classes = STRVEC_INIT;
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const char *t = p->cfg->patches.items[i].target;
        const char *dot = strchr(t, '.');
        char *cls = dot ? pgci_strndup(t, (size_t)(dot - t)) : pgci_strdup(t);
        const index_def *d = index_find(p->b, cls);
        if (d && d->kind == INDEX_CLASS && strvec_find(&classes, cls) < 0)
            strvec_push(&classes, cls);
        free(cls);
    }
    for (size_t k = 0; k < classes.len; k++) {
        strvec bases = STRVEC_INIT;
        external_bases(&bases, p->b, p->base_b, classes.items[k]);
        for (size_t j = 0; j < bases.len; j++) {
            const index_def *cb = index_find(p->base_b, bases.items[j]);
            for (size_t m = 0; cb && m < cb->n_members; m++) {
                const index_def *mb = cb->members[m];
                const index_def *ma = index_find(p->base_a, mb->qualname);
                if (keys_on_module(p->base_src_b, p->base_src_b_len, mb) &&
                    !keys_on_module(p->base_src_a, p->base_src_a_len, ma))
                    report(out, p, classes.items[k], bases.items[j], mb, &seen);
            }
        }
        strvec_free(&bases);
    }
    strvec_free(&classes);
    strvec_free(&seen);
}
