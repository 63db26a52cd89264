/*
 * protocol-registration: each model package's __init__.py registers the model
 * the way the workspace's loader expects.
 *
 * Read statically from one tree-sitter parse of __init__.py (the functions the
 * registry decorates, and module-level imports; a package registering two model
 * types is read at once):
 *   - `@MODELING_REGISTRY.register("<model_type>")` decorators;
 *   - where classes come from: `from .generated.<stem> import A, B`,
 *     `from .generated import <stem> as gen` with `A = gen.A`, and
 *     `from transformers... import A` (upstream: allowed only for a class the
 *     config excludes from its generated file, or one its source module does not
 *     define, such as PreTrainedModel);
 *   - whether those imports sit under `if IS_NPU_AVAILABLE:` (or `elif`) / `else:`
 *     (the NPU module must be imported under the flag, the GPU module not under it);
 *   - `X.<converter_attr> = staticmethod(f)`, directly or in a
 *     `for cls in (A, B): cls.<attr> = ...` loop;
 *   - `return X` statements: the classes the registry hands to the loader.
 * The loader calls the converter on the class, so a plain function assigned
 * without staticmethod() would be bound as a method: that is an error too.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "py/pystr.h"

/* Where an import sits relative to the device-flag branch. */
enum { BR_NONE = 0, BR_NPU = 1, BR_GPU = 2 };

typedef struct gen_name {
    char *name; /* class name bound in __init__ */
    char *stem; /* generated module stem it comes from */
    unsigned line;
} gen_name;

typedef struct mod_ref {
    char *stem;
    unsigned line;
    int branch;
} mod_ref;

typedef struct up_import {
    char *name, *module;
    unsigned line;
} up_import;

typedef struct attach {
    char *name;
    unsigned line;
    int is_static;
} attach;

typedef struct reg_model {
    VEC(char *) types; /* registered model types */
    VEC(unsigned) type_lines;
    VEC(gen_name) gen;
    VEC(mod_ref) mods;
    VEC(up_import) up;
    VEC(attach) attached;
    VEC(gen_name) returned; /* name + line (stem unused) */
    VEC(gen_name) aliases;  /* module alias -> stem ("gen" -> patched_modeling_x) */
} reg_model;

typedef struct walker {
    const py_tree *t;
    const proto_settings *s;
    reg_model *m;
    int in_registered; /* inside a function the registry decorator registers */
    const char *tag;   /* the tag the check runs at: a version test's dead branch is skipped */
} walker;

static char *text(const walker *w, TSNode n)
{
    return py_text_dup(w->t, n);
}

/* ".generated.patched_x" -> "patched_x"; ".generated" -> "" ; else NULL */
static char *generated_stem(const char *module)
{
    if (!strcmp(module, ".generated"))
        return pgci_strdup("");
    if (pgci_starts_with(module, ".generated."))
        return pgci_strdup(module + strlen(".generated."));
    return NULL;
}

static int is_upstream(const walker *w, const char *module)
{
    size_t n = strlen(w->s->upstream_package);
    return !strncmp(module, w->s->upstream_package, n) && (module[n] == 0 || module[n] == '.');
}

/* 1 when the decorator is @<registry>.register(...): records the model type. */
static int on_decorator(walker *w, TSNode dec)
{
    TSNode call = ts_node_named_child(dec, 0);
    if (ts_node_is_null(call) || !py_is(call, "call"))
        return 0;
    TSNode fn = py_field(call, "function");
    if (!py_is(fn, "attribute"))
        return 0;
    TSNode obj = py_field(fn, "object"), attr = py_field(fn, "attribute");
    if (!py_text_eq(w->t, obj, w->s->registry) || !py_text_eq(w->t, attr, "register"))
        return 0;
    TSNode args = py_field(call, "arguments");
    TSNode a0 = ts_node_named_child(args, 0);
    strbuf v = STRBUF_INIT;
    if (!ts_node_is_null(a0) && (py_is(a0, "string") || py_is(a0, "concatenated_string")) &&
        pystr_decode_node(&v, w->t, a0) == 0) {
        VEC_PUSH(&w->m->types, strbuf_detach(&v, NULL));
    } else {
        pgci_error_clear();
        VEC_PUSH(&w->m->types, pgci_strdup("?"));
    }
    strbuf_free(&v);
    VEC_PUSH(&w->m->type_lines, py_line(dec));
    return 1;
}

