/*
 * What a function returns, value by value, and the steps that bind each value
 * (returned.h). Read from the definition's syntax tree: the last `return` that is
 * a statement of the body itself (earlier returns are the early exits; the last is
 * the path the body is written for), its values, and every assignment in the body
 * before it that binds one of them, nested definitions and lambdas left out (they
 * bind their own names).
 */
#include "checks/returned.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/pynode.h"

/* The longest line a message quotes of a binding. */
#define TEXT_MAX 100

/* The shape of an expression: its tokens, one space apart, with what a call passes
 * left out (`F.linear()`), and no comments. */
static void shape(strbuf *out, const py_tree *t, TSNode n)
{
    if (py_is(n, "comment"))
        return;
    if (py_is(n, "call")) {
        shape(out, t, py_field(n, "function"));
        strbuf_adds(out, "() ");
        return;
    }
    uint32_t k = ts_node_child_count(n);
    if (!k) {
        size_t len;
        const char *s = py_text(t, n, &len);
        strbuf_add(out, s, len);
        strbuf_addc(out, ' ');
        return;
    }
    for (uint32_t i = 0; i < k; i++)
        shape(out, t, ts_node_child(n, i));
}

/* The statement as written, its first line with whitespace runs folded, cut at
 * TEXT_MAX bytes ("..." when cut or when it goes on). */
static char *one_line(const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len), *end = s + len;
    strbuf b = STRBUF_INIT;
    int space = 0, cut = 0;
    for (const char *p = s; p < end; p++) {
        if (*p == '\n') {
            cut = p + 1 < end;
            break;
        }
        if (b.len >= TEXT_MAX) {
            cut = 1;
            break;
        }
        if (isspace((unsigned char)*p)) {
            space = b.len > 0;
            continue;
        }
        if (space)
            strbuf_addc(&b, ' ');
        space = 0;
        strbuf_addc(&b, *p);
    }
    if (cut)
        strbuf_adds(&b, " ...");
    return strbuf_detach(&b, NULL);
}

/* Adds to the value returned as `name` the step `how` + the shape of value (or
 * value_shape, when given). */
static void add_step(returned *r, const py_tree *t, TSNode stmt, const char *name, const char *how,
                     TSNode value, const char *value_shape)
{
    for (size_t i = 0; i < r->n; i++) {
        returned_value *v = &r->values[i];
        if (!v->name || strcmp(v->name, name))
            continue;
        strbuf s = STRBUF_INIT;
        strbuf_adds(&s, how);
        if (value_shape)
            strbuf_adds(&s, value_shape);
        else
            shape(&s, t, value);
        strbuf_rtrim(&s);
        strvec_push_owned(&v->steps, strbuf_detach(&s, NULL));
        strvec_push_owned(&v->texts, one_line(t, stmt));
    }
}

/* The shape of the last plain binding of `name` in last (pairs name, shape), or
 * NULL. */
static const char *last_shape(const strvec *last, const char *name)
{
    for (size_t k = last->len; k >= 2; k -= 2)
        if (!strcmp(last->items[k - 2], name))
            return last->items[k - 1];
    return NULL;
}

/* One binding statement: each name it binds that a returned value names. A field
 * set to a name (`out.a = tmp`) takes the shape of tmp's last plain binding in
 * last, which this records: a one-use temporary folded in place
 * (`out.a = f(x)`) is the same step. */
