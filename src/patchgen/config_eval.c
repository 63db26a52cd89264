/*
 * config_eval.c - evaluating a *_patch_gen_config.py without Python.
 *
 * patchgen imports the config module, which drags in torch and the GPU stack. pgci
 * instead walks the module's statements in source order, as the interpreter would
 * run them, and models just enough of Python to rebuild the PatchConfig objects:
 * constants, def/class objects with their decorators, imports of sibling configs
 * (loaded once per evaluator and shared), and the PatchConfig API. A statement that
 * does anything else is ignored when it never touches a PatchConfig, and is an error
 * naming file:line:col and its text when it does: pgci never guesses.
 *
 * Two places where pgci follows Python rather than intuition, both checked against
 * the real patchgen by tests/oracle/config_eval.sh:
 *  - `if TYPE_CHECKING:` bodies do not run on import (TYPE_CHECKING is False at
 *    runtime), so what they register never reaches patchgen; the `else:` branch runs;
 *  - a PatchConfig imported from a sibling is the sibling's object: mutating it
 *    (qwen3_omni_moe's NPU config sets its target_file) changes what the importer
 *    sees. pgci gives each importer its own copy, which is what a fresh
 *    `patchgen MODULE` process sees for that importer and keeps the sibling's own
 *    evaluation independent of import order.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/hashmap.h"
#include "core/par.h"
#include "patchgen/codegen_syntax.h"
#include "patchgen/config_internal.h"
#include "py/pynode.h"
#include "py/pysrc.h"

/* --- values and configs ---------------------------------------------------------- */

ce_value *ce_value_new(config_eval *ev, ce_kind kind)
{
    ce_value *v = arena_alloc(&ev->mem, sizeof(*v));
    v->kind = kind;
    return v;
}

ce_config *ce_config_new(config_eval *ev)
{
    ce_config *cfg = arena_alloc(&ev->mem, sizeof(*cfg));
    cfg->target_file = "patched_modeling.py";
    cfg->description = "";
    cfg->next_alloc = ev->configs;
    ev->configs = cfg;
    return cfg;
}

#define COPY_VEC(dst, src)                                                                         \
    do {                                                                                           \
        VEC_RESERVE(&(dst), (src).len);                                                            \
        for (size_t i_ = 0; i_ < (src).len; i_++)                                                  \
            (dst).items[(dst).len++] = (src).items[i_];                                            \
    } while (0)

ce_config *ce_config_clone(config_eval *ev, const ce_config *src)
{
    ce_config *cfg = ce_config_new(ev);
    cfg->source_module = src->source_module;
    cfg->target_file = src->target_file;
    cfg->description = src->description;
    cfg->transformers_version = src->transformers_version;
    cfg->file = src->file;
    cfg->line = src->line;
    cfg->col = src->col;
    COPY_VEC(cfg->patches, src->patches);
    COPY_VEC(cfg->additional_imports, src->additional_imports);
    COPY_VEC(cfg->post_import_blocks, src->post_import_blocks);
    COPY_VEC(cfg->helpers, src->helpers);
    COPY_VEC(cfg->positioned_helpers, src->positioned_helpers);
    COPY_VEC(cfg->drop_imported_names, src->drop_imported_names);
    COPY_VEC(cfg->exclude, src->exclude);
    for (size_t i = 0; i < cfg->drop_imported_names.len; i++)
        hashmap_put(&cfg->drop_set, cfg->drop_imported_names.items[i], (void *)1);
    return cfg;
}

static void config_release(ce_config *cfg)
{
    VEC_FREE(&cfg->patches);
    VEC_FREE(&cfg->additional_imports);
    VEC_FREE(&cfg->post_import_blocks);
    VEC_FREE(&cfg->helpers);
    VEC_FREE(&cfg->positioned_helpers);
    VEC_FREE(&cfg->drop_imported_names);
    VEC_FREE(&cfg->exclude);
    hashmap_free(&cfg->drop_set);
}

/* --- the evaluator ------------------------------------------------------------------- */

static char *real_or_copy(arena *a, const char *path)
{
    char *r = realpath(path, NULL);
    char *out = arena_strdup(a, r ? r : path);
    free(r);
    return out;
}

int config_eval_new(config_eval **out, const workspace *ws)
{
    config_eval *ev = pgci_calloc(1, sizeof(*ev));
    ev->ws = ws;
    ev->unknown.kind = CE_UNKNOWN;
    ev->none.kind = CE_NONE;
    if (ws && ws->root) {
        ev->root = real_or_copy(&ev->mem, ws->root);
        if (ws->search_root) {
            strbuf sb = STRBUF_INIT;
            fs_join(&sb, ev->root, ws->search_root);
            ev->search_abs = real_or_copy(&ev->mem, sb.buf);
            strbuf_free(&sb);
        }
        if (ws->package_prefix && *ws->package_prefix) {
            size_t n = strlen(ws->package_prefix);
            while (n && ws->package_prefix[n - 1] == '.')
                n--;
            ev->prefix = arena_printf(&ev->mem, "%.*s.", (int)n, ws->package_prefix);
        }
    }
    *out = ev;
    return 0;
}

void config_eval_free(config_eval *ev)
{
    if (!ev)
        return;
    for (ce_config *c = ev->configs; c; c = c->next_alloc)
        config_release(c);
    for (size_t i = 0; i < ev->modules.len; i++) {
        ce_module *m = ev->modules.entries[i].value;
        if (!ev->modules.entries[i].key || !m)
            continue;
        hashmap_free(&m->ns);
        hashmap_free(&m->cloned);
        VEC_FREE(&m->loads);
        hashmap_free(&m->first_class);
        if (m->tree) {
            py_tree_free(m->tree);
            free(m->tree);
        }
    }
    hashmap_free(&ev->modules);
    hashmap_free(&ev->defs);
    arena_free(&ev->mem);
    free(ev);
}

/* --- module names and paths ---------------------------------------------------------- */

/* "under/dir/x.py" relative to root when path is inside root, else NULL. */
static const char *path_under(const char *root, const char *path)
{
    if (!root)
        return NULL;
    size_t n = strlen(root);
    if (strncmp(path, root, n) || path[n] != '/')
        return NULL;
    return path + n + 1;
}

static char *module_name_for(config_eval *ev, const char *abs_path)
{
    const char *rel = path_under(ev->search_abs, abs_path);
    if (rel && ev->prefix && pgci_ends_with(rel, ".py")) {
        char *name = arena_printf(&ev->mem, "%s%.*s", ev->prefix, (int)(strlen(rel) - 3), rel);
        for (char *p = name + strlen(ev->prefix); *p; p++)
            if (*p == '/')
                *p = '.';
        return name;
    }
    const char *base = strrchr(abs_path, '/');
    base = base ? base + 1 : abs_path;
    size_t n = strlen(base);
    if (n > 3 && pgci_ends_with(base, ".py"))
        n -= 3;
    return arena_strndup(&ev->mem, base, n);
}

