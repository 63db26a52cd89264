/*
 * config_api.c - patchgen's PatchConfig API, re-implemented over static values:
 * PatchConfig(...), its registration methods and decorators, the list fields'
 * extend/append/update, create_patch_from_external(...) and PatchType.
 *
 * Each method mirrors veomni/patchgen/patch_spec.py (0.1.11): the same parameter
 * names and order, the same `description or <default>` rule, the same
 * Patch.source_module (the replacement's __module__; None for modify_init).
 * pgci is stricter in one way: values that would make a broken generated file (a
 * target that is not a dotted name, an empty name_map key, a target_file leaving
 * its directory) are errors here instead of surprises later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/config_internal.h"

/* --- fields ------------------------------------------------------------------- */

static const char *const field_names[] = {
    [CF_PATCHES] = "patches",
    [CF_ADDITIONAL_IMPORTS] = "additional_imports",
    [CF_POST_IMPORT_BLOCKS] = "post_import_blocks",
    [CF_HELPERS] = "helpers",
    [CF_POSITIONED_HELPERS] = "positioned_helpers",
    [CF_DROP_IMPORTED_NAMES] = "drop_imported_names",
    [CF_EXCLUDE] = "exclude",
    [CF_SOURCE_MODULE] = "source_module",
    [CF_TARGET_FILE] = "target_file",
    [CF_DESCRIPTION] = "description",
    [CF_TRANSFORMERS_VERSION] = "transformers_version",
};

ce_field ce_field_from_name(const char *name)
{
    for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
        if (!strcmp(field_names[i], name))
            return (ce_field)i;
    return CF_NONE;
}

const char *ce_field_name(ce_field f)
{
    return f >= 0 && (size_t)f < sizeof(field_names) / sizeof(field_names[0]) ? field_names[f]
                                                                              : "?";
}

/* --- argument binding ------------------------------------------------------------ */

#define CE_MAX_PARAMS 12

typedef struct ce_args {
    ce_value *val[CE_MAX_PARAMS]; /* NULL: not passed */
    TSNode node[CE_MAX_PARAMS];
    ce_value **rest; /* *args, when the signature has them */
    TSNode *rest_node;
    size_t nrest;
} ce_args;

/* Adds one value to a->rest, growing it (arena memory: the old array is dropped). */
static void rest_push(ce_ctx *c, ce_args *a, size_t *cap, ce_value *v, TSNode n)
{
    if (a->nrest == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        ce_value **nr = arena_alloc(&c->ev->mem, nc * sizeof(ce_value *));
        TSNode *nn = arena_alloc(&c->ev->mem, nc * sizeof(TSNode));
        if (a->nrest) {
            memcpy(nr, a->rest, a->nrest * sizeof(ce_value *));
            memcpy(nn, a->rest_node, a->nrest * sizeof(TSNode));
        }
        a->rest = nr, a->rest_node = nn, *cap = nc;
    }
    a->rest[a->nrest] = v;
    a->rest_node[a->nrest++] = n;
}

static int bind_keyword(ce_ctx *c, TSNode arg, const char *fname, const char *const *params,
                        ce_args *a)
{
    char *name = py_text_dup(c->t, py_field(arg, "name"));
    size_t j = 0;
    while (params[j] && strcmp(params[j], name))
        j++;
    int bad = !params[j], dup = !bad && a->val[j];
    free(name);
    if (bad)
        return ce_unsupported(c, arg, "not a parameter of this patchgen call");
    if (dup)
        return ce_error_at(c, arg, PGCI_EINVALID, "%s() got multiple values for one argument",
                           fname);
    a->node[j] = py_field(arg, "value");
    return ce_eval(c, a->node[j], &a->val[j]);
}

/* Binds a call's arguments to `params` (NULL-terminated) the way Python would; with
 * `varargs`, positional arguments (and `*x` splats of constant sequences) go to
 * rest instead. */
