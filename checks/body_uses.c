/*
 * Passes over a patch body's syntax tree: the first collects every name the body
 * binds (parameters, assignment and loop targets, imports, nested defs, `as`
 * names, comprehension variables) and which of them it binds more than once; the
 * second the locals bound once to something a call can be followed through (a
 * free name, a choice of two, a dict literal of keyword arguments); the last
 * every name the body reads that it does not bind, every `self.m(...)` /
 * `cls.m(...)` call and every call of a free name, with their shapes.
 */
#include "checks/body_uses.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/codegen_source.h"
#include "py/py.h"
#include "py/pynode.h"

/* The names a body binds, and those it binds more than once. */
typedef struct binds {
    strvec names;
    strvec twice;
} binds;

static void push_unique(binds *b, const py_tree *t, TSNode n)
{
    char *s = py_text_dup(t, n);
    if (strvec_find(&b->names, s) < 0)
        strvec_push_owned(&b->names, s);
    else if (strvec_find(&b->twice, s) < 0)
        strvec_push_owned(&b->twice, s);
    else
        free(s);
}

/* Every identifier under n that a binding construct binds: the node itself or the
 * names of a tuple/list pattern, never the parts of an attribute or subscript. */
static void bind_target(binds *bound, const py_tree *t, TSNode n)
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
static void bind_params(binds *bound, const py_tree *t, TSNode params)
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

static void collect_bound(binds *bound, const py_tree *t, TSNode n)
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

/* ---- locals a call can be followed through --------------------------------------- */

/* A local bound once: to free names it may stand for (`fn = a if c else b`), or to
 * a dict literal whose keys are plain strings (`kw = {"a": 1}`), splatted into
 * calls and named nowhere else (uses counts every occurrence of the name, splats
 * its `**kw`). */
typedef struct local_ref {
    char *name;
    strvec names;    /* what `fn` may be */
    strvec keys;     /* what `**kw` passes; dict when is_dict */
    char *container; /* a loop variable over self.<container>: the attribute */
    int is_dict;
    int is_ns; /* bound to SimpleNamespace(...): keys holds its keywords */
    unsigned uses, splats;
} local_ref;

typedef struct walk {
    body_uses *u;
    const binds *bound;
    const py_tree *t;
    local_ref *refs;
    size_t n_refs;
    unsigned row0; /* the body's first row in t: lines count from it */
} walk;

static local_ref *find_ref(const walk *w, const py_tree *t, TSNode n)
{
    for (size_t i = 0; i < w->n_refs; i++)
        if (py_text_eq(t, n, w->refs[i].name))
            return &w->refs[i];
    return NULL;
}

/* The text of a plain string literal ("x" or 'x', no prefix, no escape), malloc'ed;
 * NULL for anything else. */
static char *plain_string(const py_tree *t, TSNode n)
{
    if (!py_is(n, "string"))
        return NULL;
    size_t len;
    const char *s = py_text(t, n, &len);
    if (len < 2 || (s[0] != '"' && s[0] != '\'') || s[len - 1] != s[0] ||
        (len >= 6 && s[1] == s[0] && s[2] == s[0])) /* a triple-quoted string */
        return NULL;
    if (memchr(s, '\\', len) || memchr(s + 1, s[0], len - 2))
        return NULL;
    return pgci_strndup(s + 1, len - 2);
}

static int dict_keys(strvec *keys, const py_tree *t, TSNode dict)
{
    uint32_t k = ts_node_named_child_count(dict);
    for (uint32_t i = 0; i < k; i++) {
        TSNode pair = ts_node_named_child(dict, i);
        if (py_is(pair, "comment"))
            continue;
        char *key = py_is(pair, "pair") ? plain_string(t, py_field(pair, "key")) : NULL;
        if (!key)
            return -1;
        strvec_push_owned(keys, key);
    }
    return 0;
}

/* `SimpleNamespace(a=..., b=...)` (or `types.SimpleNamespace`): its keywords. */
static int namespace_keys(strvec *keys, const py_tree *t, TSNode call)
{
    TSNode fn = py_field(call, "function"), args = py_field(call, "arguments");
    if (!py_text_eq(t, fn, "SimpleNamespace") && !py_text_eq(t, fn, "types.SimpleNamespace"))
        return -1;
    uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (py_is(a, "comment"))
            continue;
        if (!py_is(a, "keyword_argument") || !pynode_is_real(py_field(a, "name")))
            return -1;
        strvec_push_owned(keys, py_text_dup(t, py_field(a, "name")));
    }
    return 0;
}

/* `name = value` where name is bound once and value is a free name, a conditional
 * choice of two free names, or a dict literal of plain-string keys. */
