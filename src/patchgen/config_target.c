/*
 * config_target.c - what Python cannot assign to or delete.
 *
 * tree-sitter-python takes any expression after `del` and after `with ... as`,
 * where CPython's parser takes names, attributes, subscripts and tuples and lists
 * of them (Grammar/python.gram's del_targets and star_targets), and refuses the
 * rest with "cannot delete function call", "cannot assign to literal" at the first
 * part it cannot take (Parser/pegen.c's _PyPegen_get_invalid_target). Of a target
 * it takes, its compiler refuses a starred one alone and two stars in one tuple.
 * The same names serve the parser's refusals in a tree with an error
 * (config_syntax.c): `f() = 1`, `for f() in x`, and an assignment expression's
 * operand that is no name, `(a.b := 1)` (its invalid_named_expression).
 */
#include <stdio.h>
#include <string.h>

#include "patchgen/config_compile.h"
#include "patchgen/config_internal.h"
#include "py/pytok.h"

static int is(TSNode n, const char *type)
{
    return !strcmp(ts_node_type(n), type);
}

/* An f-string among the parts of a string literal. */
static int is_fstring(const py_tree *t, TSNode e)
{
    uint32_t k = is(e, "concatenated_string") ? ts_node_named_child_count(e) : 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode s = is(e, "concatenated_string") ? ts_node_named_child(e, i) : e;
        if (ts_node_named_child_count(s) == 0)
            continue;
        size_t len;
        const char *p = py_text(t, ts_node_named_child(s, 0), &len); /* string_start */
        for (size_t j = 0; j < len; j++)
            if (p[j] == 'f' || p[j] == 'F')
                return 1;
    }
    return 0;
}

const char *cc_expr_name(const py_tree *t, TSNode e)
{
    static const struct {
        const char *type, *name;
    } names[] = {{"attribute", "attribute"},
                 {"subscript", "subscript"},
                 {"list_splat", "starred"},
                 {"list_splat_pattern", "starred"},
                 {"identifier", "name"},
                 {"list", "list"},
                 {"list_pattern", "list"},
                 {"tuple", "tuple"},
                 {"tuple_pattern", "tuple"},
                 {"expression_list", "tuple"},
                 {"pattern_list", "tuple"},
                 {"lambda", "lambda"},
                 {"call", "function call"},
                 {"boolean_operator", "expression"},
                 {"binary_operator", "expression"},
                 {"unary_operator", "expression"},
                 {"not_operator", "expression"},
                 {"generator_expression", "generator expression"},
                 {"yield", "yield expression"},
                 {"await", "await expression"},
                 {"list_comprehension", "list comprehension"},
                 {"set_comprehension", "set comprehension"},
                 {"dictionary_comprehension", "dict comprehension"},
                 {"dictionary", "dict literal"},
                 {"set", "set display"},
                 {"integer", "literal"},
                 {"float", "literal"},
                 {"true", "True"},
                 {"false", "False"},
                 {"none", "None"},
                 {"ellipsis", "ellipsis"},
                 {"comparison_operator", "comparison"},
                 {"conditional_expression", "conditional expression"},
                 {"named_expression", "named expression"}};
    while (is(e, "parenthesized_expression") && ts_node_named_child_count(e) > 0)
        e = ts_node_named_child(e, 0);
    if (is(e, "string") || is(e, "concatenated_string"))
        return is_fstring(t, e) ? "f-string expression" : "literal";
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (is(e, names[i].type))
            return names[i].name;
    return "expression";
}

static int has_comma(TSNode n)
{
    for (uint32_t i = 0; i < ts_node_child_count(n); i++)
        if (!strcmp(ts_node_type(ts_node_child(n, i)), ","))
            return 1;
    return 0;
}

static int is_star(TSNode n)
{
    return is(n, "list_splat") || is(n, "list_splat_pattern");
}

static TSNode invalid(const py_tree *t, TSNode e, int targets, const char **star)
{
    if (is(e, "parenthesized_expression") || is(e, "tuple") || is(e, "tuple_pattern")) {
        /* `(*a)`: a group, not a tuple, and a star is no expression */
        if (ts_node_named_child_count(e) == 1 && is_star(ts_node_named_child(e, 0)) &&
            (is(e, "parenthesized_expression") || !has_comma(e))) {
            *star = "cannot use starred expression here";
            return ts_node_named_child(e, 0);
        }
    }
    if (is(e, "parenthesized_expression") || is(e, "tuple") || is(e, "tuple_pattern") ||
        is(e, "list") || is(e, "list_pattern") || is(e, "expression_list") ||
        is(e, "pattern_list")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(e); i++) {
            TSNode ch = ts_node_named_child(e, i);
            if (ts_node_is_extra(ch))
                continue;
            TSNode r = invalid(t, ch, targets, star);
            if (!ts_node_is_null(r))
                return r;
        }
        return (TSNode){0};
    }
    if (is_star(e)) {
        if (targets == TARGET_DEL || ts_node_named_child_count(e) == 0)
            return e;
        return invalid(t, ts_node_named_child(e, 0), targets, star);
    }
    if (is(e, "comparison_operator") && targets == TARGET_FOR) {
        /* `for a in b in c`: the target is what comes before the first `in` */
        if (ts_node_child_count(e) > 1 && !strcmp(ts_node_type(ts_node_child(e, 1)), "in"))
            return invalid(t, ts_node_named_child(e, 0), targets, star);
        return (TSNode){0};
    }
    if (is(e, "identifier") || is(e, "attribute") || is(e, "subscript") || ts_node_is_extra(e))
        return (TSNode){0};
    return e;
}

