/*
 * The structural comparison: each source becomes a token stream (the tree's shape
 * as open/close markers plus its significant leaves) and a set of module-level
 * import bindings; see structural.h for what is ignored and why. Comparing token
 * streams rather than trees keeps the rules local: every normalisation is a choice
 * made while emitting one node.
 */
#include "py/structural.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hashmap.h"
#include "core/vec.h"
#include "py/py.h"
#include "py/pystr.h"

typedef struct tok {
    char *text;
    unsigned line;
    int ref; /* an identifier read as a name (not an attribute, keyword or definition) */
} tok;

typedef struct binding {
    char *key;  /* "from m import n as a" in canonical form */
    char *name; /* the name it binds */
    unsigned line;
} binding;

typedef struct canon {
    const py_tree *t;
    VEC(tok) toks;
    VEC(binding) imports;
    VEC(binding) nested; /* imports inside functions or blocks */
    unsigned depth;
    int record_nested; /* 1 while recording a nested import: it goes to `nested` */
    TSNode walking;    /* the node walk() is in: the parent of the one it walks next */
} canon;

#define MAX_DEPTH 400

static void emit(canon *c, const char *s, size_t n, unsigned line)
{
    tok t = {pgci_strndup(s, n), line, 0};
    VEC_PUSH(&c->toks, t);
}

/* 1 when identifier n is a reference to a name, as ruff's F401 counts uses: not
 * the attribute of `x.name`, not a keyword argument's name, not the name a def or
 * class statement binds. Only references keep an import alive. p is n's parent
 * (ts_node_parent() walks down from the root: asked of every identifier, it was
 * the structural comparison's largest cost). */
static int is_reference(TSNode n, TSNode p)
{
    if (ts_node_is_null(p))
        return 1;
    static const struct {
        const char *parent, *field;
    } binders[] = {{"attribute", "attribute"},
                   {"keyword_argument", "name"},
                   {"function_definition", "name"},
                   {"class_definition", "name"}};
    for (size_t i = 0; i < sizeof(binders) / sizeof(binders[0]); i++) {
        if (!py_is(p, binders[i].parent))
            continue;
        TSNode f = py_field(p, binders[i].field);
        if (!ts_node_is_null(f) && ts_node_eq(f, n))
            return 0;
    }
    return 1;
}

static void emits(canon *c, const char *s, unsigned line)
{
    emit(c, s, strlen(s), line);
}

static int is_ignored_anon(const char *type)
{
    return !strcmp(type, ",") || !strcmp(type, "(") || !strcmp(type, ")") || !strcmp(type, ";") ||
           !strcmp(type, "\\") || !strcmp(type, "line_continuation");
}

/* Tuples written with or without parentheses are one thing to ruff. */
static const char *canon_type(const char *type)
{
    if (!strcmp(type, "expression_list") || !strcmp(type, "pattern_list") ||
        !strcmp(type, "tuple_pattern"))
        return "tuple";
    /* annotations: the type grammar and the expression grammar for one text */
    if (!strcmp(type, "union_type"))
        return "binary_operator";
    if (!strcmp(type, "generic_type"))
        return "subscript";
    if (!strcmp(type, "member_type"))
        return "attribute";
    return type;
}

static void emit_string(canon *c, TSNode n, const char *prefix)
{
    strbuf v = STRBUF_INIT;
    if (pystr_decode_node(&v, c->t, n) == 0) {
        strbuf s = STRBUF_INIT;
        /* bytes and str with the same text differ */
        size_t len;
        const char *src = py_text(c->t, n, &len);
        int is_bytes = 0;
        for (size_t i = 0; i < len && src[i] != '\'' && src[i] != '"'; i++)
            is_bytes |= src[i] == 'b' || src[i] == 'B';
        strbuf_addf(&s, "%s%s:", prefix, is_bytes ? "bytes" : "str");
        strbuf_add(&s, v.buf, v.len);
        emit(c, s.buf, s.len, py_line(n));
        strbuf_free(&s);
    } else {
        /* an f-string with fields: compare its text without quote style */
        pgci_error_clear();
        size_t len;
        const char *src = py_text(c->t, n, &len);
        strbuf s = STRBUF_INIT;
        strbuf_adds(&s, "fstr:");
        for (size_t i = 0; i < len; i++) {
            char ch = src[i];
            if (ch == '\'' || ch == '"')
                continue;
            strbuf_addc(&s, (char)tolower((unsigned char)ch));
        }
        emit(c, s.buf, s.len, py_line(n));
        strbuf_free(&s);
    }
    strbuf_free(&v);
}

