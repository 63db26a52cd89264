/*
 * config_symtab.c - what CPython's symbol table refuses in a config that parses.
 *
 *   x = 1; global x             name 'x' is assigned to before global declaration
 *   print(x); global x          name 'x' is used prior to global declaration
 *   global x; x: int            annotated name 'x' can't be global
 *   def f(x): global x          name 'x' is parameter and global
 *   global x; nonlocal x        name 'x' is nonlocal and global
 *   nonlocal x                  no binding for nonlocal 'x' found (no enclosing
 *                               function binds x)
 *   [y := 1 for y in z]         assignment expression cannot rebind comprehension
 *                               iteration variable 'y'
 *   class A: [y := 1 for ...]   assignment expression within a comprehension cannot
 *                               be used in a class body
 *   [x for x in (y := z)]       assignment expression cannot be used in a
 *                               comprehension iterable expression
 *   [i for i in a if (j := 0) for j in b]   comprehension inner loop cannot rebind
 *                               assignment expression target 'j'
 *
 * CPython's symtable.c records every name of every scope, then analyses them. The
 * walk of config_compile.c does not: these rules need a scope's names only where a
 * global or nonlocal statement or an assignment expression in a comprehension
 * appears, which real configs hardly have, so a scope's own names are read then,
 * from its tree, for the one name asked about (scan_scope). What binds a name and
 * what uses it follows symtable.c: an assignment, augmented assignment, `del`,
 * `for`, `with ... as`, `except ... as`, a match capture, a def or class, an
 * assignment expression in a comprehension of the scope bind; an import binds but
 * does not count before a global declaration; a parameter is the function's;
 * decorators, defaults, annotations (unless `from __future__ import annotations`)
 * and class bases belong to the enclosing scope, comprehensions and lambdas are
 * scopes of their own (but a comprehension's first iterable).
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_compile.h"
#include "patchgen/config_internal.h"

enum {
    F_USE = 1,
    F_LOCAL = 2,
    F_PARAM = 4,
    F_ANNOT = 8,
    F_IMPORT = 16,
    F_GLOBAL = 32,
    F_NONLOCAL = 64
};
enum { X_LOAD, X_STORE, X_DEL, X_PATTERN };

/* One scan of a scope for one name. */
typedef struct scan {
    const cc *c;
    const char *name;
    size_t len;
    uint32_t until; /* nodes from this byte on are not read */
    int function;   /* the scope is a function's: a load of `super` uses `__class__` */
    unsigned flags;
} scan;

static int text_is(const scan *s, TSNode n, const char *name, size_t len)
{
    size_t l;
    const char *p = py_text(s->c->t, n, &l);
    return l == len && !memcmp(p, name, len);
}

static void name_at(scan *s, TSNode id, unsigned flag)
{
    if (ts_node_start_byte(id) < s->until && text_is(s, id, s->name, s->len))
        s->flags |= flag;
}

static int is(TSNode n, const char *type)
{
    return !strcmp(ts_node_type(n), type);
}

static void scan_node(scan *s, TSNode n, int ctx);

static void scan_children(scan *s, TSNode n, int ctx)
{
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        scan_node(s, ts_node_named_child(n, i), ctx);
}

static void scan_field(scan *s, TSNode n, const char *field, int ctx)
{
    TSNode f = py_field(n, field);
    if (!ts_node_is_null(f))
        scan_node(s, f, ctx);
}

/* An annotation: a use in the scope, unless annotations are strings. */
static void scan_annotation(scan *s, TSNode n)
{
    if (!ts_node_is_null(n) && !s->c->future_annotations)
        scan_node(s, n, X_LOAD);
}

/* What a parameter list holds for the scope around the function: its defaults and
 * annotations. */
static void scan_param_outside(scan *s, TSNode params)
{
    uint32_t k = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k; i++) {
        TSNode p = ts_node_named_child(params, i);
        if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
            scan_field(s, p, "value", X_LOAD);
        if (is(p, "typed_parameter") || is(p, "typed_default_parameter"))
            scan_annotation(s, py_field(p, "type"));
    }
}

