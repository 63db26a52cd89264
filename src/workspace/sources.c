/*
 * The upstream modules a workspace needs: the literal `source_module=` of every
 * PatchConfig(...) call in its configs. No evaluation: `pgci fetch` only needs to
 * know which files to get, and every real config writes the module as a literal.
 * Anything else (a name, an f-string) is refused with its position rather than
 * guessed at.
 */
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/py.h"
#include "py/pystr.h"
#include "workspace/workspace.h"

/* The literal's value: a string or an implicit concatenation of strings, decoded
 * as Python would; any other expression is refused with its position. */
static int decode_literal(strbuf *out, const py_tree *t, TSNode n)
{
    if (!py_is(n, "string") && !py_is(n, "concatenated_string"))
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s:%u:%u: source_module must be a string literal, not %s", t->path,
                              py_line(n), py_col(n), ts_node_type(n));
    return pystr_decode_node(out, t, n);
}

/* 1 when the call's function is `PatchConfig` or `<something>.PatchConfig`. */
static int is_patchconfig_call(const py_tree *t, TSNode call)
{
    TSNode fn = py_field(call, "function");
    if (ts_node_is_null(fn))
        return 0;
    if (py_is(fn, "identifier"))
        return py_text_eq(t, fn, "PatchConfig");
    if (py_is(fn, "attribute")) {
        TSNode attr = py_field(fn, "attribute");
        return !ts_node_is_null(attr) && py_text_eq(t, attr, "PatchConfig");
    }
    return 0;
}

static int collect_call(const py_tree *t, TSNode call, strvec *out)
{
    TSNode args = py_field(call, "arguments");
    if (ts_node_is_null(args))
        return 0;
    uint32_t n = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < n; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (!py_is(a, "keyword_argument"))
            continue;
        TSNode name = py_field(a, "name");
        if (ts_node_is_null(name) || !py_text_eq(t, name, "source_module"))
            continue;
        TSNode value = py_field(a, "value");
        strbuf sb = STRBUF_INIT;
        int r = decode_literal(&sb, t, value);
        if (r == 0 && sb.len == 0)
            r = pgci_error_set(PGCI_EINVALID, "%s:%u:%u: source_module is empty", t->path,
                               py_line(value), py_col(value));
        if (r == 0 && strvec_find(out, sb.buf) < 0)
            strvec_push(out, sb.buf);
        strbuf_free(&sb);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Visits every node (iteratively: configs can nest deeply) and collects the
 * source_module literals of PatchConfig calls. */
static int collect_tree(const py_tree *t, strvec *out)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int r = 0;
    do {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (py_is(n, "call") && is_patchconfig_call(t, n) && (r = collect_call(t, n, out)) < 0)
            break;
    } while (py_cursor_next(&cur, 1));
    ts_tree_cursor_delete(&cur);
    return r;
}

int workspace_source_modules(const workspace *ws, strvec *out)
{
    strvec found = STRVEC_INIT;
    int r = 0;
    for (size_t i = 0; r == 0 && i < ws->configs.len; i++) {
        py_tree t;
        r = py_parse_file(&t, ws->configs.items[i].abs_path);
        if (r < 0)
            break;
        /* messages name the config by its workspace-relative path */
        free(t.path);
        t.path = pgci_strdup(ws->configs.items[i].path);
        r = py_check_syntax(&t);
        if (r == 0)
            r = collect_tree(&t, &found);
        py_tree_free(&t);
    }
    if (r == 0) {
        strvec_sort(&found);
        for (size_t i = 0; i < found.len; i++)
            strvec_push(out, found.items[i]);
    }
    strvec_free(&found);
    return r;
}