static int is_config_module(const char *dotted)
{
    const char *last = strrchr(dotted, '.');
    return pgci_ends_with(last ? last + 1 : dotted, "_patch_gen_config");
}

static int is_patchgen_module(const char *m)
{
    return !strcmp(m, "patchgen") || !strcmp(m, "patchgen.patch_spec") ||
           !strcmp(m, "veomni.patchgen") || !strcmp(m, "veomni.patchgen.patch_spec");
}

/* The file of a module under package_prefix, or NULL when it is outside or absent.
 * *outside is set when the module is not under the prefix at all. */
static char *module_file(config_eval *ev, const char *dotted, int *outside)
{
    *outside = 1;
    if (!ev->prefix || !ev->search_abs || !pgci_starts_with(dotted, ev->prefix))
        return NULL;
    *outside = 0;
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s/", ev->search_abs);
    for (const char *p = dotted + strlen(ev->prefix); *p; p++)
        strbuf_addc(&sb, *p == '.' ? '/' : *p);
    strbuf_adds(&sb, ".py");
    char *out =
        fs_is_file(sb.buf) ? real_or_copy(&ev->mem, sb.buf) : arena_strdup(&ev->mem, sb.buf);
    strbuf_free(&sb);
    return out;
}

/* --- statements ------------------------------------------------------------------------ */

static int exec_block(ce_ctx *c, TSNode block);

static void bind(ce_ctx *c, TSNode name, ce_value *v)
{
    size_t len;
    const char *s = py_text(c->t, name, &len);
    hashmap_putn(&c->mod->ns, s, len, v);
}

static void bind_str(ce_ctx *c, const char *name, ce_value *v)
{
    hashmap_put(&c->mod->ns, name, v);
}

static int skip_unless_touching(ce_ctx *c, TSNode n)
{
    return ce_touches_config(c, n) ? ce_unsupported(c, n, NULL) : 0;
}

static int is_config_value(const ce_value *v)
{
    return ce_value_is_config(v);
}

#define IDENTITY_WHY                                                                               \
    "patchgen reads __name__, __qualname__, __module__ and __wrapped__ of the objects it "         \
    "copies; pgci does not model changing them"

/* __name__ and the other attributes that say which object and source patchgen reads. */
static int is_identity_attr(ce_ctx *c, TSNode attr)
{
    static const char *const names[] = {"__name__",    "__qualname__", "__module__",
                                        "__wrapped__", "__code__",     NULL};
    for (size_t i = 0; names[i]; i++)
        if (py_text_eq(c->t, attr, names[i]))
            return 1;
    return 0;
}

/* `X.__name__ += ...` and `setattr(X, ...)` / `delattr(X, ...)` on a def or class. */
static int check_identity_change(ce_ctx *c, TSNode stmt, TSNode e)
{
    TSNode target = {0};
    if (py_is(e, "augmented_assignment") && py_is(py_field(e, "left"), "attribute") &&
        is_identity_attr(c, py_field(py_field(e, "left"), "attribute")))
        target = py_field(py_field(e, "left"), "object");
    if (py_is(e, "call") && py_is(py_field(e, "function"), "identifier") &&
        (py_text_eq(c->t, py_field(e, "function"), "setattr") ||
         py_text_eq(c->t, py_field(e, "function"), "delattr")) &&
        !hashmap_get(&c->mod->ns,
                     py_text_eq(c->t, py_field(e, "function"), "setattr") ? "setattr" : "delattr"))
        target = ce_named_child(py_field(e, "arguments"), 0);
    if (ts_node_is_null(target))
        return 0;
    ce_value *v;
    int r = ce_eval(c, target, &v);
    if (r == 0 && v->kind == CE_OBJECT)
        r = ce_unsupported(c, stmt, IDENTITY_WHY);
    return r;
}

/* Binds the names of a tuple/list target, element-wise when the value allows it. */
static int assign_pattern(ce_ctx *c, TSNode stmt, TSNode target, ce_value *v)
{
    uint32_t k = ce_named_count(target);
    int split = (v->kind == CE_TUPLE || v->kind == CE_LIST) && v->u.seq.len == k;
    for (uint32_t i = 0; i < k; i++) {
        TSNode t = ce_named_child(target, i);
        ce_value *e = split ? v->u.seq.items[i] : &c->ev->unknown;
        if (py_is(t, "identifier"))
            bind(c, t, e);
        else if (ce_touches_config(c, t) || is_config_value(e))
            return ce_unsupported(c, stmt, NULL);
    }
    return 0;
}

static int assign_target(ce_ctx *c, TSNode stmt, TSNode target, ce_value *v)
{
    if (py_is(target, "identifier")) {
        bind(c, target, v);
        return 0;
    }
    if (py_is(target, "attribute")) {
        ce_value *obj;
        int r = ce_eval(c, py_field(target, "object"), &obj);
        if (r < 0)
            return r;
        if (obj->kind == CE_CONFIG)
            return ce_set_attribute(c, stmt, obj->u.cfg, py_field(target, "attribute"), v);
        if (obj->kind == CE_OBJECT && is_identity_attr(c, py_field(target, "attribute")))
            return ce_unsupported(c, stmt, IDENTITY_WHY);
        if (is_config_value(obj) || is_config_value(v))
            return ce_unsupported(c, stmt, NULL);
        return 0;
    }
    if (py_is(target, "pattern_list") || py_is(target, "tuple_pattern") ||
        py_is(target, "list_pattern"))
        return assign_pattern(c, stmt, target, v);
    return (ce_touches_config(c, target) || is_config_value(v)) ? ce_unsupported(c, stmt, NULL) : 0;
}

/* NAME = value, a = b = value, NAME: T = value, config.attr = value, a, b = ... */
static int exec_assignment(ce_ctx *c, TSNode stmt, TSNode asg)
{
    TSNode targets[64];
    size_t n = 0;
    TSNode cur = asg;
    while (py_is(cur, "assignment")) {
        if (n == sizeof(targets) / sizeof(targets[0]))
            return ce_error_at(c, stmt, PGCI_ELIMIT, "too many chained assignment targets");
        targets[n++] = py_field(cur, "left");
        TSNode right = py_field(cur, "right");
        if (ts_node_is_null(right))
            return 0; /* an annotation without a value binds nothing */
        cur = right;
    }
    if (py_is(cur, "yield") || py_is(cur, "augmented_assignment"))
        return skip_unless_touching(c, stmt);
    ce_value *v;
    int r = ce_eval(c, cur, &v);
    for (size_t i = 0; r == 0 && i < n; i++)
        r = assign_target(c, stmt, targets[i], v);
    return r;
}