TSNode cc_invalid_target(const py_tree *t, TSNode e, int targets, char *why, size_t n)
{
    const char *star = NULL;
    TSNode r = invalid(t, e, targets, &star);
    if (ts_node_is_null(r))
        return r;
    if (star)
        snprintf(why, n, "%s", star);
    else
        snprintf(why, n, targets == TARGET_DEL ? "cannot delete %s" : "cannot assign to %s",
                 cc_expr_name(t, r));
    return r;
}

void cc_delete(cc *c, TSNode del)
{
    char why[96];
    for (uint32_t i = 0; i < ts_node_named_child_count(del); i++) {
        TSNode x = ts_node_named_child(del, i);
        for (uint32_t j = 0; is(x, "expression_list") && j < ts_node_named_child_count(x); j++)
            if (is(ts_node_named_child(x, j), "named_expression"))
                return; /* `del a, x := 1`: the parser stops at the `:=` (config_parse.c) */
        if (is(x, "named_expression"))
            return;
        TSNode r = cc_invalid_target(c->t, x, TARGET_DEL, why, sizeof(why));
        if (!ts_node_is_null(r)) {
            cc_refuse(c, r, CC_PARSER, "%s", why);
            return;
        }
    }
}

/* The compiler's rules on a target the parser took: a star alone, two in a tuple. */
static void starred(cc *c, TSNode e, int top)
{
    while (is(e, "parenthesized_expression") && ts_node_named_child_count(e) == 1)
        e = ts_node_named_child(e, 0);
    if (is_star(e)) {
        if (top)
            cc_refuse(c, e, CC_COMPILER, "starred assignment target must be in a list or tuple");
        else if (ts_node_named_child_count(e) > 0)
            starred(c, ts_node_named_child(e, 0), 0);
        return;
    }
    if (!is(e, "tuple") && !is(e, "list") && !is(e, "expression_list"))
        return;
    int stars = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(e); i++)
        stars += is_star(ts_node_named_child(e, i));
    if (stars > 1) {
        cc_refuse(c, e, CC_COMPILER, "multiple starred expressions in assignment");
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(e); i++)
        starred(c, ts_node_named_child(e, i), 0);
}

void cc_with_target(cc *c, TSNode target)
{
    TSNode x = {0};
    for (uint32_t i = 0; i < ts_node_named_child_count(target) && ts_node_is_null(x); i++)
        if (!ts_node_is_extra(ts_node_named_child(target, i)))
            x = ts_node_named_child(target, i);
    if (ts_node_is_null(x))
        return;
    char why[96];
    TSNode r = cc_invalid_target(c->t, x, TARGET_STAR, why, sizeof(why));
    if (!ts_node_is_null(r))
        cc_refuse(c, r, CC_PARSER, "%s", why);
    else
        starred(c, x, 1);
}

/* --- the parser's refusals of a target, in a tree with an error ---------------- */

/* A token of one logical line: a name, a string, a number or an operator. */
typedef struct ltok {
    uint32_t start, end;
    int depth; /* of the brackets around it (an opening bracket: outside it) */
    char kind; /* 'n' name, 's' string, 'd' number, 'o' operator */
} ltok;
typedef VEC(ltok) ltoks;

static int name_byte(unsigned char ch)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch >= 0x80;
}

/* The end of the string literal whose quote is at src[i]. */
static size_t string_end(const char *src, size_t i, size_t end)
{
    char q = src[i];
    int triple = i + 2 < end && src[i + 1] == q && src[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < end) {
        if (src[i] == '\\') {
            i += 2;
        } else if (src[i] == q &&
                   (!triple || (i + 2 < end && src[i + 1] == q && src[i + 2] == q))) {
            return i + (triple ? 3 : 1);
        } else if (src[i] == '\n' && !triple) {
            return i;
        } else {
            i++;
        }
    }
    return end;
}

/* The operator at src[i]: its length (the longest of Python's). */
static size_t op_len(const char *s, size_t left)
{
    static const char *const ops[] = {
        "**=", "//=", ">>=", "<<=", "...", "==", "!=", "<=", ">=", ":=", "->", "+=",
        "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", "@=", "**", "//", "<<", ">>"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
        size_t n = strlen(ops[i]);
        if (n <= left && !memcmp(s, ops[i], n))
            return n;
    }
    return 1;
}

/* The tokens of src[from..to): what CPython's tokenizer reads of a logical line,
 * as far as targets need (strings whole, comments and continuations skipped). */
static void line_tokens(const char *src, size_t from, size_t to, ltoks *out)
{
    int depth = 0;
    for (size_t i = from; i < to;) {
        unsigned char ch = (unsigned char)src[i];
        size_t j = i;
        if (strchr(" \t\f\r\n\\", ch)) {
            i++;
            continue;
        }
        if (ch == '#') {
            while (i < to && src[i] != '\n')
                i++;
            continue;
        }
        char kind = 'o';
        if (name_byte(ch) && !(ch >= '0' && ch <= '9')) {
            while (j < to && name_byte((unsigned char)src[j]))
                j++;
            kind = 'n';
            if (j < to && (src[j] == '\'' || src[j] == '"') && j - i <= 2) {
                j = string_end(src, j, to); /* a prefixed string: rb'...' */
                kind = 's';
            }
        } else if (ch == '\'' || ch == '"') {
            j = string_end(src, i, to);
            kind = 's';
        } else if ((ch >= '0' && ch <= '9') ||
                   (ch == '.' && i + 1 < to && src[i + 1] >= '0' && src[i + 1] <= '9')) {
            while (j < to && (name_byte((unsigned char)src[j]) || src[j] == '.' ||
                              ((src[j] == '+' || src[j] == '-') && strchr("eE", src[j - 1]))))
                j++;
            kind = 'd';
        } else {
            j = i + op_len(src + i, to - i);
            if (strchr(")]}", ch) && depth > 0)
                depth--;
        }
        ltok t = {(uint32_t)i, (uint32_t)j, depth, kind};
        VEC_PUSH(out, t);
        if (kind == 'o' && strchr("([{", ch))
            depth++;
        i = j;
    }
}