static void on_import_from(walker *w, TSNode n, int branch)
{
    TSNode mod = py_field(n, "module_name");
    char *module = text(w, mod);
    char *stem = generated_stem(module);
    unsigned line = py_line(n);
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ts_node_eq(c, mod))
            continue;
        TSNode name = c, alias = {0};
        if (py_is(c, "aliased_import")) {
            name = py_field(c, "name");
            alias = py_field(c, "alias");
        } else if (!py_is(c, "dotted_name")) {
            continue;
        }
        char *nm = text(w, name);
        char *bound = ts_node_is_null(alias) ? pgci_strdup(nm) : text(w, alias);
        if (stem && stem[0]) {
            gen_name g = {bound, pgci_strdup(stem), py_line(c)};
            VEC_PUSH(&w->m->gen, g);
            bound = NULL;
        } else if (stem) {
            /* from .generated import patched_x [as gen] */
            mod_ref r = {pgci_strdup(nm), line, branch};
            VEC_PUSH(&w->m->mods, r);
            gen_name a = {bound, pgci_strdup(nm), line};
            VEC_PUSH(&w->m->aliases, a);
            bound = NULL;
        } else if (is_upstream(w, module) && nm[0] >= 'A' && nm[0] <= 'Z') {
            up_import u = {pgci_strdup(nm), pgci_strdup(module), py_line(c)};
            VEC_PUSH(&w->m->up, u);
        }
        free(bound);
        free(nm);
    }
    if (stem && stem[0]) {
        mod_ref r = {pgci_strdup(stem), line, branch};
        VEC_PUSH(&w->m->mods, r);
    }
    free(stem);
    free(module);
}

static const char *alias_stem(const walker *w, const char *alias)
{
    for (size_t i = 0; i < w->m->aliases.len; i++)
        if (!strcmp(w->m->aliases.items[i].name, alias))
            return w->m->aliases.items[i].stem;
    return NULL;
}

static void push_attach(walker *w, const char *name, unsigned line, int is_static)
{
    attach a = {pgci_strdup(name), line, is_static};
    VEC_PUSH(&w->m->attached, a);
}

/* `lhs = rhs`: A = gen.A, or X.attr = staticmethod(f) (loop_names: the names a
 * loop variable stands for). */
static void on_assignment(walker *w, TSNode as, const char *loop_var, char **loop_names,
                          size_t n_loop)
{
    TSNode lhs = py_field(as, "left"), rhs = py_field(as, "right");
    if (ts_node_is_null(lhs) || ts_node_is_null(rhs))
        return;
    if (py_is(lhs, "identifier") && py_is(rhs, "attribute")) {
        char *obj = text(w, py_field(rhs, "object"));
        const char *stem = alias_stem(w, obj);
        if (stem) {
            gen_name g = {text(w, lhs), pgci_strdup(stem), py_line(as)};
            VEC_PUSH(&w->m->gen, g);
        }
        free(obj);
        return;
    }
    if (!py_is(lhs, "attribute") ||
        !py_text_eq(w->t, py_field(lhs, "attribute"), w->s->converter_attr))
        return;
    int is_static =
        py_is(rhs, "call") && py_text_eq(w->t, py_field(rhs, "function"), "staticmethod");
    char *obj = text(w, py_field(lhs, "object"));
    if (loop_var && !strcmp(obj, loop_var)) {
        for (size_t i = 0; i < n_loop; i++)
            push_attach(w, loop_names[i], py_line(as), is_static);
    } else {
        push_attach(w, obj, py_line(as), is_static);
    }
    free(obj);
}