/* The names an assignment expression binds in a comprehension, for the scope
 * around it; lambdas in it are scopes of their own. */
static void scan_walrus_targets(scan *s, TSNode n)
{
    if (ts_node_start_byte(n) >= s->until || is(n, "lambda"))
        return;
    if (is(n, "named_expression")) {
        TSNode name = py_field(n, "name");
        if (!ts_node_is_null(name))
            name_at(s, name, F_LOCAL);
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        scan_walrus_targets(s, ts_node_named_child(n, i));
}

/* A comprehension: its first iterable is the scope's, and what its assignment
 * expressions bind. */
static void scan_comprehension(scan *s, TSNode n)
{
    uint32_t k = ts_node_named_child_count(n);
    int first = 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (first && is(ch, "for_in_clause")) {
            first = 0;
            TSTreeCursor cur = ts_tree_cursor_new(ch);
            for (int more = ts_tree_cursor_goto_first_child(&cur); more;
                 more = ts_tree_cursor_goto_next_sibling(&cur)) {
                const char *f = ts_tree_cursor_current_field_name(&cur);
                if (f && !strcmp(f, "right"))
                    scan_node(s, ts_tree_cursor_current_node(&cur), X_LOAD);
                else
                    scan_walrus_targets(s, ts_tree_cursor_current_node(&cur));
            }
            ts_tree_cursor_delete(&cur);
        } else {
            scan_walrus_targets(s, ch);
        }
    }
}

/* The names of an import: `import a.b` binds a, `import a.b as c` c. */
static void scan_import(scan *s, TSNode n)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    for (int more = ts_tree_cursor_goto_first_child(&cur); more;
         more = ts_tree_cursor_goto_next_sibling(&cur)) {
        const char *f = ts_tree_cursor_current_field_name(&cur);
        TSNode ch = ts_tree_cursor_current_node(&cur);
        if (!f || strcmp(f, "name"))
            continue;
        if (is(ch, "aliased_import"))
            ch = py_field(ch, "alias");
        else if (is(ch, "dotted_name"))
            ch = ts_node_named_child(ch, 0);
        if (!ts_node_is_null(ch) && is(ch, "identifier"))
            name_at(s, ch, F_IMPORT);
    }
    ts_tree_cursor_delete(&cur);
}

/* A match statement's pattern: a capture binds (but `_`), a dotted name and a
 * class pattern's class are loads, a keyword pattern's keyword is no name. */
static void scan_pattern(scan *s, TSNode n)
{
    if (is(n, "dotted_name")) {
        TSNode first = ts_node_named_child(n, 0);
        if (ts_node_named_child_count(n) > 1)
            name_at(s, first, F_USE);
        else if (!text_is(s, first, "_", 1))
            name_at(s, first, F_LOCAL);
        return;
    }
    if (is(n, "identifier")) {
        if (!text_is(s, n, "_", 1))
            name_at(s, n, F_LOCAL);
        return;
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (i == 0 && is(n, "keyword_pattern") && is(ch, "identifier"))
            continue;
        if (i == 0 && is(n, "class_pattern") && is(ch, "dotted_name"))
            scan_node(s, ts_node_named_child(ch, 0), X_LOAD);
        else if (is(n, "dict_pattern") && !is(ch, "case_pattern") && !is(ch, "splat_pattern"))
            scan_node(s, ch, X_LOAD); /* a key */
        else
            scan_pattern(s, ch);
    }
}

