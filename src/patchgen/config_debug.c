/*
 * config_debug.c - `__debug__`, which Python 3.11's compiler will not bind.
 *
 * Python/compile.c's forbidden_name refuses to store or delete the name
 * `__debug__` wherever a name is bound: an assignment's, a `for`'s, a `with`'s,
 * a comprehension's or an assignment expression's target, `del`, an attribute
 * stored (`a.__debug__ = 1`, not deleted), an import, a def's or a class's name, a
 * parameter, a keyword argument, `except E as`, a match statement's capture.
 * Reading it is fine. The message is "cannot assign to __debug__" ("cannot delete
 * __debug__"), at the place the compiler is at: the name in a target, the
 * statement for an import, a def, a class and an `except`, the call for a keyword
 * argument. Refusals of the compiler are ordered by when it meets them
 * (config_compile.h's key): a target after the value assigned, a def's parameters
 * before its decorators, its name after its body.
 *
 * A match statement's captures are checked in the same pass, as the compiler's
 * pattern_helper_store_name does: a name bound twice in one pattern ("multiple
 * assignments to name 'a' in pattern"), and a class pattern's attribute repeated.
 */
#include <stdlib.h>
#include <string.h>

#include "patchgen/config_compile.h"
#include "patchgen/config_internal.h"

static const char debug[] = "__debug__";

static int is(TSNode n, const char *type)
{
    return !strcmp(ts_node_type(n), type);
}

int cc_is_debug(const cc *c, TSNode n)
{
    return !ts_node_is_null(n) && py_text_eq(c->t, n, debug);
}

/* Whether n's text holds the name: most nodes do not, and need no more look. */
static int mentions(const cc *c, TSNode n)
{
    if (ts_node_is_null(n))
        return 0;
    size_t len;
    const char *s = py_text(c->t, n, &len);
    return memmem(s, len, debug, sizeof(debug) - 1) != NULL;
}

static uint64_t at_start(TSNode n)
{
    return CC_KEY_AT(ts_node_start_byte(n));
}

static uint64_t before(TSNode n)
{
    return CC_KEY_BEFORE(ts_node_start_byte(n));
}

/* After n's end: deeper nodes ending there first (`extra` deeper still). */
static uint64_t at_end(TSNode n, int extra)
{
    int depth = extra;
    for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up))
        depth++;
    return CC_KEY_AFTER(ts_node_end_byte(n), depth);
}

static void refuse(cc *c, TSPoint at, uint64_t key, int del)
{
    cc_refuse_at(c, at, CC_COMPILER, key,
                 del ? "cannot delete __debug__" : "cannot assign to __debug__");
}

/* Where the compiler is when it stores attribute a: its start, or where its name
 * is when it ends on another line (update_start_location_to_match_attr). */
static TSPoint attribute_at(TSNode a)
{
    TSPoint s = ts_node_start_point(a), e = ts_node_end_point(a);
    if (s.row == e.row)
        return s;
    e.column -= e.column >= sizeof(debug) - 1 ? (uint32_t)(sizeof(debug) - 1) : e.column;
    return e;
}

/* A target the compiler stores (or deletes) with this key: the first __debug__ in
 * it; 1 when one was found. */
static int target(cc *c, TSNode e, uint64_t key, int del)
{
    if (ts_node_is_null(e))
        return 0;
    if (is(e, "identifier")) {
        if (!cc_is_debug(c, e))
            return 0;
        refuse(c, ts_node_start_point(e), key, del);
        return 1;
    }
    if (is(e, "attribute")) {
        if (del || !cc_is_debug(c, ts_node_child_by_field_name(e, "attribute", 9)))
            return 0;
        refuse(c, attribute_at(e), key, 0);
        return 1;
    }
    if (is(e, "tuple") || is(e, "list") || is(e, "pattern_list") || is(e, "tuple_pattern") ||
        is(e, "list_pattern") || is(e, "parenthesized_expression") || is(e, "expression_list") ||
        is(e, "list_splat") || is(e, "list_splat_pattern")) {
        uint32_t k = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < k; i++)
            if (target(c, ts_node_named_child(e, i), key, del))
                return 1;
    }
    return 0;
}

