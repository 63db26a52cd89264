/*
 * index_build.c - building a module's index from its tree-sitter parse.
 *
 * Two walks over the tree. The import walk visits every statement, however deeply
 * nested (patchgen collects imports inside functions and try blocks too), and
 * notes where each import sits. The definition walk visits the module's statements
 * and the bodies of classes: module-level functions and classes, also those under
 * a module-level if/try/with (flagged conditional), then for each class its
 * methods, nested classes and class attributes. Bodies of functions are not
 * searched for definitions: a helper defined inside a function is not something a
 * patch can target.
 *
 * Everything lands in the module's arena; vectors used while building are copied
 * into it at the end of each definition.
 *
 * A names-only build (index_module_build_names) makes the definition walk alone,
 * through the same functions, and stops each definition after its name, lines and
 * members: no import walk, no whole-tree depth walk (walk_defs counts its own
 * depth instead), no fingerprints, parameters, decorators or assignments.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"
#include "index/index.h"
#include "index/index_internal.h"
#include "py/pynode.h"
#include "py/pystr.h"

typedef VEC(index_import) import_vec;
typedef VEC(index_assign) assign_vec;
typedef VEC(index_def *) def_vec;
typedef VEC(const char *) str_vec;
typedef VEC(index_param) param_vec;

typedef struct builder {
    index_module *m;
    const py_tree *t;
    arena *a;
    strbuf tmp;
    import_vec imports;
    unsigned import_stmts;
    int names_only; /* index_module_build_names: definitions' names and places only */
    unsigned depth; /* of walk_defs (index_module_build checks the whole tree's first) */
    int too_deep;   /* walk_defs went deeper than the tree may (names only) */
    int lazy;       /* fingerprints on demand (index_def_fingerprint) */
    index_fp_cache fp_cache;
    VEC(index_fp_known) fps; /* the bodies fingerprinted so far (a class's read its members') */
} builder;

/* ---- small helpers ------------------------------------------------------------ */

static const char *text_raw(builder *b, TSNode n)
{
    size_t len;
    const char *s = py_text(b->t, n, &len);
    return arena_strndup(b->a, s, len);
}

/* Clean source text of an expression (see index.h): comments out, lines joined,
 * and without redundant outer parentheses (`x = (\n    f()\n)` has the value
 * `f()`, as Python reads it and however a formatter wraps it). */
static const char *text_clean(builder *b, TSNode n)
{
    if (ts_node_is_null(n))
        return NULL;
    while (py_is(n, "parenthesized_expression")) {
        TSNode inner = pynode_named_child(n, 0);
        if (ts_node_is_null(inner) || !ts_node_is_null(pynode_named_child(n, 1)))
            break;
        n = inner;
    }
    strbuf_reset(&b->tmp);
    pynode_text_clean(&b->tmp, b->t, n);
    return arena_strndup(b->a, b->tmp.buf, b->tmp.len);
}

/* Null-safe: a missing field is a null node, which is of no type. */
static int type_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static void *arena_copy(arena *a, const void *items, size_t n, size_t size)
{
    if (!n)
        return NULL;
    void *p = arena_alloc(a, n * size);
    memcpy(p, items, n * size);
    return p;
}

/* ---- imports ------------------------------------------------------------------ */

typedef struct import_ctx {
    const char *scope;
    int in_try, in_if;
} import_ctx;

static void add_import(builder *b, TSNode stmt, const import_ctx *ctx, const char *module,
                       int level, TSNode name_node, TSNode alias_node, int from_import)
{
    index_import im = {0};
    im.module = module;
    im.level = level;
    if (from_import)
        im.name = ts_node_is_null(name_node) ? "*" : text_clean(b, name_node);
    else
        im.module = text_clean(b, name_node);
    im.alias = ts_node_is_null(alias_node) ? NULL : text_raw(b, alias_node);
    im.line = py_line(ts_node_is_null(name_node) ? stmt : name_node);
    im.stmt = b->import_stmts;
    im.stmt_start = ts_node_start_byte(stmt);
    pynode_code_end(stmt, &im.stmt_end);
    im.scope = ctx->scope;
    im.in_try = ctx->in_try;
    im.in_if = ctx->in_if;
    VEC_PUSH(&b->imports, im);
}