/* The definitions: what of them is the enclosing scope's. */
static int scan_definition(scan *s, TSNode n, const char *type)
{
    if (!strcmp(type, "function_definition")) {
        scan_field(s, n, "name", X_STORE);
        scan_param_outside(s, py_field(n, "parameters"));
        scan_annotation(s, py_field(n, "return_type"));
    } else if (!strcmp(type, "class_definition")) {
        scan_field(s, n, "name", X_STORE);
        scan_field(s, n, "superclasses", X_LOAD);
    } else if (!strcmp(type, "lambda")) {
        scan_param_outside(s, py_field(n, "parameters"));
    } else if (!strcmp(type, "list_comprehension") || !strcmp(type, "set_comprehension") ||
               !strcmp(type, "dictionary_comprehension") || !strcmp(type, "generator_expression")) {
        scan_comprehension(s, n);
    } else {
        return 0;
    }
    return 1;
}

/* The statements and expressions that bind or declare. */
static int scan_binding(scan *s, TSNode n, const char *type)
{
    if (!strcmp(type, "global_statement") || !strcmp(type, "nonlocal_statement")) {
        unsigned f = type[0] == 'g' ? F_GLOBAL : F_NONLOCAL;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            if (is(ts_node_named_child(n, i), "identifier"))
                name_at(s, ts_node_named_child(n, i), f);
    } else if (!strcmp(type, "assignment")) {
        TSNode left = py_field(n, "left"), ann = py_field(n, "type"), name = left;
        while (!ts_node_is_null(name) && ts_node_named_child_count(name) == 1 &&
               (is(name, "tuple_pattern") || is(name, "parenthesized_expression")))
            name = ts_node_named_child(name, 0);
        if (ts_node_is_null(ann) || ts_node_is_null(name) || !is(name, "identifier"))
            scan_node(s, left, X_STORE);
        else if (ts_node_eq(name, left))
            name_at(s, left, F_ANNOT | F_LOCAL); /* a simple annotated name */
        else if (!ts_node_is_null(py_field(n, "right")))
            name_at(s, name, F_LOCAL); /* `(x): T = v`; `(x): T` binds nothing */
        scan_annotation(s, ann);
        scan_field(s, n, "right", X_LOAD);
    } else if (!strcmp(type, "augmented_assignment") || !strcmp(type, "for_statement") ||
               !strcmp(type, "named_expression")) {
        TSNode left = py_field(n, is(n, "named_expression") ? "name" : "left");
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode ch = ts_node_named_child(n, i);
            scan_node(s, ch, ts_node_eq(ch, left) ? X_STORE : X_LOAD);
        }
    } else if (!strcmp(type, "as_pattern")) {
        TSNode alias = py_field(n, "alias");
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode ch = ts_node_named_child(n, i);
            if (ts_node_eq(ch, alias))
                scan_node(s, ch, X_STORE);
            else if (is(ch, "case_pattern"))
                scan_pattern(s, ch);
            else
                scan_node(s, ch, X_LOAD);
        }
    } else if (!strcmp(type, "delete_statement")) {
        scan_children(s, n, X_DEL);
    } else if (!strcmp(type, "import_statement") || !strcmp(type, "import_from_statement") ||
               !strcmp(type, "future_import_statement")) {
        scan_import(s, n);
    } else if (!strcmp(type, "case_clause")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode ch = ts_node_named_child(n, i);
            if (is(ch, "case_pattern"))
                scan_pattern(s, ch);
            else
                scan_node(s, ch, X_LOAD);
        }
    } else {
        return 0;
    }
    return 1;
}

/* The containers a target's context passes through. */
static int passes_context(const char *type)
{
    static const char *const through[] = {
        "pattern_list",       "tuple_pattern",   "list_pattern",
        "list_splat_pattern", "tuple",           "list",
        "list_splat",         "expression_list", "parenthesized_expression",
        "as_pattern_target"};
    for (size_t i = 0; i < sizeof(through) / sizeof(*through); i++)
        if (!strcmp(type, through[i]))
            return 1;
    return 0;
}

