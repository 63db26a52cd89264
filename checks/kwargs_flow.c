/*
 * The calls that pass a definition's `**kwargs` on (kwargs_flow.h). Any other
 * mention of the name in the body - a read, a `pop`, a rebinding, a use in a
 * nested function or a lambda - makes the flow unknown: the reader says so and
 * the caller claims nothing.
 */
#include "checks/kwargs_flow.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/pynode.h"

/* The name of the parameters' `**name`; NULL when there is none. */
static char *var_keyword(const py_tree *t, TSNode params)
{
    uint32_t k = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k; i++) {
        TSNode q = ts_node_named_child(params, i);
        if (py_is(q, "dictionary_splat_pattern") && ts_node_named_child_count(q) == 1 &&
            py_is(ts_node_named_child(q, 0), "identifier") &&
            pynode_is_real(ts_node_named_child(q, 0)))
            return py_text_dup(t, ts_node_named_child(q, 0));
    }
    return NULL;
}

/* `**name` as an argument of a call: the call; a null node otherwise. */
static TSNode splatting_call(TSNode id)
{
    TSNode splat = ts_node_parent(id), null = {0};
    if (ts_node_is_null(splat) || !py_is(splat, "dictionary_splat"))
        return null;
    TSNode args = ts_node_parent(splat);
    if (ts_node_is_null(args) || !py_is(args, "argument_list"))
        return null;
    TSNode call = ts_node_parent(args);
    return !ts_node_is_null(call) && py_is(call, "call") &&
                   pynode_is_real(py_field(call, "function"))
               ? call
               : null;
}

static void add_splat(kw_flow *f, const py_tree *t, TSNode call)
{
    f->splats = pgci_realloc(f->splats, (f->n + 1) * sizeof(*f->splats));
    kw_splat *s = &f->splats[f->n++];
    memset(s, 0, sizeof(*s));
    s->callee = py_text_dup(t, py_field(call, "function"));
    s->line = py_line(call);
    TSNode args = py_field(call, "arguments");
    uint32_t k = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (py_is(a, "keyword_argument") && pynode_is_real(py_field(a, "name")))
            strvec_push_owned(&s->keywords, py_text_dup(t, py_field(a, "name")));
    }
}

static void walk(kw_flow *f, const py_tree *t, TSNode n, int nested)
{
    if (py_is(n, "identifier") && py_text_eq(t, n, f->param)) {
        TSNode call = splatting_call(n);
        if (nested || ts_node_is_null(call))
            f->other_use = 1;
        else
            add_splat(f, t, call);
        return;
    }
    int inner = nested || py_is(n, "function_definition") || py_is(n, "lambda") ||
                py_is(n, "class_definition");
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k && !f->other_use; i++)
        walk(f, t, ts_node_named_child(n, i), inner);
}

int kw_flow_read(kw_flow *f, const py_tree *t, unsigned at)
{
    memset(f, 0, sizeof(*f));
    TSNode def;
    if (pynode_function_at(t, at, &def) < 0)
        return -1;
    f->param = var_keyword(t, py_field(def, "parameters"));
    TSNode body = py_field(def, "body");
    if (f->param && !ts_node_is_null(body))
        walk(f, t, body, 0);
    return 0;
}

void kw_flow_free(kw_flow *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->splats[i].callee);
        strvec_free(&f->splats[i].keywords);
    }
    free(f->splats);
    free(f->param);
    memset(f, 0, sizeof(*f));
}

static void reads_of(strvec *out, const py_tree *t, TSNode n, const char *self, int depth)
{
    if (depth > 200 || py_is(n, "function_definition") || py_is(n, "lambda") ||
        py_is(n, "class_definition"))
        return;
    if (py_is(n, "attribute")) {
        TSNode obj = py_field(n, "object"), attr = py_field(n, "attribute");
        if (py_is(obj, "identifier") && py_text_eq(t, obj, self) && pynode_is_real(attr)) {
            char *a = py_text_dup(t, attr);
            if (strvec_find(out, a) < 0)
                strvec_push_owned(out, a);
            else
                free(a);
        }
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        reads_of(out, t, ts_node_named_child(n, i), self, depth + 1);
}

int self_reads(strvec *out, const py_tree *t, unsigned at)
{
    TSNode def;
    if (pynode_function_at(t, at, &def) < 0)
        return -1;
    TSNode params = py_field(def, "parameters"), body = py_field(def, "body");
    TSNode first = ts_node_is_null(params) || !ts_node_named_child_count(params)
                       ? (TSNode){0}
                       : ts_node_named_child(params, 0);
    if (ts_node_is_null(first) || !py_is(first, "identifier") || !pynode_is_real(first) ||
        ts_node_is_null(body))
        return 0;
    char *self = py_text_dup(t, first);
    reads_of(out, t, body, self, 0);
    free(self);
    return 0;
}