static void read_binding(returned *r, const py_tree *t, TSNode n, strvec *last)
{
    int aug = py_is(n, "augmented_assignment"), loop = py_is(n, "for_statement");
    TSNode left = py_field(n, "left"), right = py_field(n, "right");
    if (ts_node_is_null(left) || ts_node_is_null(right))
        return;                        /* `x: int`, an annotation alone, binds nothing */
    while (py_is(right, "assignment")) /* a = b = value */
        right = py_field(right, "right");
    if (ts_node_is_null(right))
        return;
    if (py_is(left, "attribute") && !aug && !loop) { /* name.attr = value */
        TSNode obj = py_field(left, "object"), attr = py_field(left, "attribute");
        if (!py_is(obj, "identifier") || !pynode_is_real(obj) || ts_node_is_null(attr))
            return;
        char *name = py_text_dup(t, obj), *field = py_text_dup(t, attr);
        char *how = pgci_asprintf(".%s = ", field);
        const char *folded = NULL;
        if (py_is(right, "identifier") && pynode_is_real(right)) {
            char *tmp = py_text_dup(t, right);
            folded = last_shape(last, tmp);
            free(tmp);
        }
        add_step(r, t, n, name, how, right, folded);
        free(how);
        free(field);
        free(name);
        return;
    }
    if (py_is(left, "identifier") && pynode_is_real(left)) {
        char *name = py_text_dup(t, left), *how = NULL;
        if (aug) { /* x += y is the step x = x + y */
            TSNode op = py_field(n, "operator");
            char *o = ts_node_is_null(op) ? pgci_strdup("?=") : py_text_dup(t, op);
            size_t ol = strlen(o);
            how = pgci_asprintf("%s %.*s ", name, (int)(ol ? ol - 1 : 0), o);
            free(o);
        }
        add_step(r, t, n, name, how ? how : loop ? "for in " : "", right, NULL);
        if (!aug && !loop) {
            strbuf sh = STRBUF_INIT;
            shape(&sh, t, right);
            strbuf_rtrim(&sh);
            strvec_push(last, name);
            strvec_push_owned(last, strbuf_detach(&sh, NULL));
        }
        free(how);
        free(name);
        return;
    }
    if (aug || !(py_is(left, "pattern_list") || py_is(left, "tuple_pattern")))
        return;
    uint32_t m = ts_node_named_child_count(left);
    for (uint32_t i = 0; i < m; i++) {
        TSNode e = ts_node_named_child(left, i);
        if (!py_is(e, "identifier") || !pynode_is_real(e))
            continue;
        char *name = py_text_dup(t, e);
        char *how = pgci_asprintf("%s[%u of %u] ", loop ? "for in " : "", i + 1, m);
        add_step(r, t, n, name, how, right, NULL);
        free(how);
        free(name);
    }
}

/* Every binding in n before byte `until`, in source order. */
static void read_bindings(returned *r, const py_tree *t, TSNode n, uint32_t until, strvec *last)
{
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ts_node_start_byte(c) >= until)
            return;
        if (py_is(c, "function_definition") || py_is(c, "class_definition") ||
            py_is(c, "decorated_definition") || py_is(c, "lambda"))
            continue;
        if (py_is(c, "assignment") || py_is(c, "augmented_assignment") || py_is(c, "for_statement"))
            read_binding(r, t, c, last);
        read_bindings(r, t, c, until, last);
    }
}

/* A blank of a line break's kind at s[i] (a backslash continuation counts): its
 * length, 0 when s[i] is none. */
static size_t blank_at(const char *s, size_t i, size_t len)
{
    if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
        return 1;
    return s[i] == '\\' && i + 1 < len && (s[i + 1] == '\n' || s[i + 1] == '\r') ? 2 : 0;
}

/* n's text, all its lines, each run of blanks and line breaks one space (none just
 * inside brackets), malloc'ed. */
static char *folded(const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < len;) {
        size_t k = blank_at(s, i, len);
        if (!k) {
            strbuf_addc(&out, s[i++]);
            continue;
        }
        while (i < len && (k = blank_at(s, i, len)))
            i += k;
        char prev = out.len ? out.buf[out.len - 1] : '(';
        char next = i < len ? s[i] : ')';
        if (!strchr("([{", prev) && !strchr(")]}", next))
            strbuf_addc(&out, ' ');
    }
    return strbuf_detach(&out, NULL);
}

int returned_read(returned *r, const py_tree *t, unsigned at)
{
    memset(r, 0, sizeof(*r));
    TSNode def;
    if (pynode_function_at(t, at, &def) < 0)
        return -1;
    TSNode body = py_field(def, "body"), ret = {0};
    uint32_t k = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
    for (uint32_t i = 0; i < k; i++)
        if (py_is(ts_node_named_child(body, i), "return_statement"))
            ret = ts_node_named_child(body, i);
    if (ts_node_is_null(ret) || !ts_node_named_child_count(ret))
        return 0;
    TSNode value = ts_node_named_child(ret, 0);
    if (py_is(value, "parenthesized_expression") && ts_node_named_child_count(value) == 1)
        value = ts_node_named_child(value, 0);
    int many = py_is(value, "expression_list") || py_is(value, "tuple");
    r->n = many ? ts_node_named_child_count(value) : 1;
    r->many = many;
    r->single_plain = !many && (py_is(value, "identifier") || py_is(value, "attribute"));
    r->text = folded(t, value);
    size_t tl = strlen(r->text);
    if (py_is(value, "tuple") && tl >= 2 && r->text[0] == '(' && r->text[tl - 1] == ')') {
        memmove(r->text, r->text + 1, tl - 2); /* `return (a, b)`: the values */
        r->text[tl - 2] = '\0';
    }
    r->values = pgci_calloc(r->n ? r->n : 1, sizeof(*r->values));
    for (size_t i = 0; i < r->n; i++) {
        TSNode e = many ? ts_node_named_child(value, (uint32_t)i) : value;
        if (py_is(e, "identifier") && pynode_is_real(e)) {
            r->values[i].name = py_text_dup(t, e);
        } else if (py_is(e, "call")) {
            strbuf sh = STRBUF_INIT;
            shape(&sh, t, e);
            strbuf_rtrim(&sh);
            r->values[i].call = 1;
            strvec_push_owned(&r->values[i].steps, strbuf_detach(&sh, NULL));
            strvec_push_owned(&r->values[i].texts, one_line(t, ret));
        }
    }
    strvec last = STRVEC_INIT;
    read_bindings(r, t, body, ts_node_start_byte(ret), &last);
    strvec_free(&last);
    return 0;
}