static int exec_expression(ce_ctx *c, TSNode stmt)
{
    if (ce_named_count(stmt) != 1)
        return skip_unless_touching(c, stmt);
    TSNode e = ce_named_child(stmt, 0);
    if (py_is(e, "string") || py_is(e, "concatenated_string"))
        return 0; /* a docstring */
    int r = check_identity_change(c, stmt, e);
    if (r < 0)
        return r;
    if (py_is(e, "assignment"))
        return exec_assignment(c, stmt, e);
    if (py_is(e, "call")) {
        ce_value *v;
        return ce_eval(c, e, &v);
    }
    return skip_unless_touching(c, stmt);
}

/* --- defs and classes ------------------------------------------------------------------ */

static int check_class_body(ce_ctx *c, TSNode body);

/* What Python runs when it executes a def statement, besides its decorators:
 * default values and annotations (not the body, not the parameter names, which
 * often are `config` in model code). */
static int check_def_header(ce_ctx *c, TSNode def)
{
    TSNode params = py_field(def, "parameters");
    ce_iter it;
    TSNode p;
    int r = 0;
    ce_iter_init(&it, params);
    while (r == 0 && ce_iter_next(&it, &p)) {
        TSNode parts[2] = {py_field(p, "value"), py_field(p, "type")};
        for (int i = 0; i < 2 && r == 0; i++)
            if (!ts_node_is_null(parts[i]) && ce_touches_config(c, parts[i]))
                r = ce_unsupported(c, parts[i], NULL);
    }
    ce_iter_done(&it);
    TSNode ret = py_field(def, "return_type");
    if (r == 0 && !ts_node_is_null(ret) && ce_touches_config(c, ret))
        r = ce_unsupported(c, ret, NULL);
    return r;
}

/* A class body runs when the class is defined: a registration inside it would
 * happen in Python, so it must not pass unnoticed. Nested defs count for their
 * decorators and headers only. */
static int check_definition(ce_ctx *c, TSNode n)
{
    TSNode def = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
    int r = 0;
    if (py_is(n, "decorated_definition")) {
        ce_iter it;
        TSNode d;
        ce_iter_init(&it, n);
        while (r == 0 && ce_iter_next(&it, &d))
            if (py_is(d, "decorator") && ce_touches_config(c, d))
                r = ce_unsupported(c, d, "a patch decorator inside a class body");
        ce_iter_done(&it);
    }
    if (r == 0 && py_is(def, "function_definition"))
        r = check_def_header(c, def);
    if (r == 0 && py_is(def, "class_definition"))
        r = check_class_body(c, def);
    return r;
}

/* A class-body statement touches a PatchConfig; names it binds (`config: Cfg`,
 * `config = None`: class attributes) do not count, what it evaluates does. */
static int class_statement_touches(ce_ctx *c, TSNode s)
{
    TSNode asg = ce_named_count(s) == 1 ? ce_named_child(s, 0) : s;
    if (!py_is(s, "expression_statement") || !py_is(asg, "assignment"))
        return ce_touches_config(c, s);
    for (TSNode cur = asg; !ts_node_is_null(cur); cur = py_field(cur, "right")) {
        if (!py_is(cur, "assignment"))
            return ce_touches_config(c, cur);
        TSNode left = py_field(cur, "left"), type = py_field(cur, "type");
        if (!py_is(left, "identifier") && ce_touches_config(c, left))
            return 1;
        if (!ts_node_is_null(type) && ce_touches_config(c, type))
            return 1;
    }
    return 0;
}

static int check_class_body(ce_ctx *c, TSNode cls)
{
    TSNode bases = py_field(cls, "superclasses");
    if (!ts_node_is_null(bases) && ce_touches_config(c, bases))
        return ce_unsupported(c, bases, NULL);
    ce_iter it;
    TSNode s;
    int r = 0;
    ce_iter_init(&it, py_field(cls, "body"));
    while (r == 0 && ce_iter_next(&it, &s)) {
        if (py_is(s, "function_definition") || py_is(s, "class_definition") ||
            py_is(s, "decorated_definition"))
            r = check_definition(c, s);
        else if (class_statement_touches(c, s))
            r = ce_unsupported(c, s, NULL);
    }
    ce_iter_done(&it);
    return r;
}

/* Decorators that give patchgen the object they decorate, or a wrapper it unwraps
 * (functools.wraps sets __wrapped__, __name__ and __module__), by their dotted name
 * with or without a call. */
static const char *const known_decorators[] = {"dataclass",
                                               "dataclasses.dataclass",
                                               "lru_cache",
                                               "functools.lru_cache",
                                               "cache",
                                               "functools.cache",
                                               "contextmanager",
                                               "contextlib.contextmanager",
                                               "no_type_check",
                                               "typing.no_type_check",
                                               "torch.no_grad",
                                               "torch.inference_mode",
                                               "torch.enable_grad",
                                               "auto_docstring",
                                               "transformers.utils.auto_docstring",
                                               NULL};

/* 1 when the decorator is one of known_decorators, its first name not bound to a
 * def or class of the config (which could be anything). */
static int decorator_known(ce_ctx *c, TSNode deco)
{
    TSNode e = ce_named_child(deco, 0);
    if (py_is(e, "call"))
        e = py_field(e, "function");
    TSNode root = e;
    while (py_is(root, "attribute"))
        root = py_field(root, "object");
    if (!py_is(root, "identifier"))
        return 0;
    char *first = py_text_dup(c->t, root);
    ce_value *v = hashmap_get(&c->mod->ns, first);
    free(first);
    if (v && v->kind != CE_UNKNOWN)
        return 0;
    strbuf sb = STRBUF_INIT;
    pynode_text_clean(&sb, c->t, e);
    int known = 0;
    for (size_t i = 0; known_decorators[i]; i++)
        known = known || !strcmp(sb.buf, known_decorators[i]);
    strbuf_free(&sb);
    return known;
}

/* Python evaluates decorator expressions top-down, then applies them bottom-up:
 * the one nearest the def registers first. A decorator pgci does not know may
 * return another object: a patch decorator above it is refused, and *wrapped says
 * which one it was, for registrations by name later. */