static int bind_args(ce_ctx *c, TSNode call, const char *fname, const char *const *params,
                     int varargs, ce_args *a)
{
    memset(a, 0, sizeof(*a));
    TSNode args = py_field(call, "arguments");
    size_t nparams = 0, npos = 0, cap = 0;
    while (params[nparams])
        nparams++;
    if (py_is(args, "generator_expression")) {
        /* f(x for x in y): one positional argument */
        if (varargs || !nparams)
            return ce_unsupported(c, args, NULL);
        a->node[0] = args;
        return ce_eval(c, args, &a->val[0]);
    }
    ce_iter iter;
    TSNode arg;
    int r = 0;
    ce_iter_init(&iter, args);
    while (r == 0 && ce_iter_next(&iter, &arg)) {
        ce_value *v;
        if (py_is(arg, "keyword_argument")) {
            r = bind_keyword(c, arg, fname, params, a);
        } else if (py_is(arg, "list_splat") && varargs) {
            r = ce_eval(c, ce_named_child(arg, 0), &v);
            if (r == 0 && v->kind != CE_LIST && v->kind != CE_TUPLE)
                r = ce_unsupported(c, arg, "`*` needs a constant list or tuple");
            for (size_t j = 0; r == 0 && j < v->u.seq.len; j++)
                rest_push(c, a, &cap, v->u.seq.items[j], arg);
        } else if (py_is(arg, "list_splat") || py_is(arg, "dictionary_splat")) {
            r = ce_unsupported(c, arg, "argument unpacking into a patchgen call");
        } else if (varargs) {
            r = ce_eval(c, arg, &v);
            if (r == 0)
                rest_push(c, a, &cap, v, arg);
        } else if (npos >= nparams) {
            r = ce_error_at(c, arg, PGCI_EINVALID, "%s() takes %zu positional arguments", fname,
                            nparams);
        } else if (a->val[npos]) {
            r = ce_error_at(c, arg, PGCI_EINVALID, "%s() got multiple values for one argument",
                            fname);
        } else {
            a->node[npos] = arg;
            r = ce_eval(c, arg, &a->val[npos++]);
        }
    }
    ce_iter_done(&iter);
    return r;
}

static int passed(const ce_args *a, int i)
{
    return a->val[i] && a->val[i]->kind != CE_NONE;
}

/* A string argument (NUL-free); `what` names it in the message. */
static int need_str(ce_ctx *c, ce_value *v, TSNode n, const char *what, const char **out)
{
    if (!v || v->kind != CE_STR) {
        char why[128];
        snprintf(why, sizeof(why), "%s must be a constant string", what);
        return ce_unsupported(c, n, why);
    }
    if (memchr(v->u.str.s, '\0', v->u.str.len))
        return ce_error_at(c, n, PGCI_EINVALID, "%s contains a NUL character", what);
    *out = v->u.str.s;
    return 0;
}

static int is_name_byte(unsigned char ch, int first)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch >= 0x80 ||
           (!first && ch >= '0' && ch <= '9');
}

/* 1 when s is a Python name, or with `dotted` a dotted one ("A.b.c"). */
static int is_dotted_name(const char *s, int dotted)
{
    int first = 1;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s == '.' && dotted && !first) {
            first = 1;
            continue;
        }
        if (!is_name_byte((unsigned char)*s, first))
            return 0;
        first = 0;
    }
    return !first;
}

/* A string that must be a (dotted) Python name: targets, modules, imported names. */
static int need_name(ce_ctx *c, ce_value *v, TSNode n, const char *what, int dotted,
                     const char **out)
{
    int r = need_str(c, v, n, what, out);
    if (r < 0)
        return r;
    if (!is_dotted_name(*out, dotted)) {
        strbuf sb = STRBUF_INIT;
        ce_snippet(&sb, c, n);
        r = ce_error_at(c, n, PGCI_EINVALID, "invalid %s %s: not a %sPython name", what, sb.buf,
                        dotted ? "dotted " : "");
        strbuf_free(&sb);
    }
    return r;
}

static int need_object(ce_ctx *c, ce_value *v, TSNode n, const char *what, pg_object **out)
{
    if (!v || v->kind != CE_OBJECT) {
        char why[160];
        snprintf(why, sizeof(why), "the %s must be a def or class defined in a patch config", what);
        return ce_unsupported(c, n, why);
    }
    unsigned line;
    const char *deco = ce_object_wrapped(c->ev, v->u.obj, &line);
    if (deco) {
        char why[300];
        snprintf(why, sizeof(why),
                 "%s is wrapped by %.80s (line %u), a decorator pgci does not know: it may "
                 "return another object, whose source or __name__ patchgen reads instead",
                 v->u.obj->name, deco, line);
        return ce_unsupported(c, n, why);
    }
    *out = v->u.obj;
    return 0;
}

/* description: None or "" mean patchgen's default (it writes `description or ...`). */
static int optional_description(ce_ctx *c, ce_args *a, int i, const char **out)
{
    *out = NULL;
    if (!passed(a, i))
        return 0;
    const char *s = NULL;
    int r = need_str(c, a->val[i], a->node[i], "description", &s);
    if (r == 0 && *s)
        *out = s;
    return r;
}