/* A docstring-like statement: compare its lines stripped, as ruff re-indents and
 * strips trailing space in docstrings. */
static void emit_docstring(canon *c, TSNode n)
{
    strbuf v = STRBUF_INIT, s = STRBUF_INIT;
    if (pystr_decode_node(&v, c->t, n) < 0) {
        pgci_error_clear();
        emit_string(c, n, "");
        strbuf_free(&v);
        return;
    }
    strbuf_adds(&s, "doc:");
    const char *p = v.buf;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t a = 0, b = len;
        while (a < b && isspace((unsigned char)p[a]))
            a++;
        while (b > a && isspace((unsigned char)p[b - 1]))
            b--;
        if (b > a) {
            strbuf_add(&s, p + a, b - a);
            strbuf_addc(&s, '\n');
        }
        p += len + (e != NULL);
    }
    emit(c, s.buf, s.len, py_line(n));
    strbuf_free(&s);
    strbuf_free(&v);
}

static void add_binding(canon *c, const char *key, const char *name, unsigned line)
{
    binding b = {pgci_strdup(key), pgci_strdup(name), line};
    if (c->record_nested)
        VEC_PUSH(&c->nested, b);
    else
        VEC_PUSH(&c->imports, b);
}

static char *text_nows(const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)s[i]) && s[i] != '\\')
            strbuf_addc(&out, s[i]);
    return strbuf_detach(&out, NULL);
}

static void record_import(canon *c, TSNode n)
{
    const py_tree *t = c->t;
    unsigned line = py_line(n);
    if (py_is(n, "import_statement")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode ch = ts_node_named_child(n, i);
            TSNode name = py_is(ch, "aliased_import") ? py_field(ch, "name") : ch;
            TSNode alias = py_is(ch, "aliased_import") ? py_field(ch, "alias") : (TSNode){0};
            char *mod = text_nows(t, name);
            char *al = ts_node_is_null(alias) ? NULL : text_nows(t, alias);
            char *key = pgci_asprintf("import %s%s%s", mod, al ? " as " : "", al ? al : "");
            char *bound = al ? pgci_strdup(al) : pgci_strndup(mod, strcspn(mod, "."));
            add_binding(c, key, bound, line);
            free(key);
            free(bound);
            free(mod);
            free(al);
        }
        return;
    }
    /* from M import a, b as c / from M import * */
    TSNode modn = py_field(n, "module_name");
    char *mod = ts_node_is_null(modn) ? pgci_strdup("") : text_nows(t, modn);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (ts_node_eq(ch, modn))
            continue;
        if (py_is(ch, "wildcard_import")) {
            char *key = pgci_asprintf("from %s import *", mod);
            add_binding(c, key, "*", line);
            free(key);
            continue;
        }
        if (!py_is(ch, "dotted_name") && !py_is(ch, "aliased_import"))
            continue;
        TSNode name = py_is(ch, "aliased_import") ? py_field(ch, "name") : ch;
        TSNode alias = py_is(ch, "aliased_import") ? py_field(ch, "alias") : (TSNode){0};
        char *nm = text_nows(t, name);
        char *al = ts_node_is_null(alias) ? NULL : text_nows(t, alias);
        char *key = pgci_asprintf("from %s import %s%s%s", mod, nm, al ? " as " : "", al ? al : "");
        add_binding(c, key, al ? al : nm, line);
        free(key);
        free(nm);
        free(al);
    }
    free(mod);
}