static void index_import_stmt(builder *b, TSNode stmt, const import_ctx *ctx)
{
    int from = !type_is(stmt, "import_statement");
    const char *module = NULL;
    int level = 0;
    TSNode modnode = {0};
    if (type_is(stmt, "future_import_statement")) {
        module = "__future__";
    } else if (from) {
        modnode = py_field(stmt, "module_name");
        if (type_is(modnode, "relative_import")) {
            TSNode *kids;
            size_t nk = pynode_children(modnode, 1, &kids);
            module = "";
            for (size_t i = 0; i < nk; i++) {
                if (type_is(kids[i], "import_prefix")) {
                    size_t plen;
                    const char *p = py_text(b->t, kids[i], &plen);
                    level = 0;
                    for (size_t k = 0; k < plen; k++)
                        level += p[k] == '.';
                } else {
                    module = text_clean(b, kids[i]);
                }
            }
            free(kids);
        } else {
            module = text_clean(b, modnode);
        }
    }
    TSNode *kids;
    size_t nk = pynode_children(stmt, 1, &kids);
    TSNode null = {0};
    for (size_t i = 0; i < nk; i++) {
        TSNode k = kids[i];
        if (!ts_node_is_null(modnode) && ts_node_eq(k, modnode))
            continue;
        if (type_is(k, "aliased_import"))
            add_import(b, stmt, ctx, module, level, py_field(k, "name"), py_field(k, "alias"),
                       from);
        else if (type_is(k, "dotted_name"))
            add_import(b, stmt, ctx, module, level, k, null, from);
        else if (type_is(k, "wildcard_import"))
            add_import(b, stmt, ctx, module, level, null, null, 1);
    }
    free(kids);
    b->import_stmts++;
}

static void walk_imports(builder *b, TSNode n, import_ctx ctx)
{
    if (pynode_is_import(n)) {
        index_import_stmt(b, n, &ctx);
        return;
    }
    if (type_is(n, "function_definition") || type_is(n, "class_definition")) {
        TSNode name = py_field(n, "name");
        size_t len;
        const char *s = py_text(b->t, name, &len);
        ctx.scope = ctx.scope ? arena_printf(b->a, "%s.%.*s", ctx.scope, (int)len, s)
                              : arena_strndup(b->a, s, len);
        walk_imports(b, py_field(n, "body"), ctx);
        return;
    }
    if (!pynode_holds_statements(n))
        return;
    if (type_is(n, "try_statement"))
        ctx.in_try = 1;
    if (type_is(n, "if_statement"))
        ctx.in_if = 1;
    TSNode *kids;
    size_t nk = pynode_children(n, 1, &kids);
    for (size_t i = 0; i < nk; i++)
        walk_imports(b, kids[i], ctx);
    free(kids);
}

/* ---- assignments ---------------------------------------------------------------- */

/* Adds every plain name bound by an assignment target (a, (b, c), [d]). */
static void target_names(builder *b, TSNode target, assign_vec *out, const char *value,
                         const char *annotation)
{
    if (type_is(target, "identifier")) {
        index_assign as = {.name = text_raw(b, target),
                           .value = value,
                           .annotation = annotation,
                           .line = py_line(target)};
        VEC_PUSH(out, as);
        return;
    }
    if (type_is(target, "pattern_list") || type_is(target, "tuple_pattern") ||
        type_is(target, "list_pattern") || type_is(target, "tuple") || type_is(target, "list") ||
        type_is(target, "expression_list") || type_is(target, "parenthesized_expression") ||
        type_is(target, "list_splat_pattern") || type_is(target, "list_splat")) {
        TSNode *kids;
        size_t nk = pynode_children(target, 1, &kids);
        for (size_t i = 0; i < nk; i++)
            target_names(b, kids[i], out, value, annotation);
        free(kids);
    }
}