static int optional_name_map(ce_ctx *c, ce_args *a, int i, pg_name_map_entry **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!passed(a, i))
        return 0;
    ce_value *v = a->val[i];
    if (v->kind != CE_DICT)
        return ce_unsupported(c, a->node[i], "name_map must be a constant dict of strings");
    size_t n = v->u.seq.len / 2;
    if (!n)
        return 0;
    pg_name_map_entry *m = arena_alloc(&c->ev->mem, n * sizeof(*m));
    for (size_t j = 0; j < n; j++) {
        int r = need_str(c, v->u.seq.items[2 * j], a->node[i], "a name_map key", &m[j].from);
        if (r == 0)
            r = need_str(c, v->u.seq.items[2 * j + 1], a->node[i], "a name_map value", &m[j].to);
        if (r < 0)
            return r;
        /* str.replace("", x) would insert x between every character of the source */
        if (!*m[j].from)
            return ce_error_at(c, a->node[i], PGCI_EINVALID,
                               "name_map has an empty key: it would rewrite every position of "
                               "the replacement's source");
    }
    *out = m;
    *len = n;
    return 0;
}

/* --- registration --------------------------------------------------------------- */

static int push_check(ce_ctx *c, TSNode n, size_t len, const char *what)
{
    if (len >= CE_MAX_ITEMS)
        return ce_error_at(c, n, PGCI_ELIMIT, "too many %s in one PatchConfig (limit %d)", what,
                           CE_MAX_ITEMS);
    return 0;
}

static int add_patch(ce_ctx *c, TSNode where, ce_config *cfg, pg_patch *p)
{
    int r = push_check(c, where, cfg->patches.len, "patches");
    if (r < 0)
        return r;
    p->reg_file = c->mod->rel_path;
    p->reg_line = py_line(where);
    p->reg_col = py_col(where);
    VEC_PUSH(&cfg->patches, p);
    return 0;
}

static const char *default_description(ce_ctx *c, ce_deco_op op, const char *target,
                                       const char *name)
{
    switch (op) {
    case CD_METHOD:
        return arena_printf(&c->ev->mem, "Override %s", target);
    case CD_INIT:
        return arena_printf(&c->ev->mem, "Modify %s.__init__", target);
    default:
        return arena_printf(&c->ev->mem, "Replace %s with %s", target, name);
    }
}

static int register_replacement(ce_ctx *c, TSNode where, const ce_value *d, pg_object *obj)
{
    static const pg_patch_type types[] = {
        [CD_CLASS] = PG_CLASS_REPLACEMENT,
        [CD_METHOD] = PG_METHOD_OVERRIDE,
        [CD_FUNCTION] = PG_FUNCTION_REPLACEMENT,
        [CD_INIT] = PG_INIT_MODIFICATION,
    };
    pg_patch *p = arena_alloc(&c->ev->mem, sizeof(*p));
    p->type = types[d->u.deco.op];
    p->target = d->u.deco.target;
    p->replacement = obj;
    /* modify_init builds its Patch without source_module */
    p->source_module = d->u.deco.op == CD_INIT ? NULL : obj->module;
    p->description = d->u.deco.description
                         ? d->u.deco.description
                         : default_description(c, d->u.deco.op, d->u.deco.target, obj->name);
    p->name_map = d->u.deco.name_map;
    p->name_map_len = d->u.deco.name_map_len;
    return add_patch(c, where, d->u.deco.cfg, p);
}

static int add_helper(ce_ctx *c, TSNode where, ce_config *cfg, pg_object *obj)
{
    int r = push_check(c, where, cfg->helpers.len, "helpers");
    if (r == 0)
        VEC_PUSH(&cfg->helpers, obj);
    return r;
}

static int add_helper_after(ce_ctx *c, TSNode where, ce_config *cfg, const char *target,
                            pg_object *obj)
{
    int r = push_check(c, where, cfg->positioned_helpers.len, "positioned helpers");
    if (r < 0)
        return r;
    pg_positioned_helper *h = arena_alloc(&c->ev->mem, sizeof(*h));
    h->target = target;
    h->helper = obj;
    h->placement = "after";
    h->reg_file = c->mod->rel_path;
    h->reg_line = py_line(where);
    h->reg_col = py_col(where);
    VEC_PUSH(&cfg->positioned_helpers, h);
    return 0;
}