static int tok_is(const char *src, const ltok *t, const char *s)
{
    size_t n = strlen(s);
    return t->end - t->start == n && !memcmp(src + t->start, s, n);
}

/* What the parser refuses of a target found in the text: where and why. */
typedef struct found {
    uint32_t at;     /* the refusal's byte */
    uint32_t rs, re; /* the target's bytes */
    char why[128];
    int name;    /* a name must take its place (a keyword argument's), not a group */
    uint32_t op; /* an assignment expression's `:=` after the target, or 0 */
    int chain;   /* the target holds another assignment expression (`a := 1 := 2`) */
    uint32_t eq; /* a condition's `=` that `<` in its place makes Python, or 0 */
} found;

/* Parses src[a..b) as an expression: the module's statement, or a null node when
 * it is not one expression statement without error. */
static TSNode parse_expr(py_tree *p, const char *src, uint32_t a, uint32_t b)
{
    if (py_parse(p, src + a, b - a, "<target>") < 0)
        return (TSNode){0};
    TSNode root = py_root(p);
    if (ts_node_has_error(root) || ts_node_named_child_count(root) != 1)
        return (TSNode){0};
    TSNode stmt = ts_node_named_child(root, 0);
    if (!is(stmt, "expression_statement") || ts_node_named_child_count(stmt) == 0)
        return (TSNode){0};
    return stmt;
}

/* The expression an expression statement holds: its one child, or itself for a
 * tuple without parentheses (`a, b`). */
static TSNode stmt_expr(TSNode stmt)
{
    if (ts_node_named_child_count(stmt) == 1 && !has_comma(stmt))
        return ts_node_named_child(stmt, 0);
    return stmt;
}

/* src[a..b) parsed in parentheses (it may run over lines) into *p: the expression,
 * its offsets one past src[a]'s; a null node when it is not one (the caller frees
 * *p either way). The text stays in *p's source. */
static TSNode parse_group(py_tree *p, const char *src, uint32_t a, uint32_t b)
{
    char *group = pgci_malloc(b - a + 2);
    group[0] = '(';
    memcpy(group + 1, src + a, b - a);
    group[b - a + 1] = ')';
    TSNode stmt = parse_expr(p, group, 0, b - a + 2);
    free(group);
    return ts_node_is_null(stmt) ? stmt : stmt_expr(stmt);
}

static TSNode invalid_in(const py_tree *t, TSNode e, int targets, const char **star)
{
    if (!is(e, "expression_statement"))
        return invalid(t, e, targets, star);
    for (uint32_t i = 0; i < ts_node_named_child_count(e); i++) {
        TSNode r = invalid(t, ts_node_named_child(e, i), targets, star);
        if (!ts_node_is_null(r))
            return r;
    }
    return (TSNode){0};
}

/* `for TARGET in`: the target between tokens k (after `for`) and the `in` at its
 * depth. */
static void for_target(const char *src, const ltoks *ts, size_t k, found *f)
{
    size_t in = k;
    while (in < ts->len && !(ts->items[in].depth == ts->items[k - 1].depth &&
                             ts->items[in].kind == 'n' && tok_is(src, &ts->items[in], "in")))
        in++;
    if (in == k || in >= ts->len)
        return;
    py_tree p;
    uint32_t a = ts->items[k].start;
    TSNode stmt = parse_expr(&p, src, a, ts->items[in - 1].end);
    const char *star = NULL;
    TSNode r = ts_node_is_null(stmt) ? stmt : invalid_in(&p, stmt_expr(stmt), TARGET_FOR, &star);
    if (!ts_node_is_null(r) && !star) {
        f->at = a + ts_node_start_byte(r);
        f->rs = a;
        f->re = ts->items[in - 1].end;
        snprintf(f->why, sizeof(f->why), "cannot assign to %s", cc_expr_name(&p, r));
    }
    py_tree_free(&p);
}

/* Whether CPython's bitwise_or takes the whole expression: an operand of a
 * comparison, not a comparison, `not`, `and`, a lambda, a conditional. */
static int is_bitwise_or(TSNode e)
{
    static const char *const others[] = {"comparison_operator",
                                         "not_operator",
                                         "boolean_operator",
                                         "conditional_expression",
                                         "lambda",
                                         "list_splat",
                                         "yield",
                                         "named_expression",
                                         "expression_statement"};
    for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
        if (is(e, others[i]))
            return 0;
    return 1;
}

/* Whether CPython's bitwise_or takes the start of the expression. */
static int starts_bitwise_or(TSNode e)
{
    if (is_bitwise_or(e))
        return 1;
    if (is(e, "comparison_operator") || is(e, "boolean_operator") ||
        is(e, "conditional_expression") || is(e, "expression_statement"))
        return ts_node_named_child_count(e) > 0 && starts_bitwise_or(ts_node_named_child(e, 0));
    return 0;
}

/* `A = B` where B begins with a bitwise_or that no `=` or `:=` follows: CPython's
 * "cannot assign to ... here. Maybe you meant '==' instead of '='?". */
static int value_is_bitwise_or(const char *src, const uint32_t *parts, size_t n)
{
    py_tree p;
    TSNode stmt = parse_expr(&p, src, parts[2], parts[3]);
    int r = 0;
    if (!ts_node_is_null(stmt)) {
        TSNode v = stmt_expr(stmt);
        r = starts_bitwise_or(v) && (n > 2 ? !is_bitwise_or(v) : !is(v, "named_expression"));
    }
    py_tree_free(&p);
    return r;
}