static int is_string_node(TSNode n)
{
    return py_is(n, "string") || py_is(n, "concatenated_string");
}

static int walk(canon *c, TSNode n, int module_level)
{
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return pgci_error_set(PGCI_ELIMIT, "%s:%u: nesting deeper than %d levels", c->t->path,
                              py_line(n), MAX_DEPTH);
    }
    int r = 0;
    const char *type = ts_node_type(n);
    unsigned line = py_line(n);
    TSNode parent = c->walking;
    c->walking = n;
    if (!strcmp(type, "comment")) {
        /* ignored */
    } else if (module_level &&
               (!strcmp(type, "import_statement") || !strcmp(type, "import_from_statement"))) {
        record_import(c, n);
    } else if (!strcmp(type, "import_statement") || !strcmp(type, "import_from_statement")) {
        /* a nested import compares in place, and its names are noted: a module-level
         * import of the same name that only nested code uses is one ruff drops */
        c->record_nested = 1;
        record_import(c, n);
        c->record_nested = 0;
        emits(c, type, line);
        uint32_t k = ts_node_child_count(n);
        for (uint32_t i = 0; i < k && r == 0; i++)
            r = walk(c, ts_node_child(n, i), 0);
        emits(c, "/", line);
    } else if (!strcmp(type, "parenthesized_expression") && ts_node_named_child_count(n) == 1 &&
               !py_is(ts_node_named_child(n, 0), "comment")) {
        r = walk(c, ts_node_named_child(n, 0), 0);
    } else if (!strcmp(type, "parenthesized_expression")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k && r == 0; i++)
            r = walk(c, ts_node_named_child(n, i), 0);
    } else if (is_string_node(n)) {
        emit_string(c, n, "");
    } else if (!strcmp(type, "expression_statement") && ts_node_named_child_count(n) == 1 &&
               is_string_node(ts_node_named_child(n, 0))) {
        emit_docstring(c, ts_node_named_child(n, 0));
    } else if (!strcmp(type, "integer") || !strcmp(type, "float")) {
        size_t len;
        const char *s = py_text(c->t, n, &len);
        strbuf b = STRBUF_INIT;
        for (size_t i = 0; i < len; i++)
            strbuf_addc(&b, (char)tolower((unsigned char)s[i]));
        emit(c, b.buf, b.len, line);
        strbuf_free(&b);
    } else if (!strcmp(type, "type") || !strcmp(type, "type_parameter")) {
        /* an annotation's wrapper: `-> (A | B)` parses as an expression, `-> A | B`
         * as a union of types, and ruff drops the parentheses */
        uint32_t k = ts_node_child_count(n);
        for (uint32_t i = 0; i < k && r == 0; i++)
            r = walk(c, ts_node_child(n, i), 0);
    } else if (!strcmp(type, "argument_list") && ts_node_named_child_count(n) == 0 &&
               py_is(parent, "class_definition")) {
        /* class A(): == class A: */
    } else if (ts_node_child_count(n) == 0) {
        if (ts_node_is_named(n)) {
            size_t len;
            const char *s = py_text(c->t, n, &len);
            emit(c, s, len, line);
            c->toks.items[c->toks.len - 1].ref = py_is(n, "identifier") && is_reference(n, parent);
        } else if (!is_ignored_anon(type)) {
            emits(c, type, line);
        }
    } else {
        emits(c, canon_type(type), line);
        uint32_t k = ts_node_child_count(n);
        int is_module = !strcmp(type, "module");
        for (uint32_t i = 0; i < k && r == 0; i++)
            r = walk(c, ts_node_child(n, i), is_module);
        emits(c, "/", line);
    }
    c->walking = parent;
    c->depth--;
    return r;
}