static int apply_decorators(ce_ctx *c, TSNode n, pg_object *obj, TSNode *wrapped)
{
    uint32_t k = ce_named_count(n);
    ce_value **vals = arena_alloc(&c->ev->mem, (k + 1) * sizeof(ce_value *));
    TSNode *nodes = arena_alloc(&c->ev->mem, (k + 1) * sizeof(TSNode));
    size_t nd = 0;
    ce_iter it;
    TSNode d;
    int r = 0;
    ce_iter_init(&it, n);
    while (r == 0 && ce_iter_next(&it, &d)) {
        if (!py_is(d, "decorator"))
            continue;
        nodes[nd] = d;
        r = ce_eval(c, ce_named_child(d, 0), &vals[nd]);
        nd++;
    }
    ce_iter_done(&it);
    for (size_t i = nd; r == 0 && i-- > 0;) {
        int patchgen = vals[i]->kind == CE_DECORATOR || vals[i]->kind == CE_METHOD;
        if (patchgen && !ts_node_is_null(*wrapped))
            return ce_unsupported(c, *wrapped,
                                  "a decorator pgci does not know, under a patch decorator: it "
                                  "may return another object, whose source or __name__ "
                                  "patchgen reads instead");
        r = ce_apply_decorator(c, nodes[i], vals[i], obj);
        if (r == 0 && !patchgen && ts_node_is_null(*wrapped) && !decorator_known(c, nodes[i]))
            *wrapped = nodes[i];
    }
    return r;
}

/* pg_object.parses_alone for the def n of m: a top-level def (column 0) of a file
 * whose tree is its text's and whose indentation CPython accepts. Its lines alone
 * (with the comments above and below it that patchgen takes along) then give the
 * same statement, accepted too: at column 0 the tokenizer's indentation stack is
 * empty, in the file as alone. */
static int module_def_parses_alone(ce_module *m, TSNode n)
{
    if (ts_node_start_point(n).column != 0 || !m->tree_of_text || !m->tree)
        return 0;
    if (!m->accepted)
        m->accepted = cgsyn_python_accepts(m->tree) ? 1 : -1;
    return m->accepted > 0;
}

static int exec_definition(ce_ctx *c, TSNode n)
{
    TSNode def = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
    pg_object *obj = arena_alloc(&c->ev->mem, sizeof(*obj));
    size_t nlen;
    const char *name = py_text(c->t, py_field(def, "name"), &nlen);
    obj->name = arena_strndup(&c->ev->mem, name, nlen);
    obj->module = c->mod->name;
    obj->file = c->mod->abs_path;
    obj->text = c->mod->text;
    obj->text_len = c->mod->text_len;
    obj->is_class = py_is(def, "class_definition");
    ce_object_lines(c->t, &c->ev->mem, &c->mod->first_class, &c->mod->classes_indexed, n, obj);
    obj->parses_alone = !obj->is_class && module_def_parses_alone(c->mod, n);
    obj->tree = obj->parses_alone ? c->mod->tree->tree : NULL; /* ce_finalize copies it */
    int rc = obj->is_class ? check_class_body(c, def) : check_def_header(c, def);
    if (rc < 0)
        return rc;

    TSNode wrapped = {0};
    if (py_is(n, "decorated_definition")) {
        int r = apply_decorators(c, n, obj, &wrapped);
        if (r < 0)
            return r;
    }
    ce_value *v = ce_value_new(c->ev, CE_OBJECT);
    v->u.obj = obj;
    bind_str(c, obj->name, v);
    ce_def *where = arena_alloc(&c->ev->mem, sizeof(*where));
    where->mod = c->mod;
    where->node = def;
    if (!ts_node_is_null(wrapped)) {
        strbuf sb = STRBUF_INIT;
        ce_snippet(&sb, c, wrapped);
        where->wrapped_by = arena_strndup(&c->ev->mem, sb.buf, sb.len);
        where->wrapped_line = py_line(wrapped);
        strbuf_free(&sb);
    }
    char key[32];
    snprintf(key, sizeof(key), "%p", (void *)obj);
    hashmap_put(&c->ev->defs, key, where);
    return 0;
}

static int def_touches(config_eval *ev, const pg_object *obj, hashmap *seen, int depth)
{
    char key[32];
    snprintf(key, sizeof(key), "%p", (const void *)obj);
    ce_def *d = hashmap_get(&ev->defs, key);
    if (!d || !d->mod->tree || hashmap_has(seen, key))
        return 0;
    if (depth > 32)
        return 1; /* too deep to know: refuse rather than guess */
    hashmap_put(seen, key, (void *)1);
    /* a def runs its body; a class runs its methods through __init__ and friends */
    TSNode body = py_is(d->node, "class_definition") ? d->node : py_field(d->node, "body");
    TSTreeCursor cur = ts_tree_cursor_new(body);
    int found = 0;
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&cur);
        const char *field = ts_tree_cursor_current_field_name(&cur);
        if (!ce_step(ev, 1)) {
            found = 1; /* reported as the budget by ce_unsupported */
            break;
        }
        if (py_is(x, "identifier") && (!field || strcmp(field, "attribute"))) {
            size_t len;
            const char *s = py_text(d->mod->tree, x, &len);
            ce_value *v = hashmap_getn(&d->mod->ns, s, len);
            if (v ? is_config_value(v) : ce_dynamic_builtin(s, len))
                found = 1;
            else if (v && v->kind == CE_OBJECT && v->u.obj != obj)
                found = def_touches(ev, v->u.obj, seen, depth + 1);
            if (found)
                break;
        }
        if (ts_tree_cursor_goto_first_child(&cur))
            continue;
        int moved = 0;
        while (!moved && !ts_node_eq(ts_tree_cursor_current_node(&cur), body)) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                moved = 1;
            else if (!ts_tree_cursor_goto_parent(&cur))
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return found;
}

int ce_call_touches_config(config_eval *ev, const pg_object *obj)
{
    hashmap seen = HASHMAP_INIT;
    int r = def_touches(ev, obj, &seen, 0);
    hashmap_free(&seen);
    return r;
}

/* --- if ----------------------------------------------------------------------------------- */

/* `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` / `if __name__ == "__main__":` never
 * run their body on import. */
static int condition_false_on_import(ce_ctx *c, TSNode cond)
{
    if (py_is(cond, "identifier") && py_text_eq(c->t, cond, "TYPE_CHECKING"))
        return 1;
    if (py_is(cond, "attribute") &&
        py_text_eq(c->t, py_field(cond, "attribute"), "TYPE_CHECKING") &&
        py_text_eq(c->t, py_field(cond, "object"), "typing"))
        return 1;
    if (py_is(cond, "comparison_operator") && ce_named_count(cond) == 2) {
        TSNode a = ce_named_child(cond, 0), b = ce_named_child(cond, 1);
        ce_value *v;
        return py_text_eq(c->t, a, "__name__") && ts_node_child_count(cond) == 3 &&
               py_text_eq(c->t, ts_node_child(cond, 1), "==") && ce_eval(c, b, &v) == 0 &&
               v->kind == CE_STR && !strcmp(v->u.str.s, "__main__");
    }
    return 0;
}