/* CPython's invalid_named_expression, tried on the last element of the first
 * target when the value is a bitwise_or no `=` follows: "invalid syntax. Maybe you
 * meant '==' or ':=' instead of '='?" after a name, "cannot assign to X here. Maybe
 * you meant '==' instead of '='?" after another bitwise_or but a list, a tuple, a
 * generator expression, True, False and None. 0 when it does not apply. */
static int named_expression(const py_tree *p, TSNode e, uint32_t off, found *f)
{
    if (is(e, "expression_statement")) { /* `a, f() = 1`: its last element */
        uint32_t k = ts_node_named_child_count(e);
        if (k == 0 || has_comma(ts_node_child(e, ts_node_child_count(e) - 1)))
            return 0;
        e = ts_node_named_child(e, k - 1);
        if (is(e, "identifier")) {
            f->at = off + ts_node_start_byte(e);
            snprintf(f->why, sizeof(f->why),
                     "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
            return 1;
        }
    }
    static const char *const others[] = {
        "list", "tuple", "generator_expression", "true", "false", "none", "identifier"};
    for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
        if (is(e, others[i]))
            return 0;
    if (!is_bitwise_or(e))
        return 0;
    while (is(e, "parenthesized_expression") && ts_node_named_child_count(e) == 1)
        e = ts_node_named_child(e, 0); /* a group is its expression */
    f->at = off + ts_node_start_byte(e);
    snprintf(f->why, sizeof(f->why),
             "cannot assign to %s here. Maybe you meant '==' instead of '='?", cc_expr_name(p, e));
    return 1;
}

/* `A = B = ...`: the first target (parts[i], from the start to an `=`) Python cannot
 * assign to (Grammar/python.gram's invalid_assignment and invalid_named_expression). */
static void assign_target(const char *src, const uint32_t *parts, size_t n, found *f)
{
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t a = parts[2 * i], b = parts[2 * i + 1];
        int starred = src[a] == '*'; /* `*x =`: tree-sitter reads `*f()` as a call */
        py_tree p;
        TSNode stmt = parse_expr(&p, src, a + starred, b);
        if (ts_node_is_null(stmt)) {
            py_tree_free(&p);
            return;
        }
        TSNode e = stmt_expr(stmt);
        const char *star = NULL;
        TSNode r = invalid_in(&p, e, TARGET_STAR, &star);
        if (ts_node_is_null(r) || star) {
            py_tree_free(&p);
            if (star)
                return;
            continue;
        }
        f->rs = a;
        f->re = b;
        if (is(e, "yield") && !starred) {
            f->at = a;
            snprintf(f->why, sizeof(f->why), "assignment to yield expression not possible");
        } else if (starred || i > 0 || !value_is_bitwise_or(src, parts, n) ||
                   !named_expression(&p, e, a, f)) {
            f->at = a + starred + ts_node_start_byte(r);
            snprintf(f->why, sizeof(f->why), "cannot assign to %s", cc_expr_name(&p, r));
        }
        py_tree_free(&p);
        return;
    }
}

/* `A += B` where A is no name, attribute or subscript. */
/* The target [a, b) parsed as an expression into *p: the expression in *e and, its
 * parentheses around one element taken off, the result; a null node when it does
 * not parse (the caller frees *p either way). */
static TSNode bare_target(py_tree *p, const char *src, uint32_t a, uint32_t b, TSNode *e)
{
    TSNode stmt = parse_expr(p, src, a, b);
    if (ts_node_is_null(stmt))
        return stmt;
    TSNode g = *e = stmt_expr(stmt);
    while (is(g, "parenthesized_expression") && ts_node_named_child_count(g) == 1)
        g = ts_node_named_child(g, 0);
    return g;
}

/* A name, an attribute or a subscript: what an augmented or annotated
 * assignment can assign to. */
static int single_target(TSNode g)
{
    return is(g, "identifier") || is(g, "attribute") || is(g, "subscript");
}

static void augmented_target(const char *src, uint32_t a, uint32_t b, found *f)
{
    py_tree p;
    TSNode e, g = bare_target(&p, src, a, b, &e);
    if (!ts_node_is_null(g) && !single_target(g)) {
        f->rs = a;
        f->re = b;
        f->at = a + ts_node_start_byte(g);
        snprintf(f->why, sizeof(f->why), "'%s' is an illegal expression for augmented assignment",
                 is(g, "expression_statement") ? "tuple" : cc_expr_name(&p, g));
    }
    py_tree_free(&p);
}

/* `del A`: the part of A Python cannot delete. */
static void del_target(const char *src, uint32_t a, uint32_t b, found *f)
{
    py_tree p;
    TSNode stmt = parse_expr(&p, src, a, b), r = {0};
    char why[96];
    if (!ts_node_is_null(stmt)) {
        TSNode e = stmt_expr(stmt);
        if (!is(e, "expression_statement")) /* else `del a, f()`: each */
            r = cc_invalid_target(&p, e, TARGET_DEL, why, sizeof(why));
        for (uint32_t i = 0;
             ts_node_eq(e, stmt) && i < ts_node_named_child_count(stmt) && ts_node_is_null(r); i++)
            r = cc_invalid_target(&p, ts_node_named_child(stmt, i), TARGET_DEL, why, sizeof(why));
    }
    if (!ts_node_is_null(r)) {
        f->at = a + ts_node_start_byte(r);
        f->rs = a;
        f->re = b;
        snprintf(f->why, sizeof(f->why), "%s", why);
    }
    py_tree_free(&p);
}

/* Counts in *lambdas the lambdas whose parameters run on at t: 1 when t is one of
 * theirs (`lambda`, a parameter, the `:` that ends them), 0 when it is the
 * statement's own (a lambda's `=` and `:` are not an assignment's or a block's). */