static void canon_free(canon *c)
{
    for (size_t i = 0; i < c->toks.len; i++)
        free(c->toks.items[i].text);
    for (size_t i = 0; i < c->imports.len; i++) {
        free(c->imports.items[i].key);
        free(c->imports.items[i].name);
    }
    for (size_t i = 0; i < c->nested.len; i++) {
        free(c->nested.items[i].key);
        free(c->nested.items[i].name);
    }
    VEC_FREE(&c->toks);
    VEC_FREE(&c->imports);
    VEC_FREE(&c->nested);
}

static int canon_build(canon *c, py_tree *t, py_parse_set *set, const char *src, size_t len,
                       const char *name)
{
    memset(c, 0, sizeof(*c));
    memset(t, 0, sizeof(*t));
    int r = set ? py_parse_set_get(set, src, len, name, t) : py_parse(t, src, len, name);
    if (r < 0)
        return r;
    if ((r = py_check_syntax(t)) < 0)
        return r;
    c->t = t;
    return walk(c, py_root(t), 0);
}

static long find_binding(const canon *c, const char *key)
{
    for (size_t i = 0; i < c->imports.len; i++)
        if (!strcmp(c->imports.items[i].key, key))
            return (long)i;
    return -1;
}

/* A name is used when it appears as a referenced identifier outside the imports
 * (is_reference), or as a string in the body (e.g. listed in __all__). */
static int name_used(const canon *c, const char *name)
{
    if (!strcmp(name, "*"))
        return 1;
    size_t n = strlen(name);
    for (size_t i = 0; i < c->toks.len; i++) {
        const char *s = c->toks.items[i].text;
        if (c->toks.items[i].ref && !strcmp(s, name))
            return 1;
        if (!strncmp(s, "str:", 4) && !strcmp(s + 4, name))
            return 1;
        /* dotted uses of an `import a.b` binding start with the bound name */
        if (!strncmp(s, name, n) && s[n] == '.')
            return 1;
    }
    return 0;
}

/* 1 when another import of a binds the same name as the i-th and b kept it:
 * ruff's F811 fix drops an import redefined before any use, and which of the two
 * comes first is for its import sorting (I001, applied in the same run) to say. */
static int rebound(const canon *a, size_t i, const canon *b)
{
    for (size_t k = 0; k < a->imports.len; k++)
        if (k != i && !strcmp(a->imports.items[k].name, a->imports.items[i].name) &&
            find_binding(b, a->imports.items[k].key) >= 0)
            return 1;
    return 0;
}

static int nested_binds(const canon *c, const char *name)
{
    for (size_t i = 0; i < c->nested.len; i++)
        if (!strcmp(c->nested.items[i].name, name))
            return 1;
    return 0;
}

int structural_compare(const char *a, size_t alen, const char *b, size_t blen,
                       structural_result *res)
{
    return structural_compare_in(NULL, a, alen, b, blen, res);
}