void returned_free(returned *r)
{
    free(r->text);
    for (size_t i = 0; i < r->n; i++) {
        free(r->values[i].name);
        strvec_free(&r->values[i].steps);
        strvec_free(&r->values[i].texts);
    }
    free(r->values);
    memset(r, 0, sizeof(*r));
}

int returned_count_changed(const returned *a, const returned *b)
{
    if (!a->n || !b->n || (!a->many && !b->many))
        return 0;
    if (a->many && b->many)
        return a->n != b->n;
    return a->many ? b->single_plain : a->single_plain;
}

/* Whether value v is one this module can follow: a name, or a call returned. */
static int readable(const returned_value *v)
{
    return v->name || v->call;
}

int returned_value_changed(const returned *a, const returned *b, size_t i)
{
    if (i >= a->n || i >= b->n || !readable(&a->values[i]) || !readable(&b->values[i]) ||
        !returned_value_name(a, b, i))
        return 0;
    const strvec *sa = &a->values[i].steps, *sb = &b->values[i].steps;
    int same = sa->len == sb->len, shared = 0;
    for (size_t j = 0; same && j < sa->len; j++)
        same = !strcmp(sa->items[j], sb->items[j]);
    for (size_t j = 0; !same && !shared && j < sa->len; j++)
        shared = sa->items[j][0] != '.' && strvec_find(sb, sa->items[j]) >= 0;
    return !same && shared;
}

const char *returned_value_name(const returned *a, const returned *b, size_t i)
{
    if (i < a->n && a->values[i].name)
        return a->values[i].name;
    return i < b->n ? b->values[i].name : NULL;
}

static void describe_side(strbuf *out, const returned_value *v, const char *tag, int width)
{
    strbuf_addf(out, "  %-*s", width + 1, tag);
    if (!v->texts.len)
        strbuf_addf(out, " (`%s` is not assigned before the return)\n", v->name ? v->name : "?");
    for (size_t j = 0; j < v->texts.len; j++)
        strbuf_addf(out, "%*s %s\n", j ? width + 3 : 0, "", v->texts.items[j]);
}

void returned_describe(strbuf *out, const returned *a, const returned *b, size_t i,
                       const char *tag_a, const char *tag_b)
{
    if (i >= a->n || i >= b->n || !readable(&a->values[i]) || !readable(&b->values[i]) ||
        !returned_value_name(a, b, i))
        return;
    const returned_value *va = &a->values[i], *vb = &b->values[i];
    if (va->name) {
        strbuf_addf(out, "the value it returns as `%s`", va->name);
        if (vb->name && strcmp(va->name, vb->name))
            strbuf_addf(out, " (`%s` at %s)", vb->name, tag_b);
        else if (!vb->name)
            strbuf_addf(out, " (a call returned as is at %s)", tag_b);
    } else {
        strbuf_addf(out, "the value it returns (a call returned as is at %s; `%s` at %s)", tag_a,
                    vb->name, tag_b);
    }
    if (a->n > 1)
        strbuf_addf(out, " (value %zu of %zu)", i + 1, a->n);
    strbuf_adds(out, ", bound by:\n");
    int width = (int)(strlen(tag_a) > strlen(tag_b) ? strlen(tag_a) : strlen(tag_b)) + 1;
    char *la = pgci_asprintf("%s:", tag_a), *lb = pgci_asprintf("%s:", tag_b);
    describe_side(out, va, la, width);
    describe_side(out, vb, lb, width);
    free(la);
    free(lb);
}