static int add_str(ce_ctx *c, TSNode where, ce_config *cfg, ce_field f, const char *s)
{
    if (f == CF_DROP_IMPORTED_NAMES) {
        if (hashmap_has(&cfg->drop_set, s))
            return 0;
        int r = push_check(c, where, cfg->drop_imported_names.len, "dropped import names");
        if (r < 0)
            return r;
        hashmap_put(&cfg->drop_set, s, (void *)s);
        VEC_PUSH(&cfg->drop_imported_names, s);
        return 0;
    }
    if (f == CF_EXCLUDE) {
        int r = push_check(c, where, cfg->exclude.len, "excluded names");
        if (r == 0)
            VEC_PUSH(&cfg->exclude, s);
        return r;
    }
    int r = push_check(c, where, cfg->post_import_blocks.len, "post-import blocks");
    if (r == 0)
        VEC_PUSH(&cfg->post_import_blocks, s);
    return r;
}

/* --- PatchConfig methods ---------------------------------------------------------- */

static int method_replace(ce_ctx *c, TSNode call, ce_value *m, ce_deco_op op, ce_value **out)
{
    static const char *const p_class[] = {"target_class", "replacement", "name_map", "description",
                                          NULL};
    static const char *const p_method[] = {"target_method", "replacement", "name_map",
                                           "description", NULL};
    static const char *const p_func[] = {"target_func", "replacement", "name_map", "description",
                                         NULL};
    static const char *const p_init[] = {"target_class", "description", NULL};
    const char *const *params = op == CD_CLASS      ? p_class
                                : op == CD_METHOD   ? p_method
                                : op == CD_FUNCTION ? p_func
                                                    : p_init;
    ce_args a;
    int r = bind_args(c, call, m->u.method.name, params, 0, &a);
    if (r < 0)
        return r;
    ce_value *d = ce_value_new(c->ev, CE_DECORATOR);
    d->u.deco.cfg = m->u.method.cfg;
    d->u.deco.op = op;
    if (!a.val[0])
        return ce_error_at(c, call, PGCI_EINVALID, "%s() is missing its target", m->u.method.name);
    r = need_name(c, a.val[0], a.node[0], "patch target", 1, &d->u.deco.target);
    if (r < 0)
        return r;
    if (op == CD_INIT)
        r = optional_description(c, &a, 1, &d->u.deco.description);
    else
        r = optional_name_map(c, &a, 2, &d->u.deco.name_map, &d->u.deco.name_map_len);
    if (r == 0 && op != CD_INIT)
        r = optional_description(c, &a, 3, &d->u.deco.description);
    if (r < 0)
        return r;
    if (op != CD_INIT && passed(&a, 1)) {
        /* direct registration: config.override_method("A.f", replacement=g) */
        pg_object *obj = NULL;
        r = need_object(c, a.val[1], a.node[1], "replacement", &obj);
        if (r == 0)
            r = register_replacement(c, call, d, obj);
        *out = &c->ev->none;
        return r;
    }
    *out = d;
    return 0;
}

static int method_add_import(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    static const char *const params[] = {"module", "names", "alias", "is_from_import", NULL};
    ce_args a;
    int r = bind_args(c, call, "add_import", params, 0, &a);
    if (r < 0)
        return r;
    pg_import *imp = arena_alloc(&c->ev->mem, sizeof(*imp));
    if (!a.val[0])
        return ce_error_at(c, call, PGCI_EINVALID, "add_import() is missing its module");
    r = need_name(c, a.val[0], a.node[0], "import module", 1, &imp->module);
    if (r < 0)
        return r;
    if (passed(&a, 1)) {
        ce_value *v = a.val[1];
        if (v->kind != CE_LIST && v->kind != CE_TUPLE)
            return ce_unsupported(c, a.node[1], "names must be a constant list of strings");
        imp->names = arena_alloc(&c->ev->mem, (v->u.seq.len + 1) * sizeof(char *));
        for (size_t i = 0; i < v->u.seq.len; i++) {
            r = need_name(c, v->u.seq.items[i], a.node[1], "imported name", 0, &imp->names[i]);
            if (r < 0)
                return r;
        }
        imp->names_len = v->u.seq.len;
    } else if (a.val[1]) {
        imp->names = NULL; /* names=None */
    }
    if (passed(&a, 2)) {
        r = need_name(c, a.val[2], a.node[2], "import alias", 0, &imp->alias);
        if (r < 0)
            return r;
    }
    imp->is_from_import = 1;
    if (a.val[3]) {
        ce_value *v = a.val[3];
        if (v->kind == CE_BOOL)
            imp->is_from_import = v->u.b;
        else if (v->kind == CE_NONE)
            imp->is_from_import = 0;
        else if (v->kind == CE_INT && !v->u.num.overflow)
            imp->is_from_import = v->u.num.i != 0;
        else
            return ce_unsupported(c, a.node[3], "is_from_import must be a constant bool");
    }
    ce_config *cfg = m->u.method.cfg;
    r = push_check(c, call, cfg->additional_imports.len, "additional imports");
    if (r < 0)
        return r;
    VEC_PUSH(&cfg->additional_imports, imp);
    *out = &c->ev->none;
    return 0;
}