void cc_debug_assign(cc *c, TSNode n)
{
    TSNode left = ts_node_child_by_field_name(n, "left", 4);
    if (!mentions(c, left))
        return;
    TSNode right = ts_node_child_by_field_name(n, "right", 5);
    if (!ts_node_is_null(right)) {
        /* the value first; `a = b = 1` is two assignments to tree-sitter */
        TSNode top = n;
        while (is(ts_node_parent(top), "assignment"))
            top = ts_node_parent(top);
        target(c, left, at_end(top, 0), 0);
        return;
    }
    if (ts_node_is_null(ts_node_child_by_field_name(n, "type", 4)))
        return;
    /* `x: int`: the name or the attribute, at the statement */
    TSNode x = left;
    while ((is(x, "parenthesized_expression") || is(x, "tuple_pattern")) &&
           ts_node_named_child_count(x) == 1)
        x = ts_node_named_child(x, 0);
    if ((is(x, "identifier") && cc_is_debug(c, x)) ||
        (is(x, "attribute") && cc_is_debug(c, ts_node_child_by_field_name(x, "attribute", 9))))
        refuse(c, ts_node_start_point(ts_node_parent(n)), before(n), 0);
}

void cc_debug_augmented(cc *c, TSNode n)
{
    TSNode left = ts_node_child_by_field_name(n, "left", 4);
    while (
        (is(left, "parenthesized_expression") || is(left, "tuple_pattern") || is(left, "tuple")) &&
        ts_node_named_child_count(left) == 1 && ts_node_child_count(left) == 3)
        left = ts_node_named_child(left, 0);
    if (is(left, "identifier") && cc_is_debug(c, left))
        refuse(c, ts_node_start_point(left), at_end(n, 0), 0);
}

void cc_debug_for(cc *c, TSNode n)
{
    if (!mentions(c, ts_node_child_by_field_name(n, "left", 4)))
        return;
    TSNode right = ts_node_child_by_field_name(n, "right", 5);
    target(c, ts_node_child_by_field_name(n, "left", 4),
           ts_node_is_null(right) ? at_start(n) : at_end(right, 0), 0);
}

void cc_debug_comp_clause(cc *c, TSNode clause)
{
    if (!mentions(c, ts_node_child_by_field_name(clause, "left", 4)))
        return;
    TSNode comp = ts_node_parent(clause);
    int first = 1;
    for (uint32_t i = 0; i < ts_node_named_child_count(comp); i++) {
        TSNode x = ts_node_named_child(comp, i);
        if (ts_node_start_byte(x) >= ts_node_start_byte(clause))
            break;
        first &= !is(x, "for_in_clause");
    }
    /* the first clause's target is the comprehension's first code; a later one's
     * follows its iterable */
    TSNode left = ts_node_child_by_field_name(clause, "left", 4);
    TSNode right = ts_node_child_by_field_name(clause, "right", 5);
    uint64_t key = first || ts_node_is_null(right) ? at_start(comp) : at_end(right, 0);
    target(c, left, key, 0);
}

void cc_debug_walrus(cc *c, TSNode n)
{
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    if (cc_is_debug(c, name))
        refuse(c, ts_node_start_point(name), at_end(n, 0), 0);
}

void cc_debug_delete(cc *c, TSNode n)
{
    if (!mentions(c, n))
        return;
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        if (target(c, ts_node_named_child(n, i), at_start(ts_node_named_child(n, i)), 1))
            return;
}

void cc_debug_with_target(cc *c, TSNode target_node)
{
    if (!mentions(c, target_node))
        return;
    uint32_t k = ts_node_named_child_count(target_node);
    for (uint32_t i = 0; i < k; i++)
        if (target(c, ts_node_named_child(target_node, i), at_start(target_node), 0))
            return;
}

/* `except E as __debug__`: at the handler, after its body. */
void cc_debug_except(cc *c, TSNode target_node, TSNode handler)
{
    TSNode x = ts_node_named_child(target_node, 0);
    if (!ts_node_is_null(x) && is(x, "identifier") && cc_is_debug(c, x))
        refuse(c, ts_node_start_point(handler), at_end(handler, 0), 0);
}

/* import a.b, import a as b, from a import b as c: the name bound, at the statement. */
void cc_debug_import(cc *c, TSNode stmt)
{
    TSNode module = ts_node_child_by_field_name(stmt, "module_name", 11);
    uint32_t k = ts_node_named_child_count(stmt);
    for (uint32_t i = 0; i < k; i++) {
        TSNode n = ts_node_named_child(stmt, i), bound = {0};
        if (!ts_node_is_null(module) && ts_node_eq(n, module))
            continue;
        if (is(n, "aliased_import"))
            bound = ts_node_child_by_field_name(n, "alias", 5);
        else if (is(n, "dotted_name"))
            bound = ts_node_named_child(n, 0); /* `import a.b` binds a */
        if (!ts_node_is_null(bound) && cc_is_debug(c, bound)) {
            refuse(c, ts_node_start_point(stmt), at_start(stmt), 0);
            return;
        }
    }
}