static int in_lambda(const char *src, const ltok *t, int *lambdas)
{
    if (t->kind == 'n' && tok_is(src, t, "lambda")) {
        (*lambdas)++;
        return 1;
    }
    if (*lambdas && t->kind == 'o' && tok_is(src, t, ":")) {
        (*lambdas)--;
        return 1;
    }
    return *lambdas > 0;
}

static void eq_refusal(const char *src, const ltoks *ts, size_t from, size_t eq, size_t end,
                       int depth, found *f);

/* `f(None=1)`, `f(a.b=1)`: the argument before the `=` at token k of a call
 * (Grammar/python.gram's invalid_kwarg). */
static void kwarg_target(const char *src, const ltoks *ts, size_t k, found *f)
{
    int depth = ts->items[k].depth;
    size_t j = k;
    while (j > 0 && ts->items[j - 1].depth >= depth &&
           !(ts->items[j - 1].depth == depth && tok_is(src, &ts->items[j - 1], ",")))
        j--;
    if (j == 0 || j == k)
        return;
    const ltok *open = &ts->items[j - 1];
    if (tok_is(src, open, ",")) { /* the call's `(` before it */
        size_t o = j - 1;
        while (o > 0 && ts->items[o].depth >= depth)
            o--;
        open = &ts->items[o];
    } else if (open->depth != depth - 1) {
        return;
    }
    size_t o = (size_t)(open - ts->items);
    /* a call's (a class's) parentheses: after a name, a ')' or a ']', not a def's;
     * other brackets hold named expressions (a group, a display, a subscript) */
    const ltok *callee = o > 0 ? &ts->items[o - 1] : NULL;
    int call = tok_is(src, open, "(") && callee &&
               (callee->kind == 'n' || tok_is(src, callee, ")") || tok_is(src, callee, "]"));
    if (call && callee->kind == 'n' && o >= 2 && tok_is(src, &ts->items[o - 2], "def"))
        return;
    if (call && callee->kind == 'n' &&
        cc_is_keyword(src + callee->start, callee->end - callee->start))
        call = tok_is(src, callee, "lambda") ? -1 : 0; /* `if (a=1)`: a group */
    if (call < 0)
        return;
    if (!call) {
        int lambdas = 0; /* `[lambda a=1: a]`: the lambda's default */
        for (size_t i = j; i < k; i++)
            if (ts->items[i].depth == depth)
                in_lambda(src, &ts->items[i], &lambdas);
        if (lambdas)
            return;
        size_t end = k + 1;
        while (end < ts->len && ts->items[end].depth >= depth)
            end++;
        eq_refusal(src, ts, j, k, end, depth, f);
        return;
    }
    for (size_t i = j; i < k; i++)
        if (ts->items[i].depth == depth &&
            (tok_is(src, &ts->items[i], "=") || tok_is(src, &ts->items[i], "*") ||
             tok_is(src, &ts->items[i], "**") || tok_is(src, &ts->items[i], ":=")))
            return;
    const ltok *a = &ts->items[j];
    size_t len = a->end - a->start;
    if (j + 1 == k && a->kind == 'n') {
        if (!cc_is_keyword(src + a->start, len)) {
            /* a keyword argument, unless a comprehension's `for` follows its value
             * (`f(a=1 for x in y)`: invalid_arguments, at the name) */
            size_t e = k + 1;
            while (e < ts->len && ts->items[e].depth >= depth &&
                   !(ts->items[e].depth == depth &&
                     (tok_is(src, &ts->items[e], ",") || tok_is(src, &ts->items[e], "for") ||
                      tok_is(src, &ts->items[e], "async"))))
                e++;
            if (e == k + 1 || e >= ts->len || ts->items[e].depth != depth ||
                tok_is(src, &ts->items[e], ","))
                return;
            size_t end = e; /* the comprehension, to the `,` or the `)` after it */
            while (end < ts->len && ts->items[end].depth >= depth &&
                   !(ts->items[end].depth == depth && tok_is(src, &ts->items[end], ",")))
                end++;
            py_tree p;
            TSNode g = parse_group(&p, src, ts->items[k + 1].start, ts->items[end - 1].end);
            int comp = !ts_node_is_null(g) && is(g, "generator_expression");
            py_tree_free(&p);
            if (!comp)
                return;
            f->at = f->rs = a->start;
            f->re = ts->items[e - 1].end;
            f->name = 1;
            snprintf(f->why, sizeof(f->why),
                     "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
            return;
        }
        if (!tok_is(src, a, "None") && !tok_is(src, a, "True") && !tok_is(src, a, "False"))
            return; /* `f(if=1)`: the parser stops at the keyword */
        snprintf(f->why, sizeof(f->why), "cannot assign to %.*s", (int)len, src + a->start);
    } else {
        py_tree p;
        TSNode stmt = parse_expr(&p, src, a->start, ts->items[k - 1].end);
        if (ts_node_is_null(stmt)) {
            py_tree_free(&p);
            return;
        }
        TSNode e = stmt_expr(stmt); /* `(a)=1`: a group is its expression */
        while (is(e, "parenthesized_expression") && ts_node_named_child_count(e) == 1)
            e = ts_node_named_child(e, 0);
        f->at = a->start + ts_node_start_byte(e);
        py_tree_free(&p);
        snprintf(f->why, sizeof(f->why),
                 "expression cannot contain assignment, perhaps you meant \"==\"?");
    }
    if (f->why[0] == 'c') /* cannot assign to True: at it */
        f->at = a->start;
    f->rs = a->start;
    f->re = ts->items[k - 1].end;
    f->name = 1;
}

/* Whether token t ends an assignment expression's operand read backwards from its
 * `:=`: a keyword but None, True, False and await (they begin one), a comma, `;`,
 * `:`, `->`, `=` or an augmented assignment's operator. */
static int operand_stop(const char *src, const ltok *t)
{
    if (t->kind == 'n')
        return cc_is_keyword(src + t->start, t->end - t->start) && !tok_is(src, t, "None") &&
               !tok_is(src, t, "True") && !tok_is(src, t, "False") && !tok_is(src, t, "await");
    if (t->kind != 'o')
        return 0;
    if (tok_is(src, t, ",") || tok_is(src, t, ";") || tok_is(src, t, ":") || tok_is(src, t, "->"))
        return 1;
    /* `=` and an augmented assignment's operator, not a comparison */
    return src[t->end - 1] == '=' && !tok_is(src, t, "==") && !tok_is(src, t, "!=") &&
           !tok_is(src, t, "<=") && !tok_is(src, t, ">=") && !tok_is(src, t, ":=");
}

/* The node a group holds: e, its parentheses around one expression taken off. */
static TSNode ungroup(TSNode e)
{
    while (is(e, "parenthesized_expression")) {
        TSNode one = {0};
        uint32_t n = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(e); i++)
            if (!ts_node_is_extra(ts_node_named_child(e, i)))
                one = ts_node_named_child(e, i), n++;
        if (n != 1)
            break;
        e = one;
    }
    return e;
}