static void scan_node(scan *s, TSNode n, int ctx)
{
    if (ts_node_is_null(n) || ts_node_start_byte(n) >= s->until)
        return;
    const char *type = ts_node_type(n);
    if (!strcmp(type, "identifier")) {
        name_at(s, n, ctx == X_LOAD ? F_USE : F_LOCAL);
        if (ctx == X_LOAD && s->function && s->len == 9 && !memcmp(s->name, "__class__", 9) &&
            text_is(s, n, "super", 5))
            s->flags |= F_USE;
        return;
    }
    if (scan_definition(s, n, type) || scan_binding(s, n, type))
        return;
    if (!strcmp(type, "attribute")) {
        scan_field(s, n, "object", X_LOAD);
    } else if (!strcmp(type, "keyword_argument")) {
        scan_field(s, n, "value", X_LOAD);
    } else if (!strcmp(type, "decorated_definition")) {
        scan_children(s, n, X_LOAD);
    } else {
        scan_children(s, n, passes_context(type) ? ctx : X_LOAD);
    }
}

/* The flags of `name` in the scope whose definition is `scope` (the module's root
 * for the module), from the nodes before byte `until`. */
static unsigned scan_scope(const cc *c, TSNode scope, const char *name, size_t len, uint32_t until)
{
    scan s = {c, name, len, until, 0, 0};
    if (is(scope, "function_definition")) {
        s.function = 1;
        TSNode params = py_field(scope, "parameters");
        uint32_t k = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
        for (uint32_t i = 0; i < k; i++) {
            TSNode p = cc_param_name(ts_node_named_child(params, i));
            if (!ts_node_is_null(p))
                name_at(&s, p, F_PARAM);
        }
        scan_node(&s, py_field(scope, "body"), X_LOAD);
    } else if (is(scope, "class_definition")) {
        scan_node(&s, py_field(scope, "body"), X_LOAD);
    } else {
        scan_children(&s, scope, X_LOAD);
    }
    return s.flags;
}

/* Whether a function around the scope at stack index `at` binds `name` for a
 * nonlocal declaration (symtable.c's analyze_block: a function's bound names pass
 * to the scopes in it, a class's do not, a global declaration takes one away). */
static int enclosing_binds(const cc *c, size_t at, const char *name, size_t len)
{
    for (size_t i = at; i-- > 0;) {
        const cc_scope *e = &c->stack.items[i];
        if (e->kind == K_CLASS && len == 9 && !memcmp(name, "__class__", 9))
            return 1;
        if (e->kind != K_DEF)
            continue;
        unsigned f = scan_scope(c, e->node, name, len, UINT32_MAX);
        if (f & F_GLOBAL)
            return 0;
        if (f & (F_NONLOCAL | F_LOCAL | F_PARAM | F_IMPORT))
            return 1;
    }
    return 0;
}

/* The first declaration of the name in the scope's (from dirs[from]), or `self`. */
static const cc_directive *first_directive(const cc *c, uint32_t from, const cc_directive *self,
                                           const char *name, size_t len, int *other)
{
    const cc_directive *first = NULL;
    *other = 0;
    for (size_t i = from; i < c->dirs.len; i++) {
        size_t l;
        const char *p = py_text(c->t, c->dirs.items[i].name, &l);
        if (l != len || memcmp(p, name, len))
            continue;
        if (!first)
            first = &c->dirs.items[i];
        if (c->dirs.items[i].global != self->global)
            *other = 1;
    }
    return first ? first : self;
}