/* The parameters of a def or a lambda: at its start, before anything else of it. */
void cc_debug_params(cc *c, TSNode def, TSNode params, uint64_t key)
{
    if (ts_node_is_null(params))
        return;
    uint32_t k = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k; i++)
        if (cc_is_debug(c, cc_param_name(ts_node_named_child(params, i)))) {
            refuse(c, ts_node_start_point(def), key, 0);
            return;
        }
}

void cc_debug_def(cc *c, TSNode def)
{
    TSNode params = ts_node_child_by_field_name(def, "parameters", 10);
    TSNode name = ts_node_child_by_field_name(def, "name", 4);
    if (!mentions(c, params) && !mentions(c, name))
        return;
    TSNode up = ts_node_parent(def);
    TSNode first = is(up, "decorated_definition") ? up : def;
    if (is(def, "function_definition"))
        cc_debug_params(c, def, params, before(first));
    else if (is(def, "lambda"))
        cc_debug_params(c, def, params, before(def));
    if (!is(def, "lambda") && cc_is_debug(c, name))
        refuse(c, ts_node_start_point(def), at_end(def, 0), 0);
}

/* A call's keyword arguments, checked before its arguments are compiled (a class's
 * after its body): __debug__, or a keyword repeated, the first in CPython's order
 * (each keyword, then the later ones with its name). 1 when one was refused. */
/* Where the compiler checks a call's (a class's) keywords. */
static uint64_t keywords_key(TSNode args, TSNode *up)
{
    *up = ts_node_parent(args);
    return is(*up, "class_definition") ? at_end(*up, 1) : before(args);
}

int cc_debug_keywords(cc *c, TSNode args, const cc_keyword *kw, size_t n)
{
    TSNode up;
    for (size_t i = 0; i < n; i++) {
        if (kw[i].len == sizeof(debug) - 1 && !memcmp(kw[i].s, debug, kw[i].len)) {
            uint64_t key = keywords_key(args, &up);
            refuse(c, ts_node_start_point(up), key, 0);
            return 1;
        }
        for (size_t j = i + 1; j < n; j++) {
            if (kw[j].len == kw[i].len && !memcmp(kw[i].s, kw[j].s, kw[i].len)) {
                uint64_t key = keywords_key(args, &up);
                cc_refuse_at(c, ts_node_start_point(kw[j].node), CC_COMPILER, key,
                             "keyword argument repeated: %.*s", (int)kw[i].len, kw[i].s);
                return 1;
            }
        }
    }
    return 0;
}

/* --- a match statement's patterns ------------------------------------------- */

/* The last pattern the compiler sets its place to in p (it does not go back). */
static TSNode last_pattern(TSNode p)
{
    for (;;) {
        TSNode last = {0};
        uint32_t k = ts_node_named_child_count(p);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ts_node_named_child(p, i);
            if (is(c, "case_pattern") || is(c, "list_pattern") || is(c, "tuple_pattern") ||
                is(c, "dict_pattern") || is(c, "class_pattern") || is(c, "as_pattern") ||
                is(c, "union_pattern") || is(c, "splat_pattern") || is(c, "keyword_pattern"))
                last = c;
        }
        if (ts_node_is_null(last))
            return p;
        p = last;
    }
}

/* The names a case's pattern binds so far, and the key of its refusals. */
typedef struct captures {
    strvec names;
    uint64_t key;
    int in_union; /* an alternative's names are its own (not followed) */
} captures;

/* One name the compiler stores at `at` (pattern_helper_store_name): __debug__, or
 * bound twice in the pattern; 1 when refused. */
static int capture(cc *c, captures *cp, TSNode name, TSPoint at)
{
    if (ts_node_is_null(name) || py_text_eq(c->t, name, "_"))
        return 0;
    if (cc_is_debug(c, name)) {
        refuse(c, at, cp->key, 0);
        return 1;
    }
    if (cp->in_union)
        return 0;
    char *s = py_text_dup(c->t, name);
    if (strvec_find(&cp->names, s) >= 0) {
        cc_refuse_at(c, at, CC_COMPILER, cp->key, "multiple assignments to name '%s' in pattern",
                     s);
        free(s);
        return 1;
    }
    strvec_push_owned(&cp->names, s);
    return 0;
}

static int pattern(cc *c, captures *cp, TSNode p);

/* C(a, b=p): the keywords' names first (validate_kwd_attrs: __debug__, one
 * repeated, at its pattern), then the patterns. */