/* `(a.b := 1)`: the operand of the `:=` at token k, from the bracket, comma,
 * keyword or statement start (token `from`) before it, when it is no name: CPython's
 * invalid_named_expression reads an expression before a `:=` ("cannot use
 * assignment expressions with attribute" at it, its parentheses taken off), or its
 * parser stops at the `:=` where a name must be (cc_walrus_operand, after explains).
 * After another `:=` (`(a := 1 := 2)`), the parser stops at this one: the target is
 * both and what is between. */
static void walrus_target(const char *src, const ltoks *ts, size_t from, size_t k, found *f)
{
    int depth = ts->items[k].depth, chain = 0;
    size_t j = k;
    for (; j > from && ts->items[j - 1].depth >= depth; j--) {
        const ltok *t = &ts->items[j - 1];
        if (t->depth == depth && operand_stop(src, t))
            break;
        chain |= t->depth == depth && tok_is(src, t, ":=");
    }
    /* not the operand's: a star before it, a decorator's `@`, a match statement's or
     * a case's keyword */
    if (j < k && (tok_is(src, &ts->items[j], "*") || tok_is(src, &ts->items[j], "**") ||
                  (j == from && tok_is(src, &ts->items[j], "@"))))
        j++;
    if (j + 1 < k && j == from &&
        (tok_is(src, &ts->items[j], "match") || tok_is(src, &ts->items[j], "case")) &&
        ts->items[j + 1].kind != 'o')
        j++;
    const ltok *a = &ts->items[j];
    if (j == k || (!chain && j + 1 == k && a->kind == 'n' &&
                   !cc_is_keyword(src + a->start, a->end - a->start)))
        return;
    uint32_t rs = a->start, re = ts->items[k - 1].end;
    if (chain) {
        f->at = ts->items[k].start;
        snprintf(f->why, sizeof(f->why), "invalid syntax");
    } else {
        py_tree p;
        TSNode g = parse_group(&p, src, rs, re);
        g = ts_node_is_null(g) ? g : ungroup(g);
        int ok = !ts_node_is_null(g) && !is(g, "list_splat") && !is(g, "dictionary_splat");
        if (ok) {
            f->at = rs + ts_node_start_byte(g) - 1;
            snprintf(f->why, sizeof(f->why), "cannot use assignment expressions with %s",
                     cc_expr_name(&p, g));
        }
        py_tree_free(&p);
        if (!ok)
            return;
    }
    f->rs = rs;
    f->re = re;
    f->name = 1;
    f->op = ts->items[k].start;
    f->chain = chain;
}

/* `None: int = 1`: an annotation's target that is no name, attribute or subscript
 * (invalid_assignment). */
static void annotated_target(const char *src, uint32_t a, uint32_t b, found *f)
{
    py_tree p;
    TSNode e, g = bare_target(&p, src, a, b, &e);
    if (!ts_node_is_null(g) && !single_target(g) && !is(e, "expression_statement") &&
        !is(g, "tuple") && !is(g, "list")) {
        f->rs = a;
        f->re = b;
        f->at = a + ts_node_start_byte(g);
        snprintf(f->why, sizeof(f->why), "illegal target for annotation");
    }
    py_tree_free(&p);
}

/* The `=` at ts[eq] after [from, eq), in a place CPython reads a named_expression
 * (a condition, a group, a display's element, a subscript), its value running to
 * the first token no bitwise_or holds before `end`, at depth `depth`:
 * invalid_named_expression. After a name whose value is a bitwise_or no `=` or
 * `:=` follows, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?" at
 * the name; after another bitwise_or but a list, a tuple, a generator expression,
 * True, False and None, "cannot assign to X here. Maybe you meant '==' instead of
 * '='?" at it; else "invalid syntax" at the `=`. */