static void read_local(walk *w, TSNode n)
{
    TSNode left = py_field(n, "left"), right = py_field(n, "right");
    if (!py_is(left, "identifier") || ts_node_is_null(right) ||
        !ts_node_is_null(py_field(n, "type")))
        return;
    char *name = py_text_dup(w->t, left);
    local_ref r = {name, STRVEC_INIT, STRVEC_INIT, NULL, 0, 0, 0, 0};
    int ok = strvec_find(&w->bound->twice, name) < 0;
    if (ok && py_is(right, "dictionary")) {
        r.is_dict = 1;
        ok = dict_keys(&r.keys, w->t, right) == 0;
    } else if (ok && py_is(right, "call")) {
        r.is_ns = 1;
        ok = namespace_keys(&r.keys, w->t, right) == 0;
    } else if (ok && py_is(right, "identifier")) {
        strvec_push_owned(&r.names, py_text_dup(w->t, right));
    } else if (ok && py_is(right, "conditional_expression") &&
               ts_node_named_child_count(right) == 3 &&
               py_is(ts_node_named_child(right, 0), "identifier") &&
               py_is(ts_node_named_child(right, 2), "identifier")) {
        strvec_push_owned(&r.names, py_text_dup(w->t, ts_node_named_child(right, 0)));
        strvec_push_owned(&r.names, py_text_dup(w->t, ts_node_named_child(right, 2)));
    } else {
        ok = 0;
    }
    for (size_t i = 0; ok && i < r.names.len; i++)
        ok = strvec_find(&w->bound->names, r.names.items[i]) < 0;
    if (!ok) {
        free(name);
        strvec_free(&r.names);
        strvec_free(&r.keys);
        return;
    }
    w->refs = pgci_realloc(w->refs, (w->n_refs + 1) * sizeof(*w->refs));
    w->refs[w->n_refs++] = r;
}

/* `self.<x>` or `self.<x>[...]`: x, malloc'ed; NULL otherwise. */
static char *self_container(const py_tree *t, TSNode n)
{
    if (py_is(n, "subscript"))
        n = py_field(n, "value");
    TSNode obj = py_is(n, "attribute") ? py_field(n, "object") : n;
    if (!py_is(n, "attribute") || !py_is(obj, "identifier") || !py_text_eq(t, obj, "self") ||
        !pynode_is_real(py_field(n, "attribute")))
        return NULL; /* not one, or `self.` with a name tree-sitter's recovery made up */
    return py_text_dup(t, py_field(n, "attribute"));
}

/* `for x in self.layers[...]:` or `for i, x in enumerate(self.layers):`, x bound
 * nowhere else: x stands for an element of self.layers. */
static void read_loop(walk *w, TSNode n)
{
    TSNode left = py_field(n, "left"), right = py_field(n, "right");
    if (ts_node_is_null(left) || ts_node_is_null(right))
        return;
    if (py_is(right, "call") && py_text_eq(w->t, py_field(right, "function"), "enumerate") &&
        (py_is(left, "pattern_list") || py_is(left, "tuple_pattern")) &&
        ts_node_named_child_count(left) == 2) {
        TSNode args = py_field(right, "arguments");
        if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
            return;
        right = ts_node_named_child(args, 0);
        left = ts_node_named_child(left, 1);
    }
    char *container = py_is(left, "identifier") ? self_container(w->t, right) : NULL;
    if (!container)
        return;
    char *name = py_text_dup(w->t, left);
    if (strvec_find(&w->bound->twice, name) >= 0) {
        free(name);
        free(container);
        return;
    }
    w->refs = pgci_realloc(w->refs, (w->n_refs + 1) * sizeof(*w->refs));
    w->refs[w->n_refs++] = (local_ref){name, STRVEC_INIT, STRVEC_INIT, container, 0, 0, 0, 0};
}

static void collect_locals(walk *w, TSNode n)
{
    if (py_is(n, "assignment"))
        read_local(w, n);
    else if (py_is(n, "for_statement"))
        read_loop(w, n);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        collect_locals(w, ts_node_named_child(n, i));
}

/* ---- calls -------------------------------------------------------------------------- */