static int flag_branch(const walker *w, TSNode cond, int *negated)
{
    *negated = 0;
    if (py_is(cond, "not_operator")) {
        *negated = 1;
        cond = py_field(cond, "argument");
    }
    return py_text_eq(w->t, cond, w->s->device_flag);
}

static void walk(walker *w, TSNode n, int branch, const char *loop_var, char **loop_names,
                 size_t n_loop);

static void walk_children(walker *w, TSNode n, int branch, const char *loop_var, char **loop_names,
                          size_t n_loop)
{
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++)
        walk(w, ts_node_named_child(n, i), branch, loop_var, loop_names, n_loop);
}

static void walk(walker *w, TSNode n, int branch, const char *loop_var, char **loop_names,
                 size_t n_loop)
{
    if (py_is(n, "decorated_definition")) {
        int reg = 0;
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (py_is(c, "decorator"))
                reg |= on_decorator(w, c);
        }
        int saved = w->in_registered;
        w->in_registered |= reg;
        walk(w, py_field(n, "definition"), branch, loop_var, loop_names, n_loop);
        w->in_registered = saved;
        return;
    }
    if (py_is(n, "if_statement") && ts_node_named_child_count(n) <= 64) {
        /* `if is_transformers_version_greater_or_equal_to("5.0.0"): ... else: ...`
         * (and `elif`s): only the branch that runs at the tag is the package's
         * modeling */
        TSNode on, off[64];
        size_t n_off;
        if (proto_gate_branches(w->t, n, w->tag, &on, off, &n_off)) {
            if (!ts_node_is_null(on))
                walk(w, on, branch, loop_var, loop_names, n_loop);
            return;
        }
    }
    if (!w->in_registered) {
        /* outside the registered functions only module-level imports count (a
         * package may import its generated module once at the top); the bodies of
         * other functions (a config registry, helpers) are not the modeling's */
        if (py_is(n, "function_definition") || py_is(n, "class_definition"))
            return;
        if (py_is(n, "import_from_statement")) {
            on_import_from(w, n, branch);
            return;
        }
        walk_children(w, n, branch, loop_var, loop_names, n_loop);
        return;
    }
    if (py_is(n, "import_from_statement")) {
        on_import_from(w, n, branch);
        return;
    }
    if (py_is(n, "assignment")) {
        on_assignment(w, n, loop_var, loop_names, n_loop);
        return;
    }
    if (py_is(n, "return_statement")) {
        TSNode v = ts_node_named_child(n, 0);
        if (!ts_node_is_null(v) && py_is(v, "identifier")) {
            gen_name g = {text(w, v), NULL, py_line(n)};
            VEC_PUSH(&w->m->returned, g);
        }
        return;
    }
    if (py_is(n, "if_statement")) {
        /* The clause tested on the flag may be the `if` or an `elif` (`if
         * IS_CUDA_AVAILABLE: <gpu> elif IS_NPU_AVAILABLE: <npu>`): the clauses
         * before it keep the outer branch, the `else` after it is the other device,
         * and an `elif` after it is neither. */
        int neg = 0, found = flag_branch(w, py_field(n, "condition"), &neg);
        walk(w, py_field(n, "consequence"), found ? (neg ? BR_GPU : BR_NPU) : branch, loop_var,
             loop_names, n_loop);
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (py_is(c, "elif_clause")) {
                if (found) {
                    walk(w, c, BR_NONE, loop_var, loop_names, n_loop);
                } else if (flag_branch(w, py_field(c, "condition"), &neg)) {
                    found = 1;
                    walk(w, py_field(c, "consequence"), neg ? BR_GPU : BR_NPU, loop_var, loop_names,
                         n_loop);
                } else {
                    walk(w, c, branch, loop_var, loop_names, n_loop);
                }
            } else if (py_is(c, "else_clause")) {
                walk(w, c, found ? (neg ? BR_NPU : BR_GPU) : branch, loop_var, loop_names, n_loop);
            }
        }
        return;
    }
    if (py_is(n, "for_statement")) {
        TSNode left = py_field(n, "left"), right = py_field(n, "right");
        if (py_is(left, "identifier") && (py_is(right, "tuple") || py_is(right, "list"))) {
            char *var = text(w, left);
            uint32_t cnt = ts_node_named_child_count(right);
            char **names = pgci_calloc(cnt ? cnt : 1, sizeof(char *));
            size_t k = 0;
            for (uint32_t i = 0; i < cnt; i++) {
                TSNode e = ts_node_named_child(right, i);
                if (py_is(e, "identifier"))
                    names[k++] = text(w, e);
            }
            walk(w, py_field(n, "body"), branch, var, names, k);
            for (size_t i = 0; i < k; i++)
                free(names[i]);
            free(names);
            free(var);
            return;
        }
    }
    walk_children(w, n, branch, loop_var, loop_names, n_loop);
}