static void eq_refusal(const char *src, const ltoks *ts, size_t from, size_t eq, size_t end,
                       int depth, found *f)
{
    size_t colon = end;
    int lambdas = 0;
    for (size_t i = from; i < eq; i++) /* `(a=b=1)`: the first `=` is the refusal */
        if (ts->items[i].depth == depth && !in_lambda(src, &ts->items[i], &lambdas) &&
            (tok_is(src, &ts->items[i], "=") || tok_is(src, &ts->items[i], ":=")))
            return;
    const ltok *a = &ts->items[from], *op = &ts->items[eq];
    uint32_t b = ts->items[eq - 1].end;
    /* the value: a bitwise_or (up to the first token no bitwise_or holds) that no
     * `=` or `:=` follows */
    static const char *const ends[] = {"if", "else", "and", "or",  "not",   "in",    "is",
                                       "==", "!=",   "<",   ">",   "<=",    ">=",    "=",
                                       ":=", ",",    ":",   "for", "async", "lambda"};
    size_t v = eq + 1;
    for (int stop = 0; v < colon && !stop; v += !stop)
        for (size_t i = 0; !stop && ts->items[v].depth == depth && i < sizeof(ends) / sizeof(*ends);
             i++)
            stop = tok_is(src, &ts->items[v], ends[i]);
    int value = 0;
    if (v > eq + 1 &&
        !(v < colon && (tok_is(src, &ts->items[v], "=") || tok_is(src, &ts->items[v], ":=")))) {
        py_tree p;
        TSNode stmt = parse_expr(&p, src, ts->items[eq + 1].start, ts->items[v - 1].end);
        value = !ts_node_is_null(stmt) && is_bitwise_or(stmt_expr(stmt));
        py_tree_free(&p);
    }
    /* explained when, with a comparison in the `=`'s place, the first error (if any)
     * comes after it */
    f->eq = op->start;
    f->rs = op->start;
    f->re = op->end;
    f->at = op->start;
    snprintf(f->why, sizeof(f->why), "invalid syntax");
    if (!value)
        return;
    if (eq == from + 1 && a->kind == 'n' && !cc_is_keyword(src + a->start, a->end - a->start)) {
        f->at = a->start;
        snprintf(f->why, sizeof(f->why),
                 "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
        return;
    }
    py_tree p;
    TSNode stmt = parse_expr(&p, src, a->start, b);
    if (!ts_node_is_null(stmt)) {
        TSNode e = stmt_expr(stmt);
        static const char *const others[] = {"list",  "tuple", "generator_expression", "true",
                                             "false", "none",  "list_comprehension"};
        int other = !is_bitwise_or(e);
        for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
            other |= is(e, others[i]);
        if (!other) {
            while (is(e, "parenthesized_expression") && ts_node_named_child_count(e) == 1)
                e = ts_node_named_child(e, 0); /* a group is its expression */
            f->at = a->start + ts_node_start_byte(e);
            snprintf(f->why, sizeof(f->why),
                     "cannot assign to %s here. Maybe you meant '==' instead of '='?",
                     cc_expr_name(&p, e));
        }
    }
    py_tree_free(&p);
}

/* `if a=1:`, `while a.b = 1:`, `elif f()=1:`: the first `=` in a condition, before
 * its colon (a lambda's is the lambda's); a comma before it is left to the
 * parser's error. */
static void condition_target(const char *src, const ltoks *ts, size_t from, size_t to, found *f)
{
    size_t eq = 0, colon = to;
    int lambdas = 0;
    for (size_t k = from; k < to; k++) {
        const ltok *t = &ts->items[k];
        if (t->depth > 0 || in_lambda(src, t, &lambdas))
            continue;
        if (tok_is(src, t, ":")) {
            colon = k;
            break;
        }
        if (tok_is(src, t, ",") && !eq)
            return;
        if (tok_is(src, t, "=") && !eq)
            eq = k;
    }
    if (eq && eq > from)
        eq_refusal(src, ts, from, eq, colon, 0, f);
}

/* The simple statement tokens [from, to): an assignment's or augmented
 * assignment's target. */
static void statement_targets(const char *src, const ltoks *ts, size_t from, size_t to, found *f)
{
    static const char *const keywords[] = {
        "if",     "elif",     "else",    "while", "for",  "def",    "class",    "with",
        "try",    "except",   "finally", "async", "del",  "return", "import",   "from",
        "global", "nonlocal", "assert",  "raise", "pass", "break",  "continue", "lambda"};
    const ltok *first = &ts->items[from];
    if (first->kind == 'n' && tok_is(src, first, "del") && to > from + 1) {
        del_target(src, ts->items[from + 1].start, ts->items[to - 1].end, f);
        return;
    }
    if (first->kind == 'o' && tok_is(src, first, "@"))
        return;
    if (first->kind == 'n' &&
        (tok_is(src, first, "if") || tok_is(src, first, "elif") || tok_is(src, first, "while"))) {
        condition_target(src, ts, from + 1, to, f);
        return;
    }
    for (size_t i = 0; first->kind == 'n' && i < sizeof(keywords) / sizeof(*keywords); i++)
        if (tok_is(src, first, keywords[i]) && strcmp(keywords[i], "lambda"))
            return;
    int lambdas = 0; /* lambdas whose parameters run on: their `=` and `:` are theirs */
    VEC(uint32_t) parts = VEC_INIT; /* [start, end) of each part between `=` */
    VEC_PUSH(&parts, first->start);
    for (size_t k = from; k < to; k++) {
        const ltok *t = &ts->items[k];
        if (t->depth > 0 || in_lambda(src, t, &lambdas))
            continue;
        if (t->kind == 'o' && tok_is(src, t, ":")) {
            if (parts.len == 1 && k > from)
                annotated_target(src, first->start, ts->items[k - 1].end, f);
            break;
        }
        if (t->kind == 'o' && t->end - t->start >= 2 && src[t->end - 1] == '=' &&
            !tok_is(src, t, "==") && !tok_is(src, t, "!=") && !tok_is(src, t, "<=") &&
            !tok_is(src, t, ">=") && !tok_is(src, t, ":=") && parts.len == 1) {
            if (k == from)
                break; /* an operator with no target before it: the parser's error */
            augmented_target(src, first->start, ts->items[k - 1].end, f);
            break;
        }
        if (t->kind == 'o' && tok_is(src, t, "=") && k > from && k + 1 < to) {
            VEC_PUSH(&parts, ts->items[k - 1].end);
            VEC_PUSH(&parts, ts->items[k + 1].start);
        }
        if (k + 1 == to && parts.len > 1) {
            VEC_PUSH(&parts, t->end);
            assign_target(src, parts.items, parts.len / 2, f);
        }
    }
    VEC_FREE(&parts);
}

/* The first target of logical line src[from..to) Python cannot assign to. */
static void line_targets(const char *src, size_t from, size_t to, found *best)
{
    ltoks ts = VEC_INIT;
    line_tokens(src, from, to, &ts);
    size_t start = 0;
    for (size_t k = 0; k <= ts.len; k++) {
        found f = {UINT32_MAX, 0, 0, {0}, 0, 0, 0, 0};
        if (k == ts.len || (ts.items[k].depth == 0 && tok_is(src, &ts.items[k], ";"))) {
            if (k > start)
                statement_targets(src, &ts, start, k, &f);
            start = k + 1;
        } else if (ts.items[k].kind == 'n' && tok_is(src, &ts.items[k], "for") &&
                   (ts.items[k].depth > 0 || k == start ||
                    (k == start + 1 && tok_is(src, &ts.items[start], "async")))) {
            for_target(src, &ts, k + 1, &f);
        } else if (ts.items[k].depth > 0 && tok_is(src, &ts.items[k], "=")) {
            kwarg_target(src, &ts, k, &f);
        } else if (tok_is(src, &ts.items[k], ":=")) {
            walrus_target(src, &ts, start, k, &f);
        }
        if (f.at < best->at)
            *best = f;
    }
    VEC_FREE(&ts);
}

static TSPoint point_at(const char *src, size_t at)
{
    TSPoint p = {0, 0};
    for (size_t i = 0; i < at; i++) {
        if (src[i] == '\n')
            p.row++, p.column = 0;
        else
            p.column++;
    }
    return p;
}

TSNode cc_deepest_error(TSNode n)
{
    while (!ts_node_is_missing(n)) {
        uint32_t k = ts_node_child_count(n), i = 0;
        for (; i < k; i++) {
            TSNode c = ts_node_child(n, i);
            if (ts_node_is_missing(c) || ts_node_has_error(c)) {
                n = c;
                break;
            }
        }
        if (i == k)
            break;
    }
    return n;
}

/* An assignment expression's operand that is no name (walrus_target), in tree p
 * where a name takes its place: CPython's refusal, decided by the place (a call's
 * argument takes no operand but a name); 0 where tree-sitter read no assignment
 * expression there. */
static int walrus_refusal(const py_tree *p, found *f)
{
    TSNode x = ts_node_descendant_for_byte_range(py_root(p), f->op, f->op + 2);
    if (!ts_node_is_null(x) && !is(x, "named_expression"))
        x = ts_node_parent(x);
    if (ts_node_is_null(x) || !is(x, "named_expression") || ts_node_start_byte(x) != f->rs)
        return 0;
    uint32_t at;
    char why[sizeof(f->why)];
    int r = cc_walrus_operand(p, x, f->re, &at, why, sizeof(why));
    if (r == 1) {
        f->at = at;
        snprintf(f->why, sizeof(f->why), "%s", why);
    }
    return r || f->chain;
}

/* Whether the target explains the tree's error: with a name in its place (kept
 * over as many lines), tree-sitter finds no error before its end. */
static int explains(const py_tree *t, found *f)
{
    char *copy = pgci_malloc(t->len + 1);
    memcpy(copy, t->src, t->len);
    copy[t->len] = '\0';
    uint32_t n = f->eq ? 0 : f->re - f->rs;
    if (f->eq)
        copy[f->eq] = '<';
    for (uint32_t i = 0; i < n; i++) {
        char *ch = &copy[f->rs + i];
        if (f->name) /* a continuation's backslash kept */
            *ch = i == 0 ? '_' : *ch == '\n' || (*ch == '\\' && ch[1] == '\n') ? *ch : ' ';
        else if (n <= 2)
            *ch = '_';
        else
            *ch = i == 0 ? '(' : i == 1 ? '_' : i == n - 1 ? ')' : *ch == '\n' ? '\n' : ' ';
    }
    py_tree p;
    int ok = py_parse(&p, copy, t->len, t->path) == 0;
    TSNode err;
    if (ok && py_first_error(&p, &err))
        ok = ts_node_start_byte(cc_deepest_error(err)) >= f->re;
    if (ok && f->op)
        ok = walrus_refusal(&p, f);
    py_tree_free(&p);
    free(copy);
    return ok;
}

int cc_target_error(const py_tree *t, const pytok_result *tok, TSNode err, pytok_error *e)
{
    /* the logical lines from where tree-sitter's error begins (its ERROR node holds
     * what came before the error too) to the end of the deepest error in it */
    TSNode deep = cc_deepest_error(err);
    uint32_t es = ts_node_start_byte(err), ee = ts_node_end_byte(deep);
    found f = {UINT32_MAX, 0, 0, {0}, 0, 0, 0, 0};
    for (size_t k = 0; k < tok->lines.len; k++) {
        size_t from = tok->lines.items[k];
        size_t to = k + 1 < tok->lines.len ? tok->lines.items[k + 1] : t->len;
        if (to > es && from <= (ee > es ? ee - 1 : es))
            line_targets(t->src, from, to, &f);
    }
    if (f.at == UINT32_MAX || !explains(t, &f))
        return 0;
    TSPoint p = point_at(t->src, f.at);
    e->line = p.row + 1;
    e->col = p.column + 1;
    e->parser = 1;
    snprintf(e->why, sizeof(e->why), "%s", f.why);
    return 1;
}