static void read_args(walk *w, body_call *c, TSNode call)
{
    TSNode args = py_field(call, "arguments");
    uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        local_ref *kw = NULL;
        if (py_is(a, "dictionary_splat") && ts_node_named_child_count(a) == 1 &&
            py_is(ts_node_named_child(a, 0), "identifier"))
            kw = find_ref(w, w->t, ts_node_named_child(a, 0));
        if (kw && kw->is_dict) {
            kw->splats++;
            for (size_t j = 0; j < kw->keys.len; j++)
                strvec_push(&c->keywords, kw->keys.items[j]);
            c->via_dict = (int)(kw - w->refs) + 1;
        } else if (py_is(a, "keyword_argument"))
            strvec_push_owned(&c->keywords, py_text_dup(w->t, py_field(a, "name")));
        else if (py_is(a, "list_splat") || py_is(a, "dictionary_splat"))
            c->star_args = 1;
        else if (!py_is(a, "comment"))
            c->n_positional++;
    }
}

static void push_call(body_call **calls, size_t *n, const body_call *c)
{
    *calls = pgci_realloc(*calls, (*n + 1) * sizeof(**calls));
    (*calls)[(*n)++] = *c;
}

/* One call: its arguments and what the body does with its result. */
static void read_call(walk *w, body_call *c, TSNode call, TSNode p)
{
    c->line = py_line(call) - w->row0;
    read_args(w, c, call);
    if (!ts_node_is_null(p) && (py_is(p, "attribute") || py_is(p, "subscript")))
        c->result_used = 1;
    if (!ts_node_is_null(p) && py_is(p, "assignment") && ts_node_eq(py_field(p, "right"), call)) {
        TSNode left = py_field(p, "left");
        c->result_used = 1;
        if (py_is(left, "pattern_list") || py_is(left, "tuple_pattern")) {
            c->unpacked = (int)ts_node_named_child_count(left);
            for (int i = 0; i < c->unpacked && i < 64; i++) {
                TSNode e = ts_node_named_child(left, (uint32_t)i);
                size_t len;
                const char *s = py_is(e, "identifier") ? py_text(w->t, e, &len) : NULL;
                if (s && len && s[0] != '_')
                    c->kept |= (uint64_t)1 << i;
            }
        }
    }
}

static void copy_call(body_call *to, const body_call *from, const char *name)
{
    *to = *from;
    to->method = pgci_strdup(name);
    memset(&to->keywords, 0, sizeof(to->keywords));
    for (size_t i = 0; i < from->keywords.len; i++)
        strvec_push(&to->keywords, from->keywords.items[i]);
}

static void read_name_call(walk *w, TSNode call, TSNode p, TSNode fn)
{
    body_call c;
    memset(&c, 0, sizeof(c));
    char *name = py_text_dup(w->t, fn);
    const local_ref *r = NULL;
    if (strvec_find(&w->bound->names, name) >= 0 && (!(r = find_ref(w, w->t, fn)) || r->is_dict)) {
        free(name);
        return; /* a local: what it holds is not known */
    }
    read_call(w, &c, call, p);
    body_uses *u = w->u;
    if (r && r->container) { /* an element of self.<container>: its forward */
        free(name);
        c.method = pgci_strdup(r->container);
        push_call(&u->elem_calls, &u->n_elem_calls, &c);
        return;
    }
    if (!r) {
        c.method = name;
        push_call(&u->name_calls, &u->n_name_calls, &c);
        return;
    }
    for (size_t i = 0; i < r->names.len; i++) {
        body_call each;
        copy_call(&each, &c, r->names.items[i]);
        push_call(&u->name_calls, &u->n_name_calls, &each);
    }
    strvec_free(&c.keywords);
    free(name);
}

/* `Cls.method` with Cls a free name: the two names, malloc'ed; 0 when n is not. */
static int class_method(const walk *w, TSNode n, char **cls, char **method)
{
    TSNode obj = py_field(n, "object"), m = py_field(n, "attribute");
    if (!py_is(n, "attribute") || !py_is(obj, "identifier") || !pynode_is_real(obj) ||
        !pynode_is_real(m) || py_text_eq(w->t, obj, "self") || py_text_eq(w->t, obj, "cls"))
        return 0;
    char *c = py_text_dup(w->t, obj);
    if (strvec_find(&w->bound->names, c) >= 0) {
        free(c);
        return 0;
    }
    *cls = c;
    *method = py_text_dup(w->t, m);
    return 1;
}

/* A call that runs `Cls.method` on a stand-in (body_stand_in): `Cls.method(ns, ...)`,
 * or `Cls.method` and then ns among its arguments. */