static void gen_names_free(gen_name *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(g[i].name);
        free(g[i].stem);
    }
}

static void reg_model_free(reg_model *m)
{
    for (size_t i = 0; i < m->types.len; i++)
        free(m->types.items[i]);
    VEC_FREE(&m->types);
    VEC_FREE(&m->type_lines);
    gen_names_free(m->gen.items, m->gen.len);
    VEC_FREE(&m->gen);
    gen_names_free(m->returned.items, m->returned.len);
    VEC_FREE(&m->returned);
    gen_names_free(m->aliases.items, m->aliases.len);
    VEC_FREE(&m->aliases);
    for (size_t i = 0; i < m->mods.len; i++)
        free(m->mods.items[i].stem);
    VEC_FREE(&m->mods);
    for (size_t i = 0; i < m->up.len; i++) {
        free(m->up.items[i].name);
        free(m->up.items[i].module);
    }
    VEC_FREE(&m->up);
    for (size_t i = 0; i < m->attached.len; i++)
        free(m->attached.items[i].name);
    VEC_FREE(&m->attached);
}

/* ---- the rules over one package ------------------------------------------- */

static const mod_ref *find_mod(const reg_model *m, const char *stem)
{
    for (size_t i = 0; i < m->mods.len; i++)
        if (!strcmp(m->mods.items[i].stem, stem))
            return &m->mods.items[i];
    return NULL;
}

static int excluded(const proto_package *p, const char *name)
{
    for (size_t i = 0; i < p->inputs.len; i++) {
        const pg_config *c = p->inputs.items[i]->cfg;
        for (size_t k = 0; c && k < c->exclude.len; k++)
            if (!strcmp(c->exclude.items[k], name))
                return 1;
    }
    return 0;
}

/* 1 when text defines `class name` at column 0. */
static int defines_class(const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; text && i + 6 + n < len; i++) {
        if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "class ", 6) &&
            !memcmp(text + i + 6, name, n) && (text[i + 6 + n] == '(' || text[i + 6 + n] == ':'))
            return 1;
    }
    return 0;
}

/* 1 when one of the package's source modules (upstream at the tag, or the
 * checked-in generated file) defines the class: only such a class has a
 * generated twin to import instead. */
static int modeling_class(const proto_package *p, const char *name)
{
    for (size_t i = 0; i < p->inputs.len; i++) {
        const check_input *in = p->inputs.items[i];
        if (defines_class(in->upstream, in->upstream_len, name) ||
            defines_class(in->checked_py, in->checked_py_len, name))
            return 1;
    }
    return 0;
}