/* One name of a global or nonlocal statement. */
static void directive_name(cc *c, TSNode stmt, TSNode id, int global, const cc_scope *in, size_t at)
{
    size_t len;
    const char *p = py_text(c->t, id, &len);
    char name[128];
    snprintf(name, sizeof(name), "%.*s", (int)(len < 120 ? len : 120), p);
    const char *kw = global ? "global" : "nonlocal";
    TSNode scope = in ? in->node : py_root(c->t);
    uint32_t from = in ? in->dirs_at : 0;
    unsigned f = scan_scope(c, scope, p, len, ts_node_start_byte(stmt));
    if (f & F_PARAM)
        cc_refuse(c, stmt, CC_SYMTABLE, "name '%s' is parameter and %s", name, kw);
    else if (f & F_USE)
        cc_refuse(c, stmt, CC_SYMTABLE, "name '%s' is used prior to %s declaration", name, kw);
    else if (f & F_ANNOT)
        cc_refuse(c, stmt, CC_SYMTABLE, "annotated name '%s' can't be %s", name, kw);
    else if (f & F_LOCAL)
        cc_refuse(c, stmt, CC_SYMTABLE, "name '%s' is assigned to before %s declaration", name, kw);
    cc_directive d = {id, stmt, global};
    int other;
    const cc_directive *first = first_directive(c, from, &d, p, len, &other);
    TSNode first_stmt = first->stmt;
    VEC_PUSH(&c->dirs, d);
    /* the analysis goes through the module, then the scopes in the order they begin
     * (a def at the file's first byte too), and a scope's names in the order they
     * first appear (here: their first declaration) */
    uint64_t scope_key = in ? (uint64_t)ts_node_start_byte(in->node) + 1 : 0;
    uint64_t key = scope_key << 32 | ts_node_start_byte(first_stmt);
    if (other)
        cc_refuse_key(c, first_stmt, CC_ANALYSIS, key, "name '%s' is nonlocal and global", name);
    else if (global)
        return;
    else if (!in)
        cc_refuse_key(c, first_stmt, CC_ANALYSIS, key,
                      "nonlocal declaration not allowed at module level");
    else if (!enclosing_binds(c, at, p, len) &&
             !(scan_scope(c, scope, p, len, UINT32_MAX) & F_GLOBAL))
        cc_refuse_key(c, first_stmt, CC_ANALYSIS, key, "no binding for nonlocal '%s' found", name);
}

void cc_directive_stmt(cc *c, TSNode stmt, int global)
{
    size_t at = 0;
    const cc_scope *in = cc_enclosing(c, c->stack.len, &at);
    uint32_t k = ts_node_named_child_count(stmt);
    for (uint32_t i = 0; i < k; i++) {
        TSNode id = ts_node_named_child(stmt, i);
        if (is(id, "identifier"))
            directive_name(c, stmt, id, global, in, at);
    }
}

void cc_annotated(cc *c, TSNode assign)
{
    const cc_scope *in = cc_enclosing(c, c->stack.len, NULL);
    TSNode left = py_field(assign, "left");
    if (!in || ts_node_is_null(left) || !is(left, "identifier") || in->dirs_at >= c->dirs.len)
        return;
    size_t len;
    const char *p = py_text(c->t, left, &len);
    int found = 0, global = 0;
    for (size_t i = in->dirs_at; i < c->dirs.len; i++) {
        size_t l;
        const char *q = py_text(c->t, c->dirs.items[i].name, &l);
        if (l == len && !memcmp(p, q, len))
            found = 1, global |= c->dirs.items[i].global;
    }
    if (found)
        cc_refuse(c, assign, CC_SYMTABLE, "annotated name '%.*s' can't be %s",
                  (int)(len < 120 ? len : 120), p, global ? "global" : "nonlocal");
}

/* Whether `id` names a name the target binds (through tuples, lists, stars, not an
 * attribute's or a subscript's). */
static int target_binds(const py_tree *t, TSNode target, TSNode id)
{
    if (is(target, "identifier")) {
        size_t a, b;
        const char *p = py_text(t, target, &a), *q = py_text(t, id, &b);
        return a == b && !memcmp(p, q, a);
    }
    if (!passes_context(ts_node_type(target)))
        return 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(target); i++)
        if (target_binds(t, ts_node_named_child(target, i), id))
            return 1;
    return 0;
}

/* Whether a `for` clause of comprehension `comp` met before the point `pos` in
 * CPython's visit binds `id`: it visits the clauses before the element, so an
 * element (which comes first in the text) sees them all. */