static void read_stand_in(walk *w, TSNode call)
{
    TSNode fn = py_field(call, "function"), args = py_field(call, "arguments");
    uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
    char *cls = NULL, *method = NULL;
    uint32_t from = 0;
    int direct = class_method(w, fn, &cls, &method);
    if (!direct) {
        while (from < k && !class_method(w, ts_node_named_child(args, from), &cls, &method))
            from++;
        if (from++ >= k)
            return;
    }
    const local_ref *r = NULL;
    for (uint32_t i = from; !r && i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (py_is(a, "comment"))
            continue;
        const local_ref *x = py_is(a, "identifier") ? find_ref(w, w->t, a) : NULL;
        if (x && x->is_ns)
            r = x;
        else if (direct)
            break; /* Cls.method(...): its first argument is self */
    }
    if (r) {
        body_uses *u = w->u;
        u->stand_ins = pgci_realloc(u->stand_ins, (u->n_stand_ins + 1) * sizeof(*u->stand_ins));
        body_stand_in *s = &u->stand_ins[u->n_stand_ins++];
        *s = (body_stand_in){cls, method, STRVEC_INIT, (int)(r - w->refs) + 1};
        for (size_t i = 0; i < r->keys.len; i++)
            strvec_push(&s->attrs, r->keys.items[i]);
        return;
    }
    free(cls);
    free(method);
}

static void collect_uses(walk *w, TSNode n, TSNode parent)
{
    const py_tree *t = w->t;
    body_uses *u = w->u;
    /* what tree-sitter's recovery put in for a body that does not parse: no name */
    if (ts_node_is_missing(n) || ts_node_start_byte(n) == ts_node_end_byte(n))
        return;
    if (py_is(n, "identifier")) {
        local_ref *r = find_ref(w, t, n);
        if (r)
            r->uses++;
        if (is_load(n, parent)) {
            char *s = py_text_dup(t, n);
            if (strvec_find(&w->bound->names, s) < 0 && strvec_find(&u->loads, s) < 0)
                strvec_push_owned(&u->loads, s);
            else
                free(s);
        }
        return;
    }
    if (py_is(n, "attribute") &&
        !(py_is(parent, "call") && ts_node_eq(py_field(parent, "function"), n))) {
        TSNode obj = py_field(n, "object"), name = py_field(n, "attribute");
        const local_ref *r = py_is(obj, "identifier") ? find_ref(w, t, obj) : NULL;
        if (r && r->container && pynode_is_real(name)) {
            char *attr = py_text_dup(t, py_field(n, "attribute"));
            size_t i = 0;
            while (i + 1 < u->elem_attrs.len && (strcmp(u->elem_attrs.items[i], r->container) ||
                                                 strcmp(u->elem_attrs.items[i + 1], attr)))
                i += 2;
            if (i + 1 >= u->elem_attrs.len) {
                strvec_push(&u->elem_attrs, r->container);
                strvec_push_owned(&u->elem_attrs, attr);
            } else {
                free(attr);
            }
        }
    }
    if (py_is(n, "call")) {
        TSNode fn = py_field(n, "function");
        read_stand_in(w, n);
        if (py_is(fn, "attribute")) {
            TSNode obj = py_field(fn, "object");
            TSNode m = py_field(fn, "attribute");
            if (py_is(obj, "identifier") && !ts_node_is_null(m) && !ts_node_is_missing(m) &&
                (py_text_eq(t, obj, "self") || py_text_eq(t, obj, "cls"))) {
                body_call c;
                memset(&c, 0, sizeof(c));
                c.method = py_text_dup(t, py_field(fn, "attribute"));
                read_call(w, &c, n, parent);
                push_call(&u->calls, &u->n_calls, &c);
            }
        } else if (py_is(fn, "identifier") && !ts_node_is_missing(fn)) {
            read_name_call(w, n, parent, fn);
        }
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        collect_uses(w, ts_node_named_child(n, i), n);
}

/* A dict local named anywhere but its assignment and its splats may have been
 * changed in between (`kw["x"] = ...`, `kw.update(...)`): the calls splatting it
 * pass unknown keywords. */
static void settle_dict_calls(walk *w, body_call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!calls[i].via_dict)
            continue;
        const local_ref *r = &w->refs[calls[i].via_dict - 1];
        if (r->uses != 1 + r->splats)
            calls[i].star_args = 1;
        calls[i].via_dict = 0;
    }
}

static void stand_in_free(body_stand_in *s)
{
    free(s->cls);
    free(s->method);
    strvec_free(&s->attrs);
}

/* A stand-in named anywhere but its assignment and the one call may have been given
 * more attributes (`ns.x = ...`) or be run elsewhere: not one any more. */
static void settle_stand_ins(walk *w)
{
    body_uses *u = w->u;
    size_t kept = 0;
    for (size_t i = 0; i < u->n_stand_ins; i++) {
        body_stand_in *s = &u->stand_ins[i];
        if (w->refs[s->ref - 1].uses == 2) {
            s->ref = 0;
            u->stand_ins[kept++] = *s;
        } else {
            stand_in_free(s);
        }
    }
    u->n_stand_ins = kept;
}

