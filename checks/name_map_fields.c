/*
 * name-map-fields: a body reused through name_map that builds an output
 * dataclass. name_map renames `Qwen3...` to `Qwen3Moe...` as plain text, so a dense
 * forward reused for a MoE model builds the MoE output class with only the dense
 * fields: `router_logits` and `aux_loss` silently stay None. We look up the
 * renamed dataclass in the target module at tag B, take its fields (annotated
 * class-level assignments), and report those the call does not pass and the
 * original dataclass did not have.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/contracts.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/vec.h"
#include "patchgen/codegen_source.h"
#include "py/py.h"
#include "py/pynode.h"

/* Applies the name map as patchgen does (codegen_source.h). */
static char *apply_name_map(const pg_patch *p, const char *s)
{
    strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, s);
    cgsrc_apply_name_map(&sb, p->name_map, p->name_map_len);
    return strbuf_detach(&sb, NULL);
}

const strvec *name_map_loads(const pg_patch *patch, const strvec *loads, strvec *own)
{
    *own = (strvec)STRVEC_INIT;
    if (!patch || !patch->name_map_len)
        return loads;
    for (size_t i = 0; i < loads->len; i++) {
        char *m = apply_name_map(patch, loads->items[i]);
        if (strvec_find(own, m) < 0)
            strvec_push_owned(own, m);
        else
            free(m);
    }
    return own;
}

static void fields_of(const index_def *cls, strvec *out)
{
    for (size_t i = 0; cls && i < cls->n_attrs; i++)
        if (cls->attrs[i].annotation)
            strvec_push(out, cls->attrs[i].name);
}

/* name's class where the generated code runs: tag B (A only when the survey has no
 * B module). A renamed class B no longer has is no dataclass to fill: the body's
 * use of a name upstream removed is callees' name-removed. */
static const index_def *find_class(const survey_pair *p, const char *name)
{
    const index_module *m = p->b ? p->b : p->a;
    const index_def *d = m ? index_find(m, name) : NULL;
    return d && d->kind == INDEX_CLASS ? d : NULL;
}

/* Collects the keyword arguments of every call to `cls` in the upstream body of
 * `target` at tag B; returns 1 when that body builds `cls` at all. */
static int upstream_kwargs(const survey_pair *p, const char *target, const char *cls, strvec *out)
{
    const index_def *d = p->b ? index_find(p->b, target) : NULL;
    py_tree t;
    TSNode def;
    if (!d || survey_def_tree(p, p->src_b, p->src_b_len, d, &t) < 0) {
        pgci_error_clear();
        return 0;
    }
    if (pynode_function_at(&t, d->start_byte, &def) < 0) {
        survey_tree_release(p, &t);
        pgci_error_clear();
        return 0;
    }
    int builds = 0;
    VEC(TSNode) stack = VEC_INIT;
    VEC_PUSH(&stack, def);
    while (stack.len) {
        TSNode n = stack.items[--stack.len];
        if (py_is(n, "call")) {
            TSNode f = py_field(n, "function");
            if (py_is(f, "attribute"))
                f = py_field(f, "attribute");
            if (py_is(f, "identifier") && py_text_eq(&t, f, cls)) {
                builds = 1;
                TSNode args = py_field(n, "arguments");
                uint32_t k = ts_node_named_child_count(args);
                for (uint32_t i = 0; i < k; i++) {
                    TSNode a = ts_node_named_child(args, i);
                    if (py_is(a, "keyword_argument"))
                        strvec_push_owned(out, py_text_dup(&t, py_field(a, "name")));
                }
            }
        }
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++)
            VEC_PUSH(&stack, ts_node_named_child(n, i));
    }
    VEC_FREE(&stack);
    survey_tree_release(p, &t);
    return builds;
}