static int method_add_helper(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    static const char *const params[] = {"func", NULL};
    ce_args a;
    int r = bind_args(c, call, "add_helper", params, 0, &a);
    if (r < 0)
        return r;
    if (!passed(&a, 0)) {
        *out = m; /* bare @config.add_helper(): returns the method itself */
        return 0;
    }
    pg_object *obj = NULL;
    r = need_object(c, a.val[0], a.node[0], "helper", &obj);
    if (r == 0)
        r = add_helper(c, call, m->u.method.cfg, obj);
    *out = a.val[0];
    return r;
}

static int method_add_helper_after(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    static const char *const params[] = {"target", "helper", NULL};
    ce_args a;
    int r = bind_args(c, call, "add_helper_after", params, 0, &a);
    if (r < 0)
        return r;
    if (!a.val[0])
        return ce_error_at(c, call, PGCI_EINVALID, "add_helper_after() is missing its target");
    const char *target = NULL;
    r = need_name(c, a.val[0], a.node[0], "helper target", 0, &target);
    if (r < 0)
        return r;
    if (passed(&a, 1)) {
        pg_object *obj = NULL;
        r = need_object(c, a.val[1], a.node[1], "helper", &obj);
        if (r == 0)
            r = add_helper_after(c, call, m->u.method.cfg, target, obj);
        *out = a.val[1];
        return r;
    }
    ce_value *d = ce_value_new(c->ev, CE_DECORATOR);
    d->u.deco.cfg = m->u.method.cfg;
    d->u.deco.op = CD_HELPER_AFTER;
    d->u.deco.target = target;
    *out = d;
    return 0;
}

/* add_post_import_block(block), drop_import_names(*names), exclude_from_output(*names) */
static int method_strings(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    const char *name = m->u.method.name;
    ce_config *cfg = m->u.method.cfg;
    ce_args a;
    int r;
    *out = &c->ev->none;
    if (!strcmp(name, "add_post_import_block")) {
        static const char *const params[] = {"block", NULL};
        const char *s = NULL;
        r = bind_args(c, call, name, params, 0, &a);
        if (r == 0 && !a.val[0])
            r = ce_error_at(c, call, PGCI_EINVALID, "add_post_import_block() is missing its block");
        if (r == 0)
            r = need_str(c, a.val[0], a.node[0], "a post-import block", &s);
        return r < 0 ? r : add_str(c, call, cfg, CF_POST_IMPORT_BLOCKS, s);
    }
    static const char *const none[] = {NULL};
    r = bind_args(c, call, name, none, 1, &a);
    ce_field f = !strcmp(name, "drop_import_names") ? CF_DROP_IMPORTED_NAMES : CF_EXCLUDE;
    for (size_t i = 0; r == 0 && i < a.nrest; i++) {
        const char *s = NULL;
        r = need_name(c, a.rest[i], a.rest_node[i], "name", 0, &s);
        if (r == 0)
            r = add_str(c, call, cfg, f, s);
    }
    return r;
}

/* --- list field methods ----------------------------------------------------------- */

/* One element of a literal list given to extend/append/update, checked for the field. */
static int add_element(ce_ctx *c, TSNode n, ce_config *cfg, ce_field f, ce_value *v)
{
    switch (f) {
    case CF_PATCHES:
        if (v->kind != CE_PATCH)
            return ce_unsupported(c, n, "config.patches takes create_patch_from_external(...)");
        return add_patch(c, n, cfg, v->u.patch);
    case CF_HELPERS: {
        pg_object *obj = NULL;
        int r = need_object(c, v, n, "helper", &obj);
        return r < 0 ? r : add_helper(c, n, cfg, obj);
    }
    case CF_POST_IMPORT_BLOCKS:
    case CF_EXCLUDE:
    case CF_DROP_IMPORTED_NAMES: {
        const char *s = NULL;
        int r = f == CF_POST_IMPORT_BLOCKS ? need_str(c, v, n, "a post-import block", &s)
                                           : need_name(c, v, n, "name", 0, &s);
        return r < 0 ? r : add_str(c, n, cfg, f, s);
    }
    default:
        return ce_unsupported(c, n, "pgci models this list only through another config's list");
    }
}