static int patch_decorator(const py_tree *t, TSNode d)
{
    uint32_t s = ts_node_start_byte(d), e = ts_node_end_byte(d);
    return cgsrc_is_patch_decorator(t->src + s, e - s);
}

void body_uses_of_statements(body_uses *out, const py_tree *t, TSNode parent, const TSNode *stmts,
                             size_t n, unsigned row0)
{
    memset(out, 0, sizeof(*out));
    binds bound = {STRVEC_INIT, STRVEC_INIT};
    for (size_t i = 0; i < n; i++)
        collect_bound(&bound, t, stmts[i]);
    walk w = {out, &bound, t, NULL, 0, row0};
    for (size_t i = 0; i < n; i++)
        collect_locals(&w, stmts[i]);
    /* the registering decorators (`@config.override_method(...)`) are the config's,
     * not the body's, and patchgen drops them; the others stay in the generated
     * module above the definition (`@dataclass`) and read its names */
    for (size_t i = 0; i < n; i++) {
        TSNode s = stmts[i], p = parent;
        if (py_is(s, "decorated_definition")) {
            p = s;
            uint32_t nd = ts_node_named_child_count(s);
            for (uint32_t j = 0; j < nd; j++) {
                TSNode d = ts_node_named_child(s, j);
                if (py_is(d, "decorator") && !patch_decorator(t, d))
                    collect_uses(&w, d, s);
            }
            s = py_field(s, "definition");
        }
        if (!ts_node_is_null(s))
            collect_uses(&w, s, p);
    }
    settle_dict_calls(&w, out->calls, out->n_calls);
    settle_dict_calls(&w, out->name_calls, out->n_name_calls);
    settle_dict_calls(&w, out->elem_calls, out->n_elem_calls);
    settle_stand_ins(&w);
    for (size_t i = 0; i < w.n_refs; i++) {
        free(w.refs[i].name);
        free(w.refs[i].container);
        strvec_free(&w.refs[i].names);
        strvec_free(&w.refs[i].keys);
    }
    free(w.refs);
    strvec_free(&bound.names);
    strvec_free(&bound.twice);
}

void body_uses_of_tree(body_uses *out, const py_tree *t)
{
    TSNode root = py_root(t);
    uint32_t k = ts_node_named_child_count(root);
    TSNode *stmts = pgci_calloc(k ? k : 1, sizeof(*stmts));
    for (uint32_t i = 0; i < k; i++)
        stmts[i] = ts_node_named_child(root, i);
    body_uses_of_statements(out, t, root, stmts, k, 0);
    free(stmts);
}

static int same_calls(const body_call *a, size_t na, const body_call *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].method, b[i].method) || a[i].n_positional != b[i].n_positional ||
            a[i].star_args != b[i].star_args || a[i].unpacked != b[i].unpacked ||
            a[i].kept != b[i].kept || a[i].result_used != b[i].result_used ||
            a[i].line != b[i].line || !strvec_equal(&a[i].keywords, &b[i].keywords))
            return 0;
    return 1;
}

int body_uses_equal(const body_uses *a, const body_uses *b)
{
    if (!same_calls(a->calls, a->n_calls, b->calls, b->n_calls) ||
        !same_calls(a->name_calls, a->n_name_calls, b->name_calls, b->n_name_calls) ||
        !same_calls(a->elem_calls, a->n_elem_calls, b->elem_calls, b->n_elem_calls) ||
        !strvec_equal(&a->elem_attrs, &b->elem_attrs) || !strvec_equal(&a->loads, &b->loads) ||
        a->n_stand_ins != b->n_stand_ins)
        return 0;
    for (size_t i = 0; i < a->n_stand_ins; i++)
        if (strcmp(a->stand_ins[i].cls, b->stand_ins[i].cls) ||
            strcmp(a->stand_ins[i].method, b->stand_ins[i].method) ||
            !strvec_equal(&a->stand_ins[i].attrs, &b->stand_ins[i].attrs))
            return 0;
    return 1;
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

static void free_calls(body_call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(calls[i].method);
        strvec_free(&calls[i].keywords);
    }
    free(calls);
}

void body_uses_free(body_uses *u)
{
    free_calls(u->calls, u->n_calls);
    free_calls(u->name_calls, u->n_name_calls);
    free_calls(u->elem_calls, u->n_elem_calls);
    strvec_free(&u->elem_attrs);
    strvec_free(&u->loads);
    for (size_t i = 0; i < u->n_stand_ins; i++)
        stand_in_free(&u->stand_ins[i]);
    free(u->stand_ins);
    memset(u, 0, sizeof(*u));
}