static int exec_if(ce_ctx *c, TSNode n)
{
    if (!condition_false_on_import(c, py_field(n, "condition")))
        return skip_unless_touching(c, n);
    TSNode alt = {0};
    uint32_t k = ce_named_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ce_named_child(n, i);
        if (py_is(ch, "elif_clause"))
            return skip_unless_touching(c, n);
        if (py_is(ch, "else_clause"))
            alt = ch;
    }
    return ts_node_is_null(alt) ? 0 : exec_block(c, py_field(alt, "body"));
}

/* --- imports ------------------------------------------------------------------------------- */

/* The absolute module of a from-import (`from ..x import y` made absolute). */
static char *from_module(ce_ctx *c, TSNode m)
{
    if (!py_is(m, "relative_import"))
        return py_text_dup(c->t, m);
    size_t len;
    const char *s = py_text(c->t, m, &len);
    size_t dots = 0;
    while (dots < len && s[dots] == '.')
        dots++;
    /* the package of this module, then one level up per extra dot */
    strbuf base = STRBUF_INIT;
    strbuf_adds(&base, c->mod->name);
    for (size_t i = 0; i < dots; i++) {
        char *dot = strrchr(base.buf, '.');
        strbuf_setlen(&base, dot ? (size_t)(dot - base.buf) : 0);
    }
    if (dots < len) {
        if (base.len)
            strbuf_addc(&base, '.');
        strbuf_add(&base, s + dots, len - dots);
    }
    return strbuf_detach(&base, NULL);
}

static ce_module *patchgen_api_module(config_eval *ev)
{
    ce_module *m = hashmap_get(&ev->modules, "<patchgen>");
    if (m)
        return m;
    m = arena_alloc(&ev->mem, sizeof(*m));
    m->name = "patchgen";
    m->rel_path = m->abs_path = "<patchgen>";
    m->state = CE_DONE;
    static const struct {
        const char *name;
        ce_api api;
    } names[] = {{"PatchConfig", CA_PATCH_CONFIG},
                 {"create_patch_from_external", CA_CREATE_PATCH},
                 {"PatchType", CA_PATCH_TYPE}};
    for (size_t i = 0; i < 3; i++) {
        ce_value *v = ce_value_new(ev, CE_API);
        v->u.api = names[i].api;
        hashmap_put(&m->ns, names[i].name, v);
    }
    hashmap_put(&ev->modules, "<patchgen>", m);
    return m;
}

/* "a -> b -> a": the chain of imports from `target` (being loaded) to here. */
static int cycle_error(ce_ctx *c, TSNode n, ce_module *target)
{
    ce_module *stack[CE_MAX_IMPORT_DEPTH + 2];
    int k = 0;
    for (ce_module *m = c->mod; m && k < CE_MAX_IMPORT_DEPTH + 1; m = m->importer) {
        stack[k++] = m;
        if (m == target)
            break;
    }
    strbuf chain = STRBUF_INIT;
    for (int i = k; i-- > 0;)
        strbuf_addf(&chain, "%s -> ", stack[i]->name);
    strbuf_adds(&chain, target->name);
    int r = ce_error_at(c, n, PGCI_EINVALID, "import cycle between patch configs: %s", chain.buf);
    strbuf_free(&chain);
    return r;
}

/* Loads the sibling config `dotted` for an import at node n. */
static int load_sibling(ce_ctx *c, TSNode n, const char *dotted, ce_module **out)
{
    int outside;
    char *file = module_file(c->ev, dotted, &outside);
    if (outside)
        return ce_error_at(c, n, PGCI_ENOTFOUND,
                           "cannot resolve sibling config '%s': it is not under the workspace's "
                           "package_prefix '%s'",
                           dotted, c->ev->prefix ? c->ev->prefix : "(none)");
    if (!fs_is_file(file)) {
        const char *rel = path_under(c->ev->root, file);
        return ce_error_at(c, n, PGCI_ENOTFOUND,
                           "cannot find sibling config '%s': %s does not exist", dotted,
                           rel ? rel : file);
    }
    /* module_file() resolved every symlink on the way: a sibling that lands outside
     * the workspace is refused as discovery refuses such a config, before a byte of it
     * is read (patchgen would import it, and its code would reach the output) */
    if (c->ev->root && !path_under(c->ev->root, file))
        return ce_error_at(c, n, PGCI_EINVALID,
                           "sibling config '%s' resolves to %s, outside %s (symlink?)", dotted,
                           file, c->ev->root);
    if (!strcmp(file, c->mod->abs_path))
        return ce_error_at(c, n, PGCI_EINVALID, "config '%s' imports itself", dotted);
    ce_module *loading = hashmap_get(&c->ev->modules, file);
    if (loading && loading->state == CE_LOADING)
        return cycle_error(c, n, loading);
    int r = ce_module_load(c->ev, c->mod, file, out);
    if (r == 0)
        VEC_PUSH(&c->mod->loads, *out);
    if (r < 0) {
        char *msg = pgci_strdup(pgci_error_last());
        pgci_error_set(r, "%s (imported from %s:%u:%u)", msg, c->mod->rel_path, py_line(n),
                       py_col(n));
        free(msg);
    }
    return r;
}