static int class_pattern(cc *c, captures *cp, TSNode p)
{
    uint32_t k = ts_node_named_child_count(p);
    for (uint32_t i = 1; i < k; i++) {
        TSNode kw = ts_node_named_child(p, i);
        if (is(kw, "case_pattern") && ts_node_named_child_count(kw) == 1)
            kw = ts_node_named_child(kw, 0);
        if (!is(kw, "keyword_pattern") || ts_node_named_child_count(kw) < 2)
            continue;
        TSNode name = ts_node_named_child(kw, 0);
        TSPoint at = ts_node_start_point(ts_node_named_child(kw, 1));
        if (cc_is_debug(c, name)) {
            refuse(c, at, cp->key, 0);
            return 1;
        }
        for (uint32_t j = i + 1; j < k; j++) {
            TSNode other = ts_node_named_child(p, j);
            if (is(other, "case_pattern") && ts_node_named_child_count(other) == 1)
                other = ts_node_named_child(other, 0);
            if (!is(other, "keyword_pattern") || ts_node_named_child_count(other) < 2)
                continue;
            size_t n, m;
            const char *a = py_text(c->t, name, &n);
            const char *b = py_text(c->t, ts_node_named_child(other, 0), &m);
            if (n == m && !memcmp(a, b, n)) {
                cc_refuse_at(c, ts_node_start_point(ts_node_named_child(other, 1)), CC_COMPILER,
                             cp->key, "attribute name repeated in class pattern: %.*s", (int)n, a);
                return 1;
            }
        }
    }
    for (uint32_t i = 1; i < k; i++)
        if (pattern(c, cp, ts_node_named_child(p, i)))
            return 1;
    return 0;
}

/* The captures of pattern p in the compiler's order; 1 when one was refused. */
static int pattern(cc *c, captures *cp, TSNode p)
{
    const char *type = ts_node_type(p);
    uint32_t k = ts_node_named_child_count(p);
    if (!strcmp(type, "dotted_name")) { /* a capture when it is one name */
        if (k != 1)
            return 0;
        TSNode at = p;
        if (is(ts_node_parent(p), "case_pattern"))
            at = ts_node_parent(p);
        return capture(c, cp, ts_node_named_child(p, 0), ts_node_start_point(at));
    }
    if (!strcmp(type, "splat_pattern")) {
        /* `**rest` is stored after the mapping's values, `*rest` at itself */
        TSPoint at = ts_node_start_point(p);
        TSNode up = ts_node_parent(p);
        if (is(up, "dict_pattern")) {
            TSNode last = {0};
            for (uint32_t i = 0; i < ts_node_named_child_count(up); i++) {
                TSNode v = ts_node_named_child(up, i);
                if (is(v, "case_pattern"))
                    last = v;
            }
            at = ts_node_start_point(ts_node_is_null(last) ? up : last_pattern(last));
        }
        return capture(c, cp, ts_node_named_child(p, 0), at);
    }
    if (!strcmp(type, "as_pattern")) {
        TSNode sub = ts_node_named_child(p, 0);
        if (pattern(c, cp, sub))
            return 1;
        TSNode alias = ts_node_named_child(p, k - 1);
        if (k > 1 && is(alias, "identifier"))
            return capture(c, cp, alias, ts_node_start_point(last_pattern(sub)));
        return 0;
    }
    if (!strcmp(type, "keyword_pattern"))
        return k > 1 && pattern(c, cp, ts_node_named_child(p, 1));
    if (!strcmp(type, "dict_pattern")) { /* its values, then the rest */
        for (uint32_t i = 0; i < k; i++) {
            TSNode v = ts_node_named_child(p, i);
            if (is(v, "case_pattern") && pattern(c, cp, v))
                return 1;
        }
        for (uint32_t i = 0; i < k; i++) {
            TSNode v = ts_node_named_child(p, i);
            if (is(v, "splat_pattern") && pattern(c, cp, v))
                return 1;
        }
        return 0;
    }
    if (!strcmp(type, "class_pattern"))
        return class_pattern(c, cp, p);
    if (!strcmp(type, "union_pattern")) {
        int was = cp->in_union;
        cp->in_union = 1;
        int r = 0;
        for (uint32_t i = 0; i < k && !r; i++)
            r = pattern(c, cp, ts_node_named_child(p, i));
        cp->in_union = was;
        return r;
    }
    if (!strcmp(type, "case_pattern") || !strcmp(type, "list_pattern") ||
        !strcmp(type, "tuple_pattern")) {
        for (uint32_t i = 0; i < k; i++)
            if (pattern(c, cp, ts_node_named_child(p, i)))
                return 1;
    }
    return 0;
}

void cc_debug_case(cc *c, TSNode clause)
{
    uint32_t k = ts_node_named_child_count(clause);
    for (uint32_t i = 0; i < k; i++) {
        TSNode p = ts_node_named_child(clause, i);
        if (!is(p, "case_pattern"))
            continue;
        captures cp = {STRVEC_INIT, at_start(p), 0};
        int r = pattern(c, &cp, p);
        strvec_free(&cp.names);
        if (r)
            return;
    }
}