/* `x = 1`, `x: T = 1`, `x: T`, `a = b = 1` in an expression statement. */
static void statement_assigns(builder *b, TSNode stmt, assign_vec *out)
{
    TSNode asg = pynode_named_child(stmt, 0);
    if (ts_node_is_null(asg) || !type_is(asg, "assignment"))
        return;
    /* Chained: the value is the last right-hand side; every left side binds it. */
    TSNode last = asg;
    while (type_is(py_field(last, "right"), "assignment"))
        last = py_field(last, "right");
    TSNode rhs = py_field(last, "right");
    const char *value = text_clean(b, rhs);
    for (TSNode a = asg;; a = py_field(a, "right")) {
        TSNode type = py_field(a, "type");
        target_names(b, py_field(a, "left"), out, value, text_clean(b, type));
        if (ts_node_eq(a, last))
            break;
    }
}

/* ---- definitions ------------------------------------------------------------------ */

static const char *decode_docstring(builder *b, TSNode lit)
{
    if (ts_node_is_null(lit))
        return NULL;
    strbuf_reset(&b->tmp);
    if (pystr_decode_node(&b->tmp, b->t, lit) < 0) {
        pgci_error_clear();
        return NULL; /* e.g. \N{...}: no value pgci can vouch for */
    }
    return arena_strndup(b->a, b->tmp.buf, b->tmp.len);
}

static void add_param(param_vec *ps, builder *b, TSNode name, index_param_kind kind, TSNode dflt,
                      TSNode type)
{
    index_param p = {.name = text_raw(b, name),
                     .kind = kind,
                     .default_value = text_clean(b, dflt),
                     .annotation = text_clean(b, type),
                     .line = py_line(name)};
    VEC_PUSH(ps, p);
}