static int exec_import_from(ce_ctx *c, TSNode n)
{
    char *mod = from_module(c, py_field(n, "module_name"));
    int r = 0;
    ce_module *src = NULL;
    if (is_patchgen_module(mod))
        src = patchgen_api_module(c->ev);
    else if (is_config_module(mod))
        r = load_sibling(c, n, mod, &src);
    ce_iter it;
    TSNode name;
    ce_iter_init(&it, n);
    while (r == 0 && ce_iter_next(&it, &name)) {
        if (ts_node_eq(name, py_field(n, "module_name")))
            continue;
        if (py_is(name, "wildcard_import")) {
            if (src && !strcmp(src->name, "patchgen")) {
                for (size_t i = 0; i < src->ns.len; i++)
                    if (src->ns.entries[i].key)
                        bind_str(c, src->ns.entries[i].key, src->ns.entries[i].value);
            } else if (src) {
                r = ce_unsupported(c, n, "`import *` from a patch config");
            }
            continue;
        }
        TSNode orig = py_is(name, "aliased_import") ? py_field(name, "name") : name;
        TSNode as = py_is(name, "aliased_import") ? py_field(name, "alias") : name;
        char *oname = py_text_dup(c->t, orig);
        ce_value *v = &c->ev->unknown;
        if (src) {
            v = hashmap_get(&src->ns, oname);
            if (!v && !strcmp(src->name, "patchgen"))
                r = ce_unsupported(c, orig,
                                   !strcmp(oname, "Patch")
                                       ? "Patch(...) objects are not supported: register patches "
                                         "with the PatchConfig methods or "
                                         "create_patch_from_external"
                                       : "pgci models PatchConfig, PatchType and "
                                         "create_patch_from_external of patchgen's API");
            else if (!v)
                r = ce_error_at(c, orig, PGCI_ENOTFOUND, "cannot import name '%s' from '%s'", oname,
                                mod);
            else
                v = ce_imported_value(c, v, orig);
        } else {
            /* from pkg import x_patch_gen_config: the module itself */
            char *sub = pgci_asprintf("%s.%s", mod, oname);
            if (is_config_module(sub)) {
                ce_module *m;
                r = load_sibling(c, orig, sub, &m);
                if (r == 0) {
                    v = ce_value_new(c->ev, CE_MODULE);
                    v->u.mod = m;
                }
            }
            free(sub);
        }
        free(oname);
        if (r == 0)
            bind(c, as, v);
    }
    ce_iter_done(&it);
    free(mod);
    return r;
}

static int exec_import(ce_ctx *c, TSNode n)
{
    ce_iter it;
    TSNode name;
    int r = 0;
    ce_iter_init(&it, n);
    while (r == 0 && ce_iter_next(&it, &name)) {
        int aliased = py_is(name, "aliased_import");
        TSNode dotted = aliased ? py_field(name, "name") : name;
        char *mod = py_text_dup(c->t, dotted);
        ce_value *v = &c->ev->unknown;
        if (is_patchgen_module(mod) && (aliased || !strchr(mod, '.'))) {
            v = ce_value_new(c->ev, CE_MODULE);
            v->u.mod = patchgen_api_module(c->ev);
        } else if (is_config_module(mod)) {
            ce_module *m;
            if (!aliased)
                r = ce_unsupported(c, n, "write `import ... as NAME` or `from ... import NAME`");
            else
                r = load_sibling(c, n, mod, &m);
            if (r == 0) {
                v = ce_value_new(c->ev, CE_MODULE);
                v->u.mod = m;
            }
        }
        free(mod);
        if (r < 0)
            break;
        if (aliased) {
            bind(c, py_field(name, "alias"), v);
        } else {
            /* `import a.b.c` binds `a` */
            size_t len;
            const char *s = py_text(c->t, dotted, &len);
            const char *dot = memchr(s, '.', len);
            hashmap_putn(&c->mod->ns, s, dot ? (size_t)(dot - s) : len, v);
        }
    }
    ce_iter_done(&it);
    return r;
}

/* --- the statement dispatcher --------------------------------------------------------------- */

static int exec_statement(ce_ctx *c, TSNode s)
{
    const char *type = ts_node_type(s);
    if (!strcmp(type, "expression_statement"))
        return exec_expression(c, s);
    if (!strcmp(type, "import_from_statement"))
        return exec_import_from(c, s);
    if (!strcmp(type, "import_statement"))
        return exec_import(c, s);
    if (!strcmp(type, "future_import_statement"))
        return 0;
    if (!strcmp(type, "function_definition") || !strcmp(type, "class_definition") ||
        !strcmp(type, "decorated_definition"))
        return exec_definition(c, s);
    if (!strcmp(type, "if_statement"))
        return exec_if(c, s);
    /* loops, try, with, del, augmented assignment...: fine while they keep away from
     * every PatchConfig */
    return skip_unless_touching(c, s);
}

static int exec_block(ce_ctx *c, TSNode block)
{
    ce_iter it;
    TSNode s;
    int r = 0;
    ce_iter_init(&it, block);
    while (r == 0 && ce_iter_next(&it, &s)) {
        c->depth = 0;
        r = exec_statement(c, s);
    }
    ce_iter_done(&it);
    return r;
}

/* --- loading ------------------------------------------------------------------------------------
 */

/* Rejects trees nested deeper than the walkers below are allowed to go. */
static int check_depth(const py_tree *t, const char *rel)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int depth = 0, r = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (depth > CE_MAX_TREE_DEPTH) {
            r = pgci_error_set(PGCI_ELIMIT, "%s:%u:%u: code nested more than %d levels deep", rel,
                               py_line(n), py_col(n), CE_MAX_TREE_DEPTH);
            break;
        }
        if (!pynode_depth_bounded(n, (unsigned)depth, CE_MAX_TREE_DEPTH) &&
            ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (!ts_tree_cursor_goto_parent(&cur))
                goto done;
            depth--;
        }
    }
done:
    ts_tree_cursor_delete(&cur);
    return r;
}

/* Parses the module's text for the evaluator: when an identifier is not NFKC-normal
 * the tree is over a copy with every identifier normalised (Python binds those
 * names), while m->text, which objects copy lines from, keeps the source as written. */
static int module_parse(ce_module *m, py_tree **out)
{
    py_tree *t = pgci_calloc(1, sizeof(*t));
    int r = py_parse(t, m->text, m->text_len, m->rel_path);
    if (r == 0)
        r = check_depth(t, m->rel_path);
    if (r == 0 && ce_check_syntax(t) < 0) {
        /* a clearer reason than a syntax error at the top of the file, when it applies */
        char *msg = pgci_strdup(pgci_error_last());
        r = pysrc_check_indent_width(m->text, m->text_len, m->rel_path);
        if (r == 0)
            r = pgci_error_set(PGCI_EINVALID, "%s", msg);
        free(msg);
    }
    if (r == 0)
        r = pysrc_check_nesting(t);
    if (r == 0)
        r = ce_check_compile(t);
    strbuf norm = STRBUF_INIT;
    int normalized = r == 0 ? pysrc_normalize_identifiers(&norm, t) : 0;
    if (normalized < 0)
        r = normalized;
    m->tree_of_text = normalized == 0;
    if (normalized > 0) {
        py_tree_free(t);
        r = py_parse(t, norm.buf, norm.len, m->rel_path);
        if (r == 0)
            r = py_check_syntax(t);
    }
    strbuf_free(&norm);
    if (r < 0) {
        py_tree_free(t);
        free(t);
        return r;
    }
    *out = t;
    return 0;
}