/* Appends the elements of another config's list (or a filter over it) to cfg's. */
static int add_items(ce_ctx *c, TSNode n, ce_config *cfg, ce_field f, const ce_items *it)
{
    /* copy first: extending a list with itself must see the old length only */
    void **copy = arena_alloc(&c->ev->mem, (it->len ? it->len : 1) * sizeof(void *));
    if (it->len)
        memcpy(copy, it->items, it->len * sizeof(void *));
    for (size_t i = 0; i < it->len; i++) {
        int r = 0;
        switch (f) {
        case CF_PATCHES:
            r = add_patch(c, n, cfg, copy[i]);
            break;
        case CF_ADDITIONAL_IMPORTS:
            r = push_check(c, n, cfg->additional_imports.len, "additional imports");
            if (r == 0)
                VEC_PUSH(&cfg->additional_imports, copy[i]);
            break;
        case CF_HELPERS:
            r = add_helper(c, n, cfg, copy[i]);
            break;
        case CF_POSITIONED_HELPERS:
            r = push_check(c, n, cfg->positioned_helpers.len, "positioned helpers");
            if (r == 0)
                VEC_PUSH(&cfg->positioned_helpers, copy[i]);
            break;
        default:
            r = add_str(c, n, cfg, f, copy[i]);
            break;
        }
        if (r < 0)
            return r;
    }
    return 0;
}