static void build_params(builder *b, index_def *d, TSNode params)
{
    param_vec ps = VEC_INIT;
    TSNode null = {0};
    int kw_only = 0;
    TSNode *kids;
    size_t nk = ts_node_is_null(params) ? 0 : pynode_children(params, 1, &kids);
    index_param_kind plain = INDEX_PARAM_POSITIONAL_OR_KEYWORD;
    for (size_t i = 0; i < nk; i++) {
        TSNode k = kids[i];
        plain = kw_only ? INDEX_PARAM_KEYWORD_ONLY : INDEX_PARAM_POSITIONAL_OR_KEYWORD;
        if (type_is(k, "identifier")) {
            add_param(&ps, b, k, plain, null, null);
        } else if (type_is(k, "default_parameter") || type_is(k, "typed_default_parameter")) {
            add_param(&ps, b, py_field(k, "name"), plain, py_field(k, "value"),
                      py_field(k, "type"));
        } else if (type_is(k, "typed_parameter")) {
            TSNode inner = pynode_named_child(k, 0);
            TSNode type = py_field(k, "type");
            if (type_is(inner, "list_splat_pattern")) {
                add_param(&ps, b, pynode_named_child(inner, 0), INDEX_PARAM_VAR_POSITIONAL, null,
                          type);
                kw_only = 1;
            } else if (type_is(inner, "dictionary_splat_pattern")) {
                add_param(&ps, b, pynode_named_child(inner, 0), INDEX_PARAM_VAR_KEYWORD, null,
                          type);
            } else {
                add_param(&ps, b, inner, plain, null, type);
            }
        } else if (type_is(k, "list_splat_pattern")) {
            add_param(&ps, b, pynode_named_child(k, 0), INDEX_PARAM_VAR_POSITIONAL, null, null);
            kw_only = 1;
        } else if (type_is(k, "dictionary_splat_pattern")) {
            add_param(&ps, b, pynode_named_child(k, 0), INDEX_PARAM_VAR_KEYWORD, null, null);
        } else if (type_is(k, "keyword_separator")) {
            kw_only = 1;
        } else if (type_is(k, "positional_separator")) {
            for (size_t j = 0; j < ps.len; j++)
                if (ps.items[j].kind == INDEX_PARAM_POSITIONAL_OR_KEYWORD)
                    ps.items[j].kind = INDEX_PARAM_POSITIONAL_ONLY;
        }
    }
    if (nk)
        free(kids);
    d->params = arena_copy(b->a, ps.items, ps.len, sizeof(*ps.items));
    d->n_params = ps.len;
    VEC_FREE(&ps);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Names X of `self.X = ...` targets (the receiver is the method's first
 * parameter, whatever it is called). */
static void self_targets(builder *b, TSNode target, const char *self, str_vec *out)
{
    if (type_is(target, "attribute")) {
        TSNode obj = py_field(target, "object");
        if (type_is(obj, "identifier") && py_text_eq(b->t, obj, self))
            VEC_PUSH(out, text_raw(b, py_field(target, "attribute")));
        return;
    }
    if (type_is(target, "pattern_list") || type_is(target, "tuple_pattern") ||
        type_is(target, "list_pattern") || type_is(target, "tuple") || type_is(target, "list") ||
        type_is(target, "parenthesized_expression") || type_is(target, "list_splat_pattern") ||
        type_is(target, "list_splat")) {
        TSNode *kids;
        size_t nk = pynode_children(target, 1, &kids);
        for (size_t i = 0; i < nk; i++)
            self_targets(b, kids[i], self, out);
        free(kids);
    }
}

static void walk_init_body(builder *b, TSNode n, const char *self, str_vec *out)
{
    if (type_is(n, "expression_statement")) {
        TSNode asg = pynode_named_child(n, 0);
        for (; type_is(asg, "assignment"); asg = py_field(asg, "right"))
            self_targets(b, py_field(asg, "left"), self, out);
        return;
    }
    if (!pynode_holds_statements(n) || type_is(n, "decorated_definition"))
        return;
    TSNode *kids;
    size_t nk = pynode_children(n, 1, &kids);
    for (size_t i = 0; i < nk; i++)
        walk_init_body(b, kids[i], self, out);
    free(kids);
}

static void build_init_attrs(builder *b, index_def *cls, const index_def *init, TSNode init_node)
{
    if (!init->n_params)
        return;
    str_vec names = VEC_INIT;
    walk_init_body(b, py_field(init_node, "body"), init->params[0].name, &names);
    if (names.len) {
        qsort(names.items, names.len, sizeof(*names.items), cmp_str);
        size_t u = 0;
        for (size_t i = 0; i < names.len; i++)
            if (!u || strcmp(names.items[u - 1], names.items[i]))
                names.items[u++] = names.items[i];
        cls->init_attrs = arena_copy(b->a, names.items, u, sizeof(*names.items));
        cls->n_init_attrs = u;
    }
    VEC_FREE(&names);
}

static void register_def(builder *b, index_def *d)
{
    if (!hashmap_get(&b->m->by_qualname, d->qualname))
        hashmap_put(&b->m->by_qualname, d->qualname, d);
    if (d->kind == INDEX_CLASS)
        b->m->n_classes++;
    else if (d->parent)
        b->m->n_methods++;
    else
        b->m->n_functions++;
}

static void walk_defs(builder *b, TSNode n, index_def *parent, def_vec *defs, assign_vec *assigns,
                      int conditional);

/* The members of class d, registered: all a names-only build keeps of a class. */
static void build_members(builder *b, index_def *d, TSNode body, assign_vec *attrs)
{
    def_vec members = VEC_INIT;
    walk_defs(b, body, d, &members, attrs, 0);
    d->members = arena_copy(b->a, members.items, members.len, sizeof(*members.items));
    d->n_members = members.len;
    VEC_FREE(&members);
}

/* The rest of a names-only definition: registered, and a class's members. */
static index_def *build_names(builder *b, index_def *d, TSNode def_node)
{
    register_def(b, d);
    if (d->kind == INDEX_CLASS)
        build_members(b, d, py_field(def_node, "body"), NULL);
    return d;
}

/* The fingerprint of a def's body, reading the bodies fingerprinted since entry
 * `since` of b->fps (a class's members), remembered for the class around it. */
static uint64_t fingerprint(builder *b, TSNode body, TSNode doc, size_t since)
{
    size_t n = b->fps.len - since;
    uint64_t fp =
        index_fingerprint(b->t, body, doc, &b->fp_cache, n ? b->fps.items + since : NULL, n);
    if (!ts_node_is_null(body)) {
        index_fp_known k = {ts_node_start_byte(body), fp};
        VEC_PUSH(&b->fps, k);
    }
    return fp;
}

/* def_node is a function_definition or class_definition; outer is the
 * decorated_definition around it, or def_node itself. */
static index_def *build_def(builder *b, TSNode def_node, TSNode outer, index_def *parent,
                            int conditional)
{
    index_def *d = arena_alloc(b->a, sizeof(*d));
    int is_class = type_is(def_node, "class_definition");
    d->kind = is_class ? INDEX_CLASS : INDEX_FUNCTION;
    d->name = text_raw(b, py_field(def_node, "name"));
    d->qualname = parent ? arena_printf(b->a, "%s.%s", parent->qualname, d->name) : d->name;
    d->parent = parent;
    d->line = py_line(def_node);
    d->start_line = py_line(outer);
    d->start_byte = ts_node_start_byte(outer);
    d->end_line = pynode_code_end(def_node, &d->end_byte).row + 1;
    d->def_start = ts_node_start_byte(def_node);
    d->def_end = ts_node_end_byte(def_node);
    d->module = b->m;
    d->conditional = conditional;
    d->is_async = !is_class && ts_node_child_count(def_node) > 0 &&
                  type_is(ts_node_child(def_node, 0), "async");
    if (b->names_only)
        return build_names(b, d, def_node);

    if (!ts_node_eq(outer, def_node)) {
        str_vec decs = VEC_INIT;
        TSNode *kids;
        size_t nk = pynode_children(outer, 1, &kids);
        for (size_t i = 0; i < nk; i++)
            if (type_is(kids[i], "decorator"))
                VEC_PUSH(&decs, text_clean(b, pynode_named_child(kids[i], 0)));
        free(kids);
        d->decorators = arena_copy(b->a, decs.items, decs.len, sizeof(*decs.items));
        d->n_decorators = decs.len;
        VEC_FREE(&decs);
    }

    TSNode body = py_field(def_node, "body");
    TSNode doc = pynode_docstring(b->t, body);
    d->has_body = !ts_node_is_null(body);
    d->body_start = d->has_body ? ts_node_start_byte(body) : 0;
    d->docstring = decode_docstring(b, doc);
    if (d->docstring)
        index_doc_args(b->a, d->docstring, &d->doc_args, &d->n_doc_args);
    if (!is_class) {
        if (!b->lazy) {
            d->fp_value = fingerprint(b, body, doc, b->fps.len);
            d->fp_done = 1;
        }
        build_params(b, d, py_field(def_node, "parameters"));
        d->returns = text_clean(b, py_field(def_node, "return_type"));
        register_def(b, d);
        return d;
    }

    TSNode supers = py_field(def_node, "superclasses");
    if (!ts_node_is_null(supers)) {
        str_vec bases = VEC_INIT;
        TSNode *kids;
        size_t nk = pynode_children(supers, 1, &kids);
        for (size_t i = 0; i < nk; i++)
            VEC_PUSH(&bases, text_clean(b, kids[i]));
        free(kids);
        d->bases = arena_copy(b->a, bases.items, bases.len, sizeof(*bases.items));
        d->n_bases = bases.len;
        VEC_FREE(&bases);
    }
    register_def(b, d);

    assign_vec attrs = VEC_INIT;
    size_t known = b->fps.len;
    build_members(b, d, body, &attrs);
    if (!b->lazy) {
        d->fp_value = fingerprint(b, body, doc, known);
        d->fp_done = 1;
    }
    d->attrs = arena_copy(b->a, attrs.items, attrs.len, sizeof(*attrs.items));
    d->n_attrs = attrs.len;
    VEC_FREE(&attrs);
    return d;
}

/* Definitions and assignments among the statements of a module or class body.
 * Module-level if/try/with bodies are searched too (conditional definitions). */
/* 1 when d is the first definition of its name in defs (the one index_find and
 * index_member return). */
static int first_of_name(const def_vec *defs, const index_def *d)
{
    for (size_t i = 0; i < defs->len; i++)
        if (!strcmp(defs->items[i]->name, d->name))
            return defs->items[i] == d;
    return 1;
}

static void walk_defs(builder *b, TSNode n, index_def *parent, def_vec *defs, assign_vec *assigns,
                      int conditional)
{
    /* each call is on a node at least one level below its caller's, so a walk
     * nested deeper than this is on a tree index_module_build refuses */
    if (++b->depth > INDEX_MAX_DEPTH + 1 || b->too_deep) {
        b->too_deep = 1;
        b->depth--;
        return;
    }
    TSNode *kids;
    size_t nk = pynode_children(n, 1, &kids);
    for (size_t i = 0; i < nk; i++) {
        TSNode k = kids[i];
        if (type_is(k, "decorated_definition") || type_is(k, "function_definition") ||
            type_is(k, "class_definition")) {
            TSNode def = type_is(k, "decorated_definition") ? py_field(k, "definition") : k;
            if (ts_node_is_null(def))
                continue;
            index_def *d = build_def(b, def, k, parent, conditional);
            VEC_PUSH(defs, d);
            if (parent && d->kind == INDEX_FUNCTION && !strcmp(d->name, "__init__") &&
                !b->names_only && first_of_name(defs, d))
                build_init_attrs(b, parent, d, def);
        } else if (type_is(k, "expression_statement")) {
            if (!conditional && !b->names_only)
                statement_assigns(b, k, assigns);
        } else if (!parent && (type_is(k, "if_statement") || type_is(k, "try_statement") ||
                               type_is(k, "with_statement") || type_is(k, "elif_clause") ||
                               type_is(k, "else_clause") || type_is(k, "except_clause") ||
                               type_is(k, "except_group_clause") || type_is(k, "finally_clause") ||
                               type_is(k, "block"))) {
            walk_defs(b, k, parent, defs, assigns, 1);
        }
    }
    free(kids);
    b->depth--;
}

/* ---- the module ------------------------------------------------------------------ */

/* The module's imports and docstring, which a names-only build skips (as it skips
 * assignments, in walk_defs). */
static void build_module_rest(builder *b, index_module *m, TSNode root)
{
    import_ctx ctx = {NULL, 0, 0};
    walk_imports(b, root, ctx);
    m->imports = arena_copy(b->a, b->imports.items, b->imports.len, sizeof(*b->imports.items));
    m->n_imports = b->imports.len;
    VEC_FREE(&b->imports);
    m->docstring = decode_docstring(b, pynode_docstring(b->t, root));
}

static void lazy_keep(index_module *m, const py_tree *t);

static int build(index_module **out, const py_tree *t, const char *module_name, int names_only,
                 int lazy)
{
    *out = NULL;
    if (!names_only && index_too_deep(t))
        return pgci_error_set(PGCI_ELIMIT, "%s: nested more than %d levels deep; not indexed",
                              t->path, INDEX_MAX_DEPTH);
    int r = py_check_syntax(t);
    if (r < 0)
        return r;
    index_module *m = pgci_calloc(1, sizeof(*m));
    builder b = {
        .m = m, .t = t, .a = &m->arena, .tmp = STRBUF_INIT, .imports = VEC_INIT, .fps = VEC_INIT};
    b.names_only = m->names_only = names_only;
    b.lazy = lazy && !names_only;
    m->name = arena_strdup(&m->arena, module_name ? module_name : "");
    m->path = arena_strdup(&m->arena, t->path ? t->path : "<input>");
    TSNode root = py_root(t);
    if (!names_only)
        build_module_rest(&b, m, root);

    def_vec defs = VEC_INIT;
    assign_vec assigns = VEC_INIT;
    walk_defs(&b, root, NULL, &defs, &assigns, 0);
    m->defs = arena_copy(b.a, defs.items, defs.len, sizeof(*defs.items));
    m->n_defs = defs.len;
    m->assigns = arena_copy(b.a, assigns.items, assigns.len, sizeof(*assigns.items));
    m->n_assigns = assigns.len;
    VEC_FREE(&defs);
    VEC_FREE(&assigns);
    VEC_FREE(&b.fps);
    strbuf_free(&b.tmp);
    if (b.too_deep) {
        index_module_free(m);
        return pgci_error_set(PGCI_ELIMIT, "%s: nested more than %d levels deep; not indexed",
                              t->path, INDEX_MAX_DEPTH);
    }
    if (b.lazy)
        lazy_keep(m, t);
    *out = m;
    return 0;
}

int index_module_build(index_module **out, const py_tree *t, const char *module_name)
{
    return build(out, t, module_name, 0, 0);
}

int index_module_build_lazy(index_module **out, const py_tree *t, const char *module_name)
{
    return build(out, t, module_name, 0, 1);
}

int index_module_build_names(index_module **out, const py_tree *t, const char *module_name)
{
    return build(out, t, module_name, 1, 0);
}

int index_too_deep(const py_tree *t)
{
    return pynode_deeper_than(py_root(t), INDEX_MAX_DEPTH);
}

int index_module_from_source(index_module **out, const char *src, size_t len, const char *path,
                             const char *module_name)
{
    *out = NULL;
    py_tree t;
    int r = py_parse(&t, src, len, path);
    if (r < 0)
        return r;
    r = index_module_build(out, &t, module_name);
    py_tree_free(&t);
    return r;
}

/* The tree of src from the parse set, or parsed alone when set is NULL; released
 * with tree_done. */
static int tree_of(py_parse_set *set, const char *src, size_t len, const char *path, py_tree *t)
{
    return set ? py_parse_set_get(set, src, len, path, t) : py_parse(t, src, len, path);
}

static void tree_done(py_parse_set *set, py_tree *t)
{
    if (set)
        py_parse_set_release(t);
    else
        py_tree_free(t);
}

static int from_parse_set(index_module **out, py_parse_set *set, const char *src, size_t len,
                          const char *path, const char *module_name, int names_only, int lazy)
{
    *out = NULL;
    py_tree t;
    int r = tree_of(set, src, len, path, &t);
    if (r < 0)
        return r;
    r = build(out, &t, module_name, names_only, lazy);
    tree_done(set, &t);
    return r;
}

int index_module_from_parse_set(index_module **out, py_parse_set *set, const char *src, size_t len,
                                const char *path, const char *module_name)
{
    return from_parse_set(out, set, src, len, path, module_name, 0, 0);
}

int index_module_from_parse_set_lazy(index_module **out, py_parse_set *set, const char *src,
                                     size_t len, const char *path, const char *module_name)
{
    return from_parse_set(out, set, src, len, path, module_name, 0, 1);
}

int index_module_names_from_parse_set(index_module **out, py_parse_set *set, const char *src,
                                      size_t len, const char *path, const char *module_name)
{
    return from_parse_set(out, set, src, len, path, module_name, 1, 0);
}

int index_source_too_deep(py_parse_set *set, const char *src, size_t len, const char *path)
{
    py_tree t;
    if (tree_of(set, src, len, path, &t) < 0)
        return -1;
    int deep = index_too_deep(&t);
    tree_done(set, &t);
    return deep;
}

/* ---- fingerprints on demand -------------------------------------------------- */

struct index_lazy {
    pthread_mutex_t lock;
    py_tree t; /* owns a copy of the text; t.tree NULL once dropped */
    index_fp_cache cache;
    VEC(index_fp_known) known;
};

/* The index keeps the text and a copy of the tree (tree-sitter shares the nodes). */
static void lazy_keep(index_module *m, const py_tree *t)
{
    index_lazy *z = pgci_calloc(1, sizeof(*z));
    pthread_mutex_init(&z->lock, NULL);
    z->t.src = pgci_malloc(t->len + 1);
    memcpy(z->t.src, t->src, t->len);
    z->t.src[t->len] = '\0';
    z->t.len = t->len;
    z->t.path = pgci_strdup(t->path ? t->path : "<input>");
    z->t.tree = ts_tree_copy(t->tree);
    m->lazy = z;
}

void index_module_drop_tree(index_module *m)
{
    if (!m || !m->lazy)
        return;
    pthread_mutex_lock(&m->lazy->lock);
    if (m->lazy->t.tree)
        ts_tree_delete(m->lazy->t.tree);
    m->lazy->t.tree = NULL;
    pthread_mutex_unlock(&m->lazy->lock);
}

static void lazy_free(index_lazy *z)
{
    if (!z)
        return;
    py_tree_free(&z->t);
    VEC_FREE(&z->known);
    pthread_mutex_destroy(&z->lock);
    free(z);
}

static uint64_t lazy_fingerprint(index_lazy *z, index_def *d);

/* The fingerprints of every definition under d (its members, theirs, ...), each
 * where its body starts: what the build had fingerprinted before d's own. */
static void lazy_members(index_lazy *z, const index_def *d)
{
    for (size_t i = 0; i < d->n_members; i++) {
        index_def *m = d->members[i];
        uint64_t fp = lazy_fingerprint(z, m);
        lazy_members(z, m);
        if (m->has_body) {
            index_fp_known k = {m->body_start, fp};
            VEC_PUSH(&z->known, k);
        }
    }
}

/* Under z->lock. The def's node is the deepest named node over its bytes: none of
 * its children spans them all. */
static uint64_t lazy_fingerprint(index_lazy *z, index_def *d)
{
    if (d->fp_done)
        return d->fp_value;
    if (!z->t.tree) {
        TSParser *p = py_thread_parser();
        z->t.tree = ts_parser_parse_string(p, NULL, z->t.src, (uint32_t)z->t.len);
        if (!z->t.tree)
            abort(); /* out of memory: a parse without a timeout returns a tree */
    }
    TSNode def = ts_node_named_descendant_for_byte_range(py_root(&z->t), d->def_start, d->def_end);
    if (!type_is(def, d->kind == INDEX_CLASS ? "class_definition" : "function_definition") ||
        ts_node_start_byte(def) != d->def_start || ts_node_end_byte(def) != d->def_end) {
        /* the same bytes parse the same: this cannot happen */
        fprintf(stderr, "pgci: %s: %s is not where the index saw it\n", z->t.path, d->qualname);
        abort();
    }
    TSNode body = py_field(def, "body");
    TSNode doc = pynode_docstring(&z->t, body);
    size_t since = z->known.len;
    if (d->kind == INDEX_CLASS)
        lazy_members(z, d);
    size_t n = z->known.len - since;
    d->fp_value =
        index_fingerprint(&z->t, body, doc, &z->cache, n ? z->known.items + since : NULL, n);
    z->known.len = since;
    d->fp_done = 1;
    return d->fp_value;
}

uint64_t index_def_fingerprint(const index_def *d)
{
    index_lazy *z = d->module ? d->module->lazy : NULL;
    if (!z)
        return d->fp_value;
    pthread_mutex_lock(&z->lock);
    uint64_t fp = lazy_fingerprint(z, (index_def *)d);
    pthread_mutex_unlock(&z->lock);
    return fp;
}

void index_module_free(index_module *m)
{
    if (!m)
        return;
    lazy_free(m->lazy);
    hashmap_free(&m->by_qualname);
    arena_free(&m->arena);
    free(m);
}

const index_def *index_find(const index_module *m, const char *qualname)
{
    return hashmap_get(&m->by_qualname, qualname);
}

const index_def *index_member(const index_def *cls, const char *name)
{
    for (size_t i = 0; i < cls->n_members; i++)
        if (!strcmp(cls->members[i]->name, name))
            return cls->members[i];
    return NULL;
}

const index_param *index_param_find(const index_def *fn, const char *name)
{
    for (size_t i = 0; i < fn->n_params; i++)
        if (!strcmp(fn->params[i].name, name))
            return &fn->params[i];
    return NULL;
}

const char *index_param_kind_name(index_param_kind k)
{
    switch (k) {
    case INDEX_PARAM_POSITIONAL_ONLY:
        return "positional_only";
    case INDEX_PARAM_POSITIONAL_OR_KEYWORD:
        return "positional_or_keyword";
    case INDEX_PARAM_VAR_POSITIONAL:
        return "var_positional";
    case INDEX_PARAM_KEYWORD_ONLY:
        return "keyword_only";
    case INDEX_PARAM_VAR_KEYWORD:
        return "var_keyword";
    }
    return "?";
}