/* decorator: the package registers its model type */
static void check_decorator(const proto_settings *s, const proto_package *p, const reg_model *m,
                            const char *rel, findings *out)
{
    const char *cfgname = p->inputs.items[0]->module;
    if (m->types.len == 0) {
        proto_add(out, s, "registration.decorator", cfgname, rel, 1,
                  "no @%s.register(\"%s\") in the model package's __init__.py", s->registry,
                  p->model);
    } else {
        int match = 0;
        for (size_t i = 0; i < m->types.len; i++)
            match |= pgci_starts_with(m->types.items[i], p->model);
        if (!match)
            proto_add(out, s, "registration.decorator", cfgname, rel, m->type_lines.items[0],
                      "registers \"%s\", not the model type of %s configs (\"%s\")",
                      m->types.items[0], p->model, p->model);
    }
}

/* import: every GPU (non-NPU) target is imported; no stray generated module. Returns
 * 1 when the package has an NPU config. */
static int check_imports(const proto_settings *s, const proto_package *p, const reg_model *m,
                         const char *rel, findings *out)
{
    const char *cfgname = p->inputs.items[0]->module;
    unsigned anchor = m->type_lines.len ? m->type_lines.items[0] : 1;
    int has_npu = 0;
    for (size_t i = 0; i < p->inputs.len; i++) {
        const check_input *in = p->inputs.items[i];
        char *stem = proto_target_stem(in);
        if (!stem)
            continue;
        if (proto_is_npu(in->config_path, s)) {
            has_npu = 1;
        } else if (m->types.len && !find_mod(m, stem)) {
            proto_add(out, s, "registration.import", in->module, rel, anchor,
                      "the registered classes do not come from .generated.%s (what %s generates)",
                      stem, in->config_path);
        }
        free(stem);
    }
    int all_known = 1;
    for (size_t k = 0; k < p->inputs.len; k++) {
        char *stem = proto_target_stem(p->inputs.items[k]);
        all_known &= stem != NULL;
        free(stem);
    }
    for (size_t i = 0; all_known && i < m->mods.len; i++) {
        int known = 0;
        for (size_t k = 0; k < p->inputs.len && !known; k++) {
            char *stem = proto_target_stem(p->inputs.items[k]);
            known = stem && !strcmp(stem, m->mods.items[i].stem);
            free(stem);
        }
        if (!known)
            proto_add(out, s, "registration.import", cfgname, rel, m->mods.items[i].line,
                      "imports .generated.%s, which no config in %s generates",
                      m->mods.items[i].stem, p->dir);
    }
    for (size_t i = 0; i < m->up.len; i++) {
        const up_import *u = &m->up.items[i];
        if (excluded(p, u->name) || !modeling_class(p, u->name))
            continue;
        proto_add(out, s, "registration.import", cfgname, rel, u->line,
                  "imports %s from %s instead of the generated module (it is not excluded from the "
                  "generated file)",
                  u->name, u->module);
    }

    return has_npu;
}

/* npu-branch: NPU modules under `if <device flag>:`, GPU ones not */
static void check_npu_branch(const proto_settings *s, const proto_package *p, const reg_model *m,
                             const char *rel, findings *out)
{
    unsigned anchor = m->type_lines.len ? m->type_lines.items[0] : 1;
    if (m->types.len) {
        for (size_t i = 0; i < p->inputs.len; i++) {
            const check_input *in = p->inputs.items[i];
            char *stem = proto_target_stem(in);
            if (!stem)
                continue;
            int npu = proto_is_npu(in->config_path, s);
            const mod_ref *r = find_mod(m, stem);
            if (!r && npu)
                proto_add(out, s, "registration.npu-branch", in->module, rel, anchor,
                          "%s has an NPU config but never imports .generated.%s under `if %s:`",
                          p->dir, stem, s->device_flag);
            else if (r && npu && r->branch != BR_NPU)
                proto_add(out, s, "registration.npu-branch", in->module, rel, r->line,
                          "imports .generated.%s %s: the NPU module belongs under `if %s:`", stem,
                          r->branch == BR_NONE ? "unconditionally" : "in the GPU branch",
                          s->device_flag);
            else if (r && !npu && r->branch == BR_NPU)
                proto_add(out, s, "registration.npu-branch", in->module, rel, r->line,
                          "imports the GPU module .generated.%s under `if %s:`", stem,
                          s->device_flag);
            free(stem);
        }
    }
}