static int method_field(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    const char *name = m->u.method.name;
    ce_field f = m->u.method.field;
    ce_config *cfg = m->u.method.cfg;
    int is_set = f == CF_DROP_IMPORTED_NAMES;
    int ok = is_set ? (!strcmp(name, "update") || !strcmp(name, "add"))
                    : (!strcmp(name, "extend") || !strcmp(name, "append"));
    *out = &c->ev->none;
    if (!ok)
        return ce_unsupported(c, call,
                              "an operation on a PatchConfig list that pgci does not model");
    static const char *const params[] = {"iterable", NULL};
    ce_args a;
    int r = bind_args(c, call, name, params, 0, &a);
    if (r < 0)
        return r;
    if (!a.val[0])
        return ce_error_at(c, call, PGCI_EINVALID, "%s() takes one argument", name);
    ce_value *v = a.val[0];
    TSNode vn = a.node[0];
    if (!strcmp(name, "append") || !strcmp(name, "add"))
        return add_element(c, vn, cfg, f, v);
    ce_items it;
    if (ce_items_of(v, &it)) {
        if (it.field != f &&
            !(is_set && (it.field == CF_EXCLUDE || it.field == CF_DROP_IMPORTED_NAMES))) {
            char why[160];
            snprintf(why, sizeof(why), "config.%s cannot take the items of %s", ce_field_name(f),
                     ce_field_name(it.field));
            return ce_unsupported(c, vn, why);
        }
        return add_items(c, vn, cfg, f, &it);
    }
    if (v->kind == CE_SET && !is_set)
        return ce_unsupported(c, vn, "a set has no defined order");
    if (v->kind != CE_LIST && v->kind != CE_TUPLE && v->kind != CE_SET)
        return ce_unsupported(c, vn, NULL);
    for (size_t i = 0; i < v->u.seq.len; i++) {
        r = add_element(c, vn, cfg, f, v->u.seq.items[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

int ce_items_of(ce_value *v, ce_items *out)
{
    if (v->kind == CE_ITEMS) {
        *out = v->u.items;
        return 1;
    }
    if (v->kind != CE_FIELD)
        return 0;
    ce_config *cfg = v->u.field.cfg;
    out->field = v->u.field.field;
    switch (out->field) {
#define ITEMS(F, vec)                                                                              \
    case F:                                                                                        \
        out->items = (void **)cfg->vec.items;                                                      \
        out->len = cfg->vec.len;                                                                   \
        return 1;
        ITEMS(CF_PATCHES, patches)
        ITEMS(CF_ADDITIONAL_IMPORTS, additional_imports)
        ITEMS(CF_POST_IMPORT_BLOCKS, post_import_blocks)
        ITEMS(CF_HELPERS, helpers)
        ITEMS(CF_POSITIONED_HELPERS, positioned_helpers)
        ITEMS(CF_DROP_IMPORTED_NAMES, drop_imported_names)
        ITEMS(CF_EXCLUDE, exclude)
#undef ITEMS
    default:
        return 0;
    }
}

int ce_call_method(ce_ctx *c, TSNode call, ce_value *m, ce_value **out)
{
    const char *name = m->u.method.name;
    if (m->u.method.field != CF_NONE)
        return method_field(c, call, m, out);
    if (!strcmp(name, "replace_class"))
        return method_replace(c, call, m, CD_CLASS, out);
    if (!strcmp(name, "override_method"))
        return method_replace(c, call, m, CD_METHOD, out);
    if (!strcmp(name, "replace_function"))
        return method_replace(c, call, m, CD_FUNCTION, out);
    if (!strcmp(name, "modify_init"))
        return method_replace(c, call, m, CD_INIT, out);
    if (!strcmp(name, "add_import"))
        return method_add_import(c, call, m, out);
    if (!strcmp(name, "add_helper"))
        return method_add_helper(c, call, m, out);
    if (!strcmp(name, "add_helper_after"))
        return method_add_helper_after(c, call, m, out);
    return method_strings(c, call, m, out);
}

/* --- PatchConfig(...) and create_patch_from_external(...) --------------------------- */

static int check_target_file(ce_ctx *c, TSNode n, const char *s)
{
    if (fs_path_check(s, "target_file") < 0)
        return pgci_error_wrap(PGCI_EINVALID, "%s:%u:%u", c->mod->rel_path, py_line(n), py_col(n));
    return 0;
}

static int str_list_field(ce_ctx *c, ce_config *cfg, ce_field f, ce_value *v, TSNode n)
{
    if (v->kind == CE_NONE)
        return ce_unsupported(c, n, "None where PatchConfig expects a list");
    if (v->kind != CE_LIST && v->kind != CE_TUPLE &&
        !(v->kind == CE_SET && f == CF_DROP_IMPORTED_NAMES))
        return ce_unsupported(c, n, NULL);
    for (size_t i = 0; i < v->u.seq.len; i++) {
        int r = add_element(c, n, cfg, f, v->u.seq.items[i]);
        if (r < 0)
            return r;
    }
    return 0;
}

static int api_patch_config(ce_ctx *c, TSNode call, ce_value **out)
{
    /* the dataclass's fields, in order: all of them may be passed positionally */
    static const char *const params[] = {
        "source_module", "target_file",          "description",
        "patches",       "additional_imports",   "post_import_blocks",
        "helpers",       "positioned_helpers",   "drop_imported_names",
        "exclude",       "transformers_version", NULL,
    };
    ce_args a;
    int r = bind_args(c, call, "PatchConfig", params, 0, &a);
    if (r < 0)
        return r;
    if (!a.val[0])
        return ce_error_at(c, call, PGCI_EINVALID,
                           "PatchConfig() is missing source_module (the upstream module to patch)");
    ce_config *cfg = ce_config_new(c->ev);
    cfg->file = c->mod->rel_path;
    cfg->line = py_line(call);
    cfg->col = py_col(call);
    r = need_name(c, a.val[0], a.node[0], "source_module", 1, &cfg->source_module);
    if (r == 0 && a.val[1]) {
        r = need_str(c, a.val[1], a.node[1], "target_file", &cfg->target_file);
        if (r == 0)
            r = check_target_file(c, a.node[1], cfg->target_file);
    }
    if (r == 0 && a.val[2])
        r = need_str(c, a.val[2], a.node[2], "description", &cfg->description);
    /* list fields: only empty lists, or constant strings where the field holds strings */
    for (int i = 3; r == 0 && i <= 9; i++) {
        if (!a.val[i])
            continue;
        ce_field f = ce_field_from_name(params[i]);
        r = str_list_field(c, cfg, f, a.val[i], a.node[i]);
    }
    if (r == 0 && passed(&a, 10))
        r = need_str(c, a.val[10], a.node[10], "transformers_version", &cfg->transformers_version);
    if (r < 0)
        return r;
    ce_value *v = ce_value_new(c->ev, CE_CONFIG);
    v->u.cfg = cfg;
    *out = v;
    return 0;
}

static int api_create_patch(ce_ctx *c, TSNode call, ce_value **out)
{
    static const char *const params[] = {"target",     "replacement_module", "replacement_name",
                                         "patch_type", "description",        NULL};
    ce_args a;
    int r = bind_args(c, call, "create_patch_from_external", params, 0, &a);
    if (r < 0)
        return r;
    for (int i = 0; i < 3; i++)
        if (!a.val[i])
            return ce_error_at(c, call, PGCI_EINVALID, "create_patch_from_external() is missing %s",
                               params[i]);
    pg_patch *p = arena_alloc(&c->ev->mem, sizeof(*p));
    p->type = PG_CLASS_REPLACEMENT;
    r = need_name(c, a.val[0], a.node[0], "patch target", 1, &p->target);
    if (r == 0)
        r = need_name(c, a.val[1], a.node[1], "replacement_module", 1, &p->replacement_module);
    if (r == 0)
        r = need_name(c, a.val[2], a.node[2], "replacement_name", 0, &p->replacement_name);
    if (r == 0 && passed(&a, 3)) {
        if (a.val[3]->kind != CE_PATCHTYPE)
            return ce_unsupported(c, a.node[3], "patch_type must be PatchType.<MEMBER>");
        p->type = a.val[3]->u.ptype;
    }
    const char *desc = NULL;
    if (r == 0)
        r = optional_description(c, &a, 4, &desc);
    if (r < 0)
        return r;
    p->source_module = p->replacement_module;
    p->description = desc ? desc
                          : arena_printf(&c->ev->mem, "Replace %s with %s from %s", p->target,
                                         p->replacement_name, p->replacement_module);
    p->reg_file = c->mod->rel_path;
    p->reg_line = py_line(call);
    p->reg_col = py_col(call);
    ce_value *v = ce_value_new(c->ev, CE_PATCH);
    v->u.patch = p;
    *out = v;
    return 0;
}

int ce_call_api(ce_ctx *c, TSNode call, ce_api api, ce_value **out)
{
    if (api == CA_PATCH_CONFIG)
        return api_patch_config(c, call, out);
    return api_create_patch(c, call, out);
}

/* --- decorators and attribute assignment -------------------------------------------- */

int ce_apply_decorator(ce_ctx *c, TSNode deco, ce_value *d, pg_object *obj)
{
    switch (d->kind) {
    case CE_DECORATOR:
        if (d->u.deco.op == CD_HELPER_AFTER)
            return add_helper_after(c, deco, d->u.deco.cfg, d->u.deco.target, obj);
        return register_replacement(c, deco, d, obj);
    case CE_METHOD:
        if (d->u.method.field == CF_NONE && !strcmp(d->u.method.name, "add_helper"))
            return add_helper(c, deco, d->u.method.cfg, obj);
        return ce_unsupported(c, deco, "this patch decorator needs its arguments");
    case CE_OBJECT:
        if (ce_call_touches_config(c->ev, d->u.obj))
            return ce_unsupported(c, deco, "the decorator uses a PatchConfig when it runs");
        return 0;
    default:
        if (ce_touches_config(c, deco))
            return ce_unsupported(c, deco, NULL);
        return 0;
    }
}

int ce_call_decorator(ce_ctx *c, TSNode call, ce_value *d, ce_value **out)
{
    static const char *const params[] = {"obj", NULL};
    ce_args a;
    int r = bind_args(c, call, "decorator", params, 0, &a);
    if (r < 0)
        return r;
    if (!a.val[0])
        return ce_unsupported(c, call,
                              "a patch decorator is called with the def or class it registers");
    pg_object *obj = NULL;
    r = need_object(c, a.val[0], a.node[0], "decorated object", &obj);
    if (r == 0)
        r = ce_apply_decorator(c, call, d, obj);
    *out = a.val[0];
    return r;
}

int ce_set_attribute(ce_ctx *c, TSNode stmt, ce_config *cfg, TSNode attr, ce_value *v)
{
    char *name = py_text_dup(c->t, attr);
    ce_field f = ce_field_from_name(name);
    free(name);
    int r;
    switch (f) {
    case CF_SOURCE_MODULE:
        return need_name(c, v, stmt, "source_module", 1, &cfg->source_module);
    case CF_TARGET_FILE:
        r = need_str(c, v, stmt, "target_file", &cfg->target_file);
        return r < 0 ? r : check_target_file(c, stmt, cfg->target_file);
    case CF_DESCRIPTION:
        return need_str(c, v, stmt, "description", &cfg->description);
    case CF_TRANSFORMERS_VERSION:
        if (v->kind == CE_NONE) {
            cfg->transformers_version = NULL;
            return 0;
        }
        return need_str(c, v, stmt, "transformers_version", &cfg->transformers_version);
    default:
        return ce_unsupported(c, stmt, "assigning this PatchConfig attribute is not modelled");
    }
}
