/*
 * Two passes over a patch body's syntax tree: the first collects every name the
 * body binds (parameters, assignment and loop targets, imports, nested defs,
 * `as` names, comprehension variables), the second every name it reads that is
 * not one of those, and every `self.m(...)` / `cls.m(...)` call with its shape.
 */
#include "checks/body_uses.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "py/py.h"

static void push_unique(strvec *v, const py_tree *t, TSNode n)
{
    char *s = py_text_dup(t, n);
    if (strvec_find(v, s) < 0)
        strvec_push_owned(v, s);
    else
        free(s);
}

/* Every identifier under n that a binding construct binds: the node itself or the
 * names of a tuple/list pattern, never the parts of an attribute or subscript. */
static void bind_target(strvec *bound, const py_tree *t, TSNode n)
{
    if (ts_node_is_null(n))
        return;
    if (py_is(n, "identifier")) {
        push_unique(bound, t, n);
        return;
    }
    if (py_is(n, "attribute") || py_is(n, "subscript"))
        return;
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        bind_target(bound, t, ts_node_named_child(n, i));
}

/* The names of a parameter list, not its annotations or defaults. */
static void bind_params(strvec *bound, const py_tree *t, TSNode params)
{
    uint32_t k = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k; i++) {
        TSNode q = ts_node_named_child(params, i);
        TSNode name = py_field(q, "name");
        if (py_is(q, "identifier"))
            push_unique(bound, t, q);
        else if (!ts_node_is_null(name))
            bind_target(bound, t, name); /* default_parameter, typed_default_parameter */
        else if (ts_node_named_child_count(q))
            bind_target(bound, t, ts_node_named_child(q, 0)); /* typed, *args, **kw */
    }
}

static void collect_bound(strvec *bound, const py_tree *t, TSNode n)
{
    const char *ty = ts_node_type(n);
    if (!strcmp(ty, "function_definition") || !strcmp(ty, "class_definition"))
        bind_target(bound, t, py_field(n, "name"));
    else if (!strcmp(ty, "parameters") || !strcmp(ty, "lambda_parameters"))
        bind_params(bound, t, n);
    else if (!strcmp(ty, "assignment") || !strcmp(ty, "augmented_assignment") ||
             !strcmp(ty, "for_statement") || !strcmp(ty, "for_in_clause"))
        bind_target(bound, t, py_field(n, "left"));
    else if (!strcmp(ty, "as_pattern"))
        bind_target(bound, t, py_field(n, "alias"));
    else if (!strcmp(ty, "named_expression"))
        bind_target(bound, t, py_field(n, "name"));
    else if (!strcmp(ty, "import_statement") || !strcmp(ty, "import_from_statement") ||
             !strcmp(ty, "global_statement") || !strcmp(ty, "nonlocal_statement"))
        bind_target(bound, t, n);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        collect_bound(bound, t, ts_node_named_child(n, i));
}

/* 1 when identifier n, a child of p (null at the root), is read as a name (not an
 * attribute, keyword or decorator argument name, not a definition's own name). The
 * walk hands the parent down: ts_node_parent walks from the root, once per node. */
static int is_load(TSNode n, TSNode p)
{
    if (ts_node_is_null(p))
        return 1;
    const char *pt = ts_node_type(p);
    if (!strcmp(pt, "attribute"))
        return !ts_node_eq(py_field(p, "attribute"), n);
    if (!strcmp(pt, "keyword_argument"))
        return !ts_node_eq(py_field(p, "name"), n);
    return strcmp(pt, "function_definition") && strcmp(pt, "class_definition") &&
           strcmp(pt, "dotted_name") && strcmp(pt, "aliased_import");
}

static void read_call(body_uses *u, const py_tree *t, TSNode call, TSNode p, TSNode fn)
{
    body_call c;
    memset(&c, 0, sizeof(c));
    c.method = py_text_dup(t, py_field(fn, "attribute"));
    c.line = py_line(call);
    TSNode args = py_field(call, "arguments");
    uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (py_is(a, "keyword_argument"))
            strvec_push_owned(&c.keywords, py_text_dup(t, py_field(a, "name")));
        else if (py_is(a, "list_splat") || py_is(a, "dictionary_splat"))
            c.star_args = 1;
        else if (!py_is(a, "comment"))
            c.n_positional++;
    }
    if (!ts_node_is_null(p) && (py_is(p, "attribute") || py_is(p, "subscript")))
        c.result_used = 1;
    if (!ts_node_is_null(p) && py_is(p, "assignment") && ts_node_eq(py_field(p, "right"), call)) {
        TSNode left = py_field(p, "left");
        c.result_used = 1;
        if (py_is(left, "pattern_list") || py_is(left, "tuple_pattern"))
            c.unpacked = (int)ts_node_named_child_count(left);
    }
    u->calls = pgci_realloc(u->calls, (u->n_calls + 1) * sizeof(*u->calls));
    u->calls[u->n_calls++] = c;
}

static void collect_uses(body_uses *u, const strvec *bound, const py_tree *t, TSNode n,
                         TSNode parent)
{
    if (py_is(n, "identifier")) {
        if (is_load(n, parent)) {
            char *s = py_text_dup(t, n);
            if (strvec_find(bound, s) < 0 && strvec_find(&u->loads, s) < 0)
                strvec_push_owned(&u->loads, s);
            else
                free(s);
        }
        return;
    }
    if (py_is(n, "call")) {
        TSNode fn = py_field(n, "function");
        if (py_is(fn, "attribute")) {
            TSNode obj = py_field(fn, "object");
            if (py_is(obj, "identifier") &&
                (py_text_eq(t, obj, "self") || py_text_eq(t, obj, "cls")))
                read_call(u, t, n, parent, fn);
        }
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        collect_uses(u, bound, t, ts_node_named_child(n, i), n);
}

void body_uses_of_tree(body_uses *out, const py_tree *t)
{
    memset(out, 0, sizeof(*out));
    strvec bound = STRVEC_INIT;
    TSNode root = py_root(t);
    collect_bound(&bound, t, root);
    /* the registering decorators (`@config.override_method(...)`) are the config's,
     * not the body's: skip the top-level definitions' decorators */
    uint32_t k = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < k; i++) {
        TSNode n = ts_node_named_child(root, i), parent = root;
        if (py_is(n, "decorated_definition")) {
            parent = n;
            n = py_field(n, "definition");
        }
        if (!ts_node_is_null(n))
            collect_uses(out, &bound, t, n, parent);
    }
    strvec_free(&bound);
}

int body_uses_read(body_uses *out, const char *text, size_t len)
{
    memset(out, 0, sizeof(*out));
    py_tree t;
    int r = py_parse(&t, text, len, "<patch>");
    if (r < 0)
        return r;
    body_uses_of_tree(out, &t);
    py_tree_free(&t);
    return 0;
}

void body_uses_free(body_uses *u)
{
    for (size_t i = 0; i < u->n_calls; i++) {
        free(u->calls[i].method);
        strvec_free(&u->calls[i].keywords);
    }
    free(u->calls);
    strvec_free(&u->loads);
    memset(u, 0, sizeof(*u));
}