static int module_run(config_eval *ev, ce_module *m, const char *src, size_t len)
{
    if (len > CE_MAX_FILE_BYTES)
        return pgci_error_set(PGCI_ELIMIT,
                              "%s: %zu bytes is larger than a patch config may be (%u)",
                              m->rel_path, len, CE_MAX_FILE_BYTES);
    /* the text as Python reads it: line breaks translated, the encoding checked */
    strbuf text = STRBUF_INIT;
    int r = pysrc_prepare(&text, src, len, m->rel_path);
    if (r == 0) {
        m->text = arena_strndup(&ev->mem, text.buf, text.len);
        m->text_len = text.len;
    }
    strbuf_free(&text);
    py_tree *t = NULL;
    if (r == 0)
        r = module_parse(m, &t);
    if (r < 0)
        return r;
    m->tree = t;
    ce_ctx c = {ev, m, t, 0, {NULL, 0, NULL}};
    r = exec_block(&c, py_root(t));
    if (r == 0)
        ce_note_changes(m);
    return r;
}

static ce_module *module_new(config_eval *ev, const char *abs_path)
{
    ce_module *m = arena_alloc(&ev->mem, sizeof(*m));
    m->abs_path = arena_strdup(&ev->mem, abs_path);
    const char *rel = path_under(ev->root, abs_path);
    m->rel_path = rel ? arena_strdup(&ev->mem, rel) : m->abs_path;
    m->name = module_name_for(ev, abs_path);
    hashmap_put(&ev->modules, abs_path, m);
    return m;
}

/* Runs a module from src (NULL: read abs_path), caching the result either way. */
static int module_load_src(config_eval *ev, ce_module *importer, const char *abs_path,
                           const char *src, size_t len, ce_module **out)
{
    ce_module *m = hashmap_get(&ev->modules, abs_path);
    if (m) {
        if (m->state == CE_LOADING) /* load_sibling() reports cycles with their place */
            return pgci_error_set(PGCI_EINVALID, "%s: import cycle between patch configs",
                                  m->rel_path);
        if (m->state == CE_FAILED)
            return pgci_error_set(m->err_code, "%s", m->err_msg);
        *out = m;
        return 0;
    }
    if (ev->import_depth >= CE_MAX_IMPORT_DEPTH)
        return pgci_error_set(PGCI_ELIMIT,
                              "%s: sibling configs import each other more than %d deep",
                              importer ? importer->rel_path : abs_path, CE_MAX_IMPORT_DEPTH);
    m = module_new(ev, abs_path);
    m->importer = importer;
    m->state = CE_LOADING;
    ev->import_depth++;
    int r;
    if (src) {
        r = module_run(ev, m, src, len);
    } else {
        strbuf sb = STRBUF_INIT;
        r = fs_read_file(&sb, abs_path, CE_MAX_FILE_BYTES + 1);
        if (r == 0)
            r = module_run(ev, m, sb.buf, sb.len);
        strbuf_free(&sb);
    }
    ev->import_depth--;
    m->importer = NULL;
    if (r < 0) {
        m->state = CE_FAILED;
        m->err_code = r;
        m->err_msg = arena_strdup(&ev->mem, pgci_error_last());
        return r;
    }
    m->state = CE_DONE;
    *out = m;
    return 0;
}

int ce_module_load(config_eval *ev, ce_module *importer, const char *abs_path, ce_module **out)
{
    return module_load_src(ev, importer, abs_path, NULL, 0, out);
}

static int pick_config(config_eval *ev, ce_module *m, const char *var, pg_config **out)
{
    if (!var)
        var = "config";
    ce_value *v = hashmap_get(&m->ns, var);
    if (v && v->kind == CE_CONFIG)
        return ce_finalize(m, var, v->u.cfg, out);
    if (v)
        return pgci_error_set(PGCI_ENOTFOUND, "%s: '%s' is not a PatchConfig", m->rel_path, var);
    strbuf names = STRBUF_INIT;
    for (size_t i = 0; i < m->ns.len; i++) {
        ce_value *x = m->ns.entries[i].value;
        if (m->ns.entries[i].key && x && x->kind == CE_CONFIG)
            strbuf_addf(&names, "%s%s", names.len ? ", " : "", m->ns.entries[i].key);
    }
    int r =
        pgci_error_set(PGCI_ENOTFOUND, "%s: no PatchConfig named '%s'%s%s%s", m->rel_path, var,
                       names.len ? " (PatchConfigs here: " : "", names.buf, names.len ? ")" : "");
    strbuf_free(&names);
    return r;
}

static char *absolute_path(config_eval *ev, const char *path)
{
    strbuf sb = STRBUF_INIT;
    if (path[0] == '/' || !ev->root)
        strbuf_adds(&sb, path);
    else
        fs_join(&sb, ev->root, path);
    char *r = real_or_copy(&ev->mem, sb.buf);
    strbuf_free(&sb);
    return r;
}

int config_eval_file(config_eval *ev, const char *path, const char *var_name, pg_config **out)
{
    *out = NULL;
    char *abs = absolute_path(ev, path);
    ce_module *m;
    ev->steps = 0;
    ev->over_budget = 0;
    int r = module_load_src(ev, NULL, abs, NULL, 0, &m);
    if (r == 0)
        r = ce_check_shared(ev, m);
    return r < 0 ? r : pick_config(ev, m, var_name, out);
}

int config_eval_buffer(config_eval *ev, const char *path, const char *src, size_t len,
                       const char *var_name, pg_config **out)
{
    *out = NULL;
    char *abs = absolute_path(ev, path);
    ce_module *m;
    ev->steps = 0;
    ev->over_budget = 0;
    int r = module_load_src(ev, NULL, abs, src, len, &m);
    if (r == 0)
        r = ce_check_shared(ev, m);
    return r < 0 ? r : pick_config(ev, m, var_name, out);
}

const char *ce_object_wrapped(config_eval *ev, const pg_object *obj, unsigned *line)
{
    char key[32];
    snprintf(key, sizeof(key), "%p", (const void *)obj);
    ce_def *d = hashmap_get(&ev->defs, key);
    if (!d || !d->wrapped_by)
        return NULL;
    *line = d->wrapped_line;
    return d->wrapped_by;
}

/* --- many configs on worker threads -------------------------------------------------------- */

typedef struct eval_all {
    const workspace *ws;
    const ws_config *const *configs;
    const char *var_name;
    config_eval **evs; /* per worker, made on its first config */
    pg_config **cfgs;
    int *rcs;
    char **whys;
    double *ms;
    size_t *order;  /* the configs, those of one package next to each other */
    size_t *starts; /* batch b is order[starts[b] .. starts[b + 1]) */
} eval_all;

