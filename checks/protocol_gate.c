/*
 * protocol_gate.c - code of a model package that runs only under another
 * transformers: `if is_transformers_version_greater_or_equal_to("5.0.0"):
 * <generated> else: <the legacy path>`, as VeOmni's packages read while its pins
 * spanned 4.57 and 5.x. At the tag a check runs at, one branch of such a test is
 * dead: what it imports is neither the modeling the loader registers (protocol-
 * registration) nor a sign that a retired file is still in use where it matters
 * (protocol-retired keeps quiet on a file only the dead branch imports: deleting
 * it would break the older pin's path).
 */
#include <stdlib.h>
#include <string.h>

#include "checks/protocol.h"
#include "core/strbuf.h"
#include "core/version.h"
#include "py/pystr.h"

/* The version-test helpers VeOmni's packages call, by the name they end with. */
static int is_ge_test(const py_tree *t, TSNode fn)
{
    static const char name[] = "is_transformers_version_greater_or_equal_to";
    size_t len;
    const char *s = py_text(t, fn, &len);
    size_t n = sizeof(name) - 1;
    if (!py_is(fn, "identifier") && !py_is(fn, "attribute"))
        return 0;
    return len >= n && !memcmp(s + len - n, name, n) && (len == n || s[len - n - 1] == '.');
}

int proto_version_test(const py_tree *t, TSNode cond, const char *tag)
{
    int negated = 0;
    while (py_is(cond, "not_operator") || py_is(cond, "parenthesized_expression")) {
        if (py_is(cond, "not_operator")) {
            negated ^= 1;
            cond = py_field(cond, "argument");
        } else {
            cond = ts_node_named_child(cond, 0);
        }
    }
    if (!tag || !py_is(cond, "call") || !is_ge_test(t, py_field(cond, "function")))
        return -1;
    TSNode args = py_field(cond, "arguments");
    if (ts_node_named_child_count(args) != 1 || !py_is(ts_node_named_child(args, 0), "string"))
        return -1;
    strbuf v = STRBUF_INIT;
    int r = -1;
    if (pystr_decode_node(&v, t, ts_node_named_child(args, 0)) == 0 && v.len) {
        const char *tg = tag[0] == 'v' ? tag + 1 : tag;
        r = version_cmp(tg, v.buf) >= 0;
    }
    strbuf_free(&v);
    return r < 0 ? -1 : r ^ negated;
}

/* The module a relative `from .x import ...` or `from . import x` names, into out. */
static void relative_stems(const py_tree *t, TSNode n, strvec *out)
{
    TSNode mod = py_field(n, "module_name");
    size_t len;
    const char *m = py_text(t, mod, &len);
    if (!len || m[0] != '.')
        return;
    size_t dots = 0;
    while (dots < len && m[dots] == '.')
        dots++;
    if (dots != 1)
        return;
    if (dots < len) {
        size_t end = dots;
        while (end < len && m[end] != '.')
            end++;
        char *stem = pgci_strndup(m + dots, end - dots);
        strvec_push_owned(out, stem);
        return;
    }
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ts_node_eq(c, mod))
            continue;
        TSNode name = py_is(c, "aliased_import") ? py_field(c, "name") : c;
        if (py_is(name, "dotted_name"))
            strvec_push_owned(out, py_text_dup(t, name));
    }
}

static void imports_under(const py_tree *t, TSNode n, strvec *out)
{
    if (py_is(n, "import_from_statement")) {
        relative_stems(t, n, out);
        return;
    }
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++)
        imports_under(t, ts_node_named_child(n, i), out);
}

/* One clause of an if statement at the tag: its body goes live or dead; 0 when
 * its test is not one the tag decides. */
static int weigh_clause(const py_tree *t, TSNode cond, TSNode body, const char *tag, int *taken,
                        TSNode *live, TSNode *dead, size_t *n_dead)
{
    if (ts_node_is_null(body))
        return 1;
    if (*taken) {
        dead[(*n_dead)++] = body;
        return 1;
    }
    int v = ts_node_is_null(cond) ? 1 : proto_version_test(t, cond, tag);
    if (v < 0)
        return 0;
    if (v) {
        *live = body;
        *taken = 1;
    } else {
        dead[(*n_dead)++] = body;
    }
    return 1;
}

int proto_gate_branches(const py_tree *t, TSNode if_stmt, const char *tag, TSNode *live,
                        TSNode *dead, size_t *n_dead)
{
    *live = (TSNode){0};
    *n_dead = 0;
    int taken = 0; /* a clause whose test holds came before */
    if (!weigh_clause(t, py_field(if_stmt, "condition"), py_field(if_stmt, "consequence"), tag,
                      &taken, live, dead, n_dead))
        return 0;
    uint32_t cnt = ts_node_named_child_count(if_stmt);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(if_stmt, i);
        int ok = 1;
        if (py_is(c, "elif_clause"))
            ok = weigh_clause(t, py_field(c, "condition"), py_field(c, "consequence"), tag, &taken,
                              live, dead, n_dead);
        else if (py_is(c, "else_clause"))
            ok = weigh_clause(t, (TSNode){0}, py_field(c, "body"), tag, &taken, live, dead, n_dead);
        if (!ok) /* a clause the tag does not decide: whether the later ones run is open */
            return 0;
    }
    return 1;
}

static void dead_walk(const py_tree *t, TSNode n, const char *tag, strvec *dead, strvec *live)
{
    if (py_is(n, "import_from_statement")) {
        relative_stems(t, n, live);
        return;
    }
    if (py_is(n, "if_statement")) {
        TSNode on, off[64];
        size_t n_off;
        if (ts_node_named_child_count(n) <= 64 &&
            proto_gate_branches(t, n, tag, &on, off, &n_off)) {
            if (!ts_node_is_null(on))
                dead_walk(t, on, tag, dead, live);
            for (size_t i = 0; i < n_off; i++)
                imports_under(t, off[i], dead);
            return;
        }
    }
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++)
        dead_walk(t, ts_node_named_child(n, i), tag, dead, live);
}

void proto_dead_imports(const py_tree *t, const char *tag, strvec *out)
{
    strvec dead = STRVEC_INIT, live = STRVEC_INIT;
    if (!ts_node_is_null(py_root(t)))
        dead_walk(t, py_root(t), tag, &dead, &live);
    for (size_t i = 0; i < dead.len; i++)
        if (strvec_find(&live, dead.items[i]) < 0 && strvec_find(out, dead.items[i]) < 0)
            strvec_push(out, dead.items[i]);
    strvec_free(&dead);
    strvec_free(&live);
}

void proto_relative_imports(const py_tree *t, strvec *out)
{
    if (!ts_node_is_null(py_root(t)))
        imports_under(t, py_root(t), out);
}