/* converter: what the converter file returns is attached as a staticmethod */
static void check_converter(const check_ctx *ctx, const proto_settings *s, const proto_package *p,
                            const reg_model *m, const char *rel, findings *out)
{
    const char *cfgname = p->inputs.items[0]->module;
    strbuf conv = STRBUF_INIT;
    fs_join(&conv, p->dir, s->converter_file);
    if (proto_exists(ctx->ws, conv.buf)) {
        for (size_t i = 0; i < m->attached.len; i++)
            if (!m->attached.items[i].is_static)
                proto_add(out, s, "registration.converter", cfgname, rel, m->attached.items[i].line,
                          "%s.%s is assigned without staticmethod(): the loader would call it "
                          "bound to the class",
                          m->attached.items[i].name, s->converter_attr);
        for (size_t i = 0; i < m->returned.len; i++) {
            const char *name = m->returned.items[i].name;
            int generated = 0, seen = 0;
            for (size_t k = 0; k < m->gen.len; k++)
                generated |= !strcmp(m->gen.items[k].name, name);
            for (size_t k = 0; k < i; k++)
                seen |= !strcmp(m->returned.items[k].name, name);
            if (!generated || seen)
                continue;
            int has = 0;
            for (size_t k = 0; k < m->attached.len; k++)
                has |= !strcmp(m->attached.items[k].name, name);
            if (!has)
                proto_add(out, s, "registration.converter", cfgname, rel, m->returned.items[i].line,
                          "returns %s without %s = staticmethod(...) although %s exists", name,
                          s->converter_attr, conv.buf);
        }
    }
    strbuf_free(&conv);
}

static void check_package(const check_ctx *ctx, const proto_settings *s, const proto_package *p,
                          findings *out)
{
    const check_input *first = p->inputs.items[0];
    const char *cfgname = first->module;
    strbuf rel = STRBUF_INIT, src = STRBUF_INIT;
    fs_join(&rel, p->dir, "__init__.py");
    if (proto_read(ctx->ws, rel.buf, &src) < 0) {
        proto_add(out, s, "registration.decorator", cfgname, rel.buf, 0,
                  "%s has patch configs but no __init__.py registering the model with %s", p->dir,
                  s->registry);
        goto done;
    }
    py_tree t;
    if (proto_parse(ctx, &src, rel.buf, &t) < 0)
        goto done;
    reg_model m;
    memset(&m, 0, sizeof(m));
    walker w = {&t, s, &m, 0, ctx->tag};
    walk(&w, py_root(&t), BR_NONE, NULL, NULL, 0);

    check_decorator(s, p, &m, rel.buf, out);
    if (check_imports(s, p, &m, rel.buf, out))
        check_npu_branch(s, p, &m, rel.buf, out);
    check_converter(ctx, s, p, &m, rel.buf, out);
    reg_model_free(&m);
    proto_tree_free(ctx, &t);
done:
    strbuf_free(&rel);
    strbuf_free(&src);
}

static int run_registration(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    (void)why;
    proto_packages ps;
    proto_packages_build(&ps, ctx, s);
    for (size_t i = 0; i < ps.len; i++)
        check_package(ctx, s, &ps.items[i], out);
    proto_packages_free(&ps);
    return CHECK_RAN;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_registration);
}

const check_def check_protocol_registration = {
    .id = "protocol-registration",
    .summary = "model packages register their generated classes as the protocol says",
    .run = run};