static void eval_all_one(eval_all *a, size_t worker, size_t i)
{
    double t0 = now_ms();
    int r = a->evs[worker] ? 0 : config_eval_new(&a->evs[worker], a->ws);
    if (r == 0)
        r = config_eval_file(a->evs[worker], a->configs[i]->abs_path, a->var_name, &a->cfgs[i]);
    a->rcs[i] = r < 0 ? r : 0;
    if (r < 0) {
        a->cfgs[i] = NULL;
        a->whys[i] = pgci_strdup(pgci_error_last());
        pgci_error_clear();
    }
    if (a->ms)
        a->ms[i] = now_ms() - t0;
}

static void eval_all_batch(void *arg, size_t worker, size_t b)
{
    eval_all *a = arg;
    for (size_t k = a->starts[b]; k < a->starts[b + 1]; k++)
        eval_all_one(a, worker, a->order[k]);
}

/* Union-find over the configs: the root of i's group. */
static size_t group_of(size_t *up, size_t i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

static void group_join(size_t *up, size_t i, size_t j)
{
    i = group_of(up, i);
    j = group_of(up, j);
    if (i != j)
        up[i > j ? i : j] = i < j ? i : j; /* the earlier config is the root */
}

/* Joins config i with the configs its text names as modules: every dotted name in
 * it that ends in a config's module name ("from pkg.qwen3_vl_gpu_patch_gen_config
 * import ..."). Only a schedule hint: reading too much or too little changes which
 * worker evaluates what, never the result. */
static void join_imported(const ws_config *const *configs, size_t i, const hashmap *by_name,
                          size_t *up, size_t *bytes)
{
    strbuf text = STRBUF_INIT;
    if (fs_read_file(&text, configs[i]->abs_path, 0) < 0) {
        pgci_error_clear();
        strbuf_free(&text);
        return;
    }
    bytes[i] = text.len;
    const char *p = text.buf, *end = text.buf + text.len;
    while (p < end) {
        const char *hit = memmem(p, (size_t)(end - p), "_patch_gen_config", 17);
        if (!hit)
            break;
        /* the identifier that ends there: the module's last dotted part */
        const char *z = hit + 17, *stem = hit;
        while (stem > text.buf && (stem[-1] == '_' || (stem[-1] >= '0' && stem[-1] <= '9') ||
                                   ((stem[-1] | 0x20) >= 'a' && (stem[-1] | 0x20) <= 'z')))
            stem--;
        void *j = hashmap_getn(by_name, stem, (size_t)(z - stem));
        if (j)
            group_join(up, i, (size_t)(intptr_t)j - 1);
        p = z;
    }
    strbuf_free(&text);
}

/* The configs in batches for the workers: those of one group together, in their
 * order, at most `cap` to a batch, the largest batches first. A config imports its
 * package's other configs (an NPU config its GPU sibling) and sometimes another
 * package's (qwen3_vl_moe's the qwen3_vl one), and an evaluator loads an import
 * once: on two workers the imported config would be evaluated twice. So a group is
 * a package's configs and every config they import, transitively. Returns the
 * batches. */
static size_t eval_batches(const ws_config *const *configs, size_t n, size_t cap, size_t *order,
                           size_t *starts)
{
    size_t *up = pgci_calloc(n ? n : 1, sizeof(*up)), *bytes = pgci_calloc(n ? n : 1, sizeof(*up));
    hashmap by_name = {0};
    for (size_t i = 0; i < n; i++) {
        up[i] = i;
        if (configs[i]->name && !hashmap_get(&by_name, configs[i]->name))
            hashmap_put(&by_name, configs[i]->name, (void *)(intptr_t)(i + 1));
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(configs[j]->dir ? configs[j]->dir : "",
                        configs[i]->dir ? configs[i]->dir : ""))
                group_join(up, i, j);
    for (size_t i = 0; i < n; i++)
        join_imported(configs, i, &by_name, up, bytes);
    hashmap_free(&by_name);
    size_t *sorted = pgci_calloc(n ? n : 1, sizeof(*sorted)),
           *cut = pgci_calloc(n + 1, sizeof(*cut));
    size_t nb = 0, k = 0;
    for (size_t g = 0; g < n; g++) { /* each group, in the order of its first config */
        if (group_of(up, g) != g)
            continue;
        size_t in_batch = 0;
        cut[nb++] = k;
        for (size_t i = g; i < n; i++) {
            if (group_of(up, i) != g)
                continue;
            if (in_batch == cap) {
                cut[nb++] = k;
                in_batch = 0;
            }
            sorted[k++] = i;
            in_batch++;
        }
    }
    cut[nb] = k;
    /* the largest batches first, so that none starts last and keeps the others
     * waiting (stable: equal ones keep their order) */
    size_t *size = pgci_calloc(nb + 1, sizeof(*size)), *rank = pgci_calloc(nb + 1, sizeof(*rank));
    for (size_t b = 0; b < nb; b++) {
        rank[b] = b;
        for (size_t x = cut[b]; x < cut[b + 1]; x++)
            size[b] += bytes[sorted[x]];
    }
    for (size_t b = 1; b < nb; b++)
        for (size_t x = b; x > 0 && size[rank[x - 1]] < size[rank[x]]; x--) {
            size_t t = rank[x];
            rank[x] = rank[x - 1];
            rank[x - 1] = t;
        }
    k = 0;
    for (size_t b = 0; b < nb; b++) {
        starts[b] = k;
        for (size_t x = cut[rank[b]]; x < cut[rank[b] + 1]; x++)
            order[k++] = sorted[x];
    }
    starts[nb] = k;
    free(size);
    free(rank);
    free(sorted);
    free(cut);
    free(up);
    free(bytes);
    return nb;
}

void config_eval_all(const workspace *ws, const ws_config *const *configs, size_t n,
                     const char *var_name, int jobs, pg_config **cfgs, int *rcs, char **whys,
                     double *ms)
{
    size_t nw = par_workers(n, jobs);
    eval_all a = {.ws = ws,
                  .configs = configs,
                  .var_name = var_name,
                  .evs = pgci_calloc(nw, sizeof(config_eval *)),
                  .cfgs = cfgs,
                  .rcs = rcs,
                  .whys = whys,
                  .ms = ms};
    a.order = pgci_calloc(n ? n : 1, sizeof(*a.order));
    a.starts = pgci_calloc(n + 1, sizeof(*a.starts));
    /* no batch so large that one package keeps the other workers idle */
    size_t nb = eval_batches(configs, n, (n + nw - 1) / nw, a.order, a.starts);
    par_for(nb, jobs, eval_all_batch, &a);
    for (size_t w = 0; w < nw; w++)
        config_eval_free(a.evs[w]);
    free(a.evs);
    free(a.order);
    free(a.starts);
}