static int comp_iter_binds(const py_tree *t, TSNode comp, uint32_t pos, TSNode id)
{
    uint32_t k = ts_node_named_child_count(comp);
    int element = 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(comp, i);
        if (!is(ch, "for_in_clause"))
            continue;
        if (ts_node_start_byte(ch) < pos)
            element = 0;
        else if (!element)
            break;
        TSNode left = py_field(ch, "left");
        if (!ts_node_is_null(left) && target_binds(t, left, id))
            return 1;
    }
    return 0;
}

void cc_walrus(cc *c, TSNode named)
{
    for (size_t i = c->stack.len; i-- > 0;) {
        int k = c->stack.items[i].kind;
        if (k == K_DEF || k == K_CLASS)
            break;
        if (k == K_ITER_OUTER || k == K_ITER_INNER) {
            cc_refuse(c, named, CC_SYMTABLE,
                      "assignment expression cannot be used in a comprehension iterable "
                      "expression");
            return;
        }
    }
    size_t at;
    const cc_scope *e = cc_enclosing(c, c->stack.len, &at);
    TSNode name = py_field(named, "name");
    if (!e || e->kind != K_COMP || ts_node_is_null(name))
        return;
    uint32_t pos = ts_node_start_byte(named);
    for (; e && e->kind == K_COMP; e = cc_enclosing(c, at, &at)) {
        if (comp_iter_binds(c->t, e->node, pos, name)) {
            size_t len;
            const char *p = py_text(c->t, name, &len);
            cc_refuse(c, named, CC_SYMTABLE,
                      "assignment expression cannot rebind comprehension iteration variable "
                      "'%.*s'",
                      (int)(len < 120 ? len : 120), p);
            return;
        }
        pos = ts_node_start_byte(e->node);
    }
    if (e && e->kind == K_CLASS)
        cc_refuse(c, named, CC_SYMTABLE,
                  "assignment expression within a comprehension cannot be used in a class body");
}

/* The assignment expressions of a comprehension's own scope in n (not those of a
 * comprehension or lambda in it): whether one binds a name target binds; *id the
 * target's name. */
static int walrus_in_scope(const py_tree *t, TSNode n, TSNode target, TSNode *id)
{
    const char *type = ts_node_type(n);
    if (!strcmp(type, "lambda") || pgci_ends_with(type, "_comprehension") ||
        !strcmp(type, "generator_expression"))
        return 0;
    if (!strcmp(type, "named_expression")) {
        TSNode name = py_field(n, "name");
        if (!ts_node_is_null(name) && target_binds(t, target, name)) {
            *id = name;
            return 1;
        }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (walrus_in_scope(t, ts_node_named_child(n, i), target, id))
            return 1;
    return 0;
}

/* The identifier in target that is named like id. */
static TSNode target_name(const py_tree *t, TSNode target, TSNode id)
{
    if (is(target, "identifier"))
        return target_binds(t, target, id) ? target : (TSNode){0};
    for (uint32_t i = 0; i < ts_node_named_child_count(target); i++) {
        TSNode ch = ts_node_named_child(target, i);
        if (passes_context(ts_node_type(ch)) || is(ch, "identifier")) {
            TSNode r = target_name(t, ch, id);
            if (!ts_node_is_null(r))
                return r;
        }
    }
    return (TSNode){0};
}

void cc_comp_clause(cc *c, TSNode clause)
{
    const cc_scope *comp = &c->stack.items[c->stack.len - 1];
    TSNode left = py_field(clause, "left");
    if (ts_node_is_null(left))
        return;
    uint32_t k = ts_node_named_child_count(comp->node);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(comp->node, i);
        if (ts_node_start_byte(ch) >= ts_node_start_byte(clause))
            break;
        TSNode id;
        if (is(ch, "if_clause") && walrus_in_scope(c->t, ch, left, &id)) {
            size_t len;
            const char *p = py_text(c->t, id, &len);
            TSNode at = target_name(c->t, left, id);
            cc_refuse(c, ts_node_is_null(at) ? left : at, CC_SYMTABLE,
                      "comprehension inner loop cannot rebind assignment expression target "
                      "'%.*s'",
                      (int)(len < 120 ? len : 120), p);
            return;
        }
    }
}