int structural_compare_in(py_parse_set *set, const char *a, size_t alen, const char *b, size_t blen,
                          structural_result *res)
{
    memset(res, 0, sizeof(*res));
    strbuf_init(&res->what, 0);
    py_tree ta, tb;
    canon ca, cb;
    int r = canon_build(&ca, &ta, set, a, alen, "<regenerated>");
    if (r == 0)
        r = canon_build(&cb, &tb, NULL, b, blen, "<checked-in>");
    else
        memset(&cb, 0, sizeof(cb)), memset(&tb, 0, sizeof(tb));
    if (r < 0)
        goto out;
    res->equal = 1;
    /* imports: every binding of b must exist in a; a binding of a missing from b
     * must be unused in a */
    for (size_t i = 0; i < cb.imports.len && res->equal; i++) {
        if (find_binding(&ca, cb.imports.items[i].key) < 0) {
            res->equal = 0;
            res->line_b = cb.imports.items[i].line;
            strbuf_addf(&res->what, "import '%s' is not in the regenerated file",
                        cb.imports.items[i].key);
        }
    }
    for (size_t i = 0; i < ca.imports.len && res->equal; i++) {
        const binding *bi = &ca.imports.items[i];
        if (find_binding(&cb, bi->key) < 0 && name_used(&ca, bi->name) &&
            !nested_binds(&ca, bi->name) && !rebound(&ca, i, &cb)) {
            res->equal = 0;
            res->line_a = bi->line;
            strbuf_addf(&res->what, "import '%s' is missing from the checked-in file", bi->key);
        }
    }
    size_t n = ca.toks.len < cb.toks.len ? ca.toks.len : cb.toks.len;
    for (size_t i = 0; i < n && res->equal; i++) {
        if (strcmp(ca.toks.items[i].text, cb.toks.items[i].text)) {
            res->equal = 0;
            res->line_a = ca.toks.items[i].line;
            res->line_b = cb.toks.items[i].line;
            strbuf_addf(&res->what,
                        "regenerated line %u has '%.60s' where the checked-in line "
                        "%u has '%.60s'",
                        res->line_a, ca.toks.items[i].text, res->line_b, cb.toks.items[i].text);
        }
    }
    if (res->equal && ca.toks.len != cb.toks.len) {
        res->equal = 0;
        const tok *extra = ca.toks.len > n ? &ca.toks.items[n] : &cb.toks.items[n];
        res->line_a = ca.toks.len > n ? extra->line : 0;
        res->line_b = cb.toks.len > n ? extra->line : 0;
        strbuf_addf(&res->what, "the %s file goes on at line %u ('%.60s')",
                    ca.toks.len > n ? "regenerated" : "checked-in", extra->line, extra->text);
    }
out:
    canon_free(&ca);
    canon_free(&cb);
    if (ta.tree && set)
        py_parse_set_release(&ta);
    else if (ta.tree)
        py_tree_free(&ta);
    if (tb.tree)
        py_tree_free(&tb);
    return r;
}

void structural_result_free(structural_result *res)
{
    strbuf_free(&res->what);
}

/* The body of the first function or class in a tree (decorated or not). */
static TSNode first_body(TSNode root)
{
    uint32_t k = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < k; i++) {
        TSNode n = ts_node_named_child(root, i);
        if (py_is(n, "decorated_definition"))
            n = py_field(n, "definition");
        if (py_is(n, "function_definition") || py_is(n, "class_definition"))
            return py_field(n, "body");
    }
    return (TSNode){0};
}

static int canon_body(canon *c, py_tree *t, const char *src, size_t len)
{
    memset(c, 0, sizeof(*c));
    int r = py_parse(t, src, len, "<definition>");
    if (r < 0)
        return r;
    c->t = t;
    TSNode body = first_body(py_root(t));
    if (ts_node_is_null(body))
        return 0;
    uint32_t k = ts_node_named_child_count(body);
    c->walking = body;
    for (uint32_t i = 0; i < k && r == 0; i++) {
        TSNode st = ts_node_named_child(body, i);
        if (i == 0 && py_is(st, "expression_statement") && ts_node_named_child_count(st) == 1 &&
            is_string_node(ts_node_named_child(st, 0)))
            continue; /* the docstring */
        r = walk(c, st, 0);
    }
    return r;
}

int structural_bodies_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    py_tree ta, tb;
    canon ca, cb;
    memset(&tb, 0, sizeof(tb));
    memset(&cb, 0, sizeof(cb));
    int r = canon_body(&ca, &ta, a, alen);
    if (r == 0)
        r = canon_body(&cb, &tb, b, blen);
    int eq = -1;
    if (r == 0) {
        eq = ca.toks.len == cb.toks.len;
        for (size_t i = 0; eq && i < ca.toks.len; i++)
            eq = !strcmp(ca.toks.items[i].text, cb.toks.items[i].text);
    }
    canon_free(&ca);
    canon_free(&cb);
    if (ta.tree)
        py_tree_free(&ta);
    if (tb.tree)
        py_tree_free(&tb);
    return r < 0 ? r : eq;
}
