/*
 * unpackers.c - where upstream's own code at B unpacks what a method returns
 * (unpackers.h).
 */
#include "checks/unpackers.h"

#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "py/pynode.h"

/* How deep the walk of one method's body goes (a hostile module's nesting). */
#define UNPACK_DEPTH 64

typedef struct ufind {
    const py_tree *t;
    const char *attr; /* `self.<attr>(...)` */
    size_t n;         /* what the patch returns */
    unsigned line;    /* the first site found: its line, and how many it unpacks */
    size_t count;
} ufind;

/* The number of targets of `a, b, c = ...` (a pattern list or a bracketed one); 0
 * when a target is starred (it takes any number) or the left side is one name. */
static size_t targets(TSNode left)
{
    if (!py_is(left, "pattern_list") && !py_is(left, "tuple_pattern") &&
        !py_is(left, "list_pattern"))
        return 0;
    uint32_t k = ts_node_named_child_count(left);
    for (uint32_t i = 0; i < k; i++)
        if (py_is(ts_node_named_child(left, i), "list_splat_pattern"))
            return 0;
    return k;
}

/* `self.<attr>(...)` */
static int calls_attr(const py_tree *t, TSNode right, const char *attr)
{
    if (!py_is(right, "call"))
        return 0;
    TSNode fn = py_field(right, "function");
    if (!py_is(fn, "attribute"))
        return 0;
    TSNode obj = py_field(fn, "object"), name = py_field(fn, "attribute");
    size_t on, nn;
    const char *o = py_text(t, obj, &on), *a = py_text(t, name, &nn);
    return py_is(obj, "identifier") && on == 4 && !memcmp(o, "self", 4) && nn == strlen(attr) &&
           !memcmp(a, attr, nn);
}

static void walk(ufind *f, TSNode n, unsigned depth)
{
    if (f->line || depth > UNPACK_DEPTH)
        return;
    if (py_is(n, "function_definition") || py_is(n, "class_definition") || py_is(n, "lambda"))
        return; /* another scope: its `self` is not the method's */
    if (py_is(n, "assignment")) {
        TSNode left = py_field(n, "left"), right = py_field(n, "right");
        size_t k = ts_node_is_null(left) ? 0 : targets(left);
        if (k && k != f->n && !ts_node_is_null(right) && calls_attr(f->t, right, f->attr)) {
            f->line = ts_node_start_point(n).row + 1;
            f->count = k;
            return;
        }
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k && !f->line; i++)
        walk(f, ts_node_named_child(n, i), depth + 1);
}

/* The first unpacking of `self.<attr>(...)` into another number than n in method
 * m of module B: its line and count in *f. */
static void search_method(const survey_pair *p, const index_def *m, ufind *f)
{
    py_tree t;
    if (m->kind != INDEX_FUNCTION || survey_def_tree(p, p->src_b, p->src_b_len, m, &t) < 0) {
        pgci_error_clear();
        return;
    }
    TSNode def;
    if (pynode_function_at(&t, m->start_byte, &def) == 0) {
        f->t = &t;
        TSNode body = py_field(def, "body");
        if (!ts_node_is_null(body))
            walk(f, body, 0);
        f->t = NULL;
    }
    survey_tree_release(p, &t);
}

/* What class cls's method `method` is called through in class d at B: the
 * attribute d's `__init__` assigns an instance of cls to (`self.gate = Router(c)`,
 * `self.indexer = None if c.skip else Indexer(c)`) for `forward`, or the method
 * itself on cls; NULL when d does not call it so. */
static char *through(const survey_pair *p, const index_def *d, const char *cls, const char *method)
{
    if (strcmp(method, "forward"))
        return !strcmp(d->name, cls) ? pgci_strdup(method) : NULL;
    for (size_t i = 0; i < d->n_init_attrs; i++) {
        char *made = callees_class_made(p->b, p->src_b, p->src_b_len, d->name, d->init_attrs[i], 1);
        int hit = made && !strcmp(made, cls);
        free(made);
        if (hit)
            return pgci_strdup(d->init_attrs[i]);
    }
    return NULL;
}

int unpackers_callers_in_module(const survey_pair *p, const char *cls, const char *method)
{
    if (!p->b || !p->src_b)
        return 0;
    if (strcmp(method, "forward"))
        return method[0] == '_' && method[1] != '_';
    for (size_t i = 0; i < p->b->n_defs; i++) {
        const index_def *d = p->b->defs[i];
        if (d->kind != INDEX_CLASS || d->parent || d->conditional)
            continue;
        char *attr = through(p, d, cls, method);
        free(attr);
        if (attr)
            return 1;
    }
    return 0;
}

int unpackers_find(const survey_pair *p, const char *cls, const char *method, size_t n,
                   unpack_site *site)
{
    memset(site, 0, sizeof(*site));
    if (!p->b || !p->src_b || !p->cfg || !n)
        return 0;
    for (size_t i = 0; i < p->b->n_defs; i++) {
        const index_def *d = p->b->defs[i];
        if (d->kind != INDEX_CLASS || d->parent || d->conditional)
            continue;
        char *attr = through(p, d, cls, method);
        for (size_t j = 0; attr && j < d->n_members; j++) {
            const index_def *m = d->members[j];
            if (callees_config_defines(p->cfg, d->name, m->name))
                continue; /* the config's code runs there, not B's */
            ufind f = {NULL, attr, n, 0, 0};
            search_method(p, m, &f);
            if (f.line) {
                site->where = pgci_asprintf("%s.%s", d->name, m->name);
                site->call = pgci_asprintf("self.%s(...)", attr);
                site->line = f.line;
                site->count = f.count;
                free(attr);
                return 1;
            }
        }
        free(attr);
    }
    return 0;
}

void unpack_site_free(unpack_site *s)
{
    free(s->where);
    free(s->call);
    memset(s, 0, sizeof(*s));
}