static void check_call(findings *out, const survey_pair *p, const pg_patch *patch, const py_tree *t,
                       TSNode call)
{
    TSNode f = py_field(call, "function");
    if (py_is(f, "attribute"))
        f = py_field(f, "attribute");
    if (!py_is(f, "identifier"))
        return;
    char *orig = py_text_dup(t, f);
    if (!strstr(orig, "Output")) {
        free(orig);
        return;
    }
    char *renamed = apply_name_map(patch, orig);
    const index_def *cls = strcmp(orig, renamed) ? find_class(p, renamed) : NULL;
    if (!cls) {
        free(orig);
        free(renamed);
        return;
    }
    strvec have = STRVEC_INIT, old = STRVEC_INIT, passed = STRVEC_INIT;
    fields_of(cls, &have);
    /* the original class as the target module has it; the body's own module (a
     * sibling config's model) is not read, so an original absent here is not
     * said to lack anything */
    const index_def *orig_cls = find_class(p, orig);
    fields_of(orig_cls, &old);
    TSNode args = py_field(call, "arguments");
    uint32_t k = ts_node_named_child_count(args);
    int splat = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (py_is(a, "keyword_argument")) {
            char *name = py_text_dup(t, py_field(a, "name"));
            strvec_push_owned(&passed, name);
        } else if (py_is(a, "dictionary_splat")) {
            splat = 1;
        }
    }
    /* What upstream's own implementation of the target passes to the same class:
     * a field it leaves out too is filled another way (a decorator such as
     * @capture_outputs collects router_logits), so its absence is no defect. */
    strvec upstream_passes = STRVEC_INIT;
    int upstream_builds = upstream_kwargs(p, patch->target, renamed, &upstream_passes);
    strbuf missing = STRBUF_INIT;
    for (size_t i = 0; !splat && i < have.len; i++)
        if (strvec_find(&passed, have.items[i]) < 0 && strvec_find(&old, have.items[i]) < 0 &&
            (!upstream_builds || strvec_find(&upstream_passes, have.items[i]) >= 0))
            strbuf_addf(&missing, "%s`%s`", missing.len ? ", " : "", have.items[i]);
    strvec_free(&upstream_passes);
    if (missing.len) {
        json_t *data = json_object();
        json_object_set_new(data, "kind", json_string("name-map-fields"));
        json_object_set_new(data, "target", json_string(patch->target));
        json_object_set_new(data, "dataclass", json_string(renamed));
        json_object_set_new(data, "original", json_string(orig));
        unsigned line, col;
        const char *path = pg_patch_site(patch, p->config_path, &line, &col);
        findings_add(out, "name-map-fields", SEV_WARNING, p->config, path, line, col, data,
                     "`%s` (reused through name_map) builds `%s` without %s, which `%s` has%s%s%s: "
                     "they stay None",
                     patch->target, renamed, missing.buf, renamed, orig_cls ? " and `" : "",
                     orig_cls ? orig : "", orig_cls ? "` lacks" : "");
    }
    strbuf_free(&missing);
    strvec_free(&have);
    strvec_free(&old);
    strvec_free(&passed);
    free(orig);
    free(renamed);
}

void check_name_map_fields(findings *out, const survey_pair *p)
{
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *patch = &p->cfg->patches.items[i];
        if (!patch->name_map_len || !patch->replacement)
            continue;
        char *text = signatures_object_text(patch->replacement);
        if (!text)
            continue;
        survey_view v;
        if (survey_object_tree(p, patch->replacement, text, strlen(text), &v) == 0) {
            const py_tree t = v.t;
            VEC(TSNode) stack = VEC_INIT;
            for (size_t s = 0; s < v.n; s++)
                VEC_PUSH(&stack, v.stmts[s]);
            while (stack.len) {
                TSNode n = stack.items[--stack.len];
                if (py_is(n, "call"))
                    check_call(out, p, patch, &t, n);
                uint32_t k = ts_node_named_child_count(n);
                for (uint32_t c = 0; c < k; c++)
                    VEC_PUSH(&stack, ts_node_named_child(n, c));
            }
            VEC_FREE(&stack);
            survey_object_tree_release(p, &v);
        } else {
            pgci_error_clear();
        }
        free(text);
    }
}
