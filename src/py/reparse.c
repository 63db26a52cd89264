/*
 * reparse.c - an incremental parse from the common prefix and suffix of two
 * texts. The edit is the one stretch between them, so the result does not depend
 * on how the new text was made. Rows count '\n' as tree-sitter's lexer does;
 * columns are bytes.
 */
#include "py/reparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static TSPoint point_at(const char *s, size_t off)
{
    TSPoint p = {0, 0};
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            p.row++;
            p.column = 0;
        } else {
            p.column++;
        }
    }
    return p;
}

/* Aborts when the incremental tree is not the fresh one (PGCI_VERIFY_REPARSE). */
static void verify(const py_tree *t)
{
    py_tree fresh;
    if (py_parse(&fresh, t->src, t->len, t->path) < 0)
        abort();
    char *a = ts_node_string(py_root(t)), *b = ts_node_string(py_root(&fresh));
    if (strcmp(a, b)) {
        fprintf(stderr, "pgci: incremental parse differs from a fresh parse of %s\n", t->path);
        abort();
    }
    free(a);
    free(b);
    py_tree_free(&fresh);
}

int py_reparse(py_tree *t, const char *src, size_t len)
{
    if (len > UINT32_MAX / 2)
        return pgci_error_set(PGCI_ELIMIT, "%s: %zu bytes is too large to parse", t->path, len);
    size_t olen = t->len, min = olen < len ? olen : len, pre = 0, suf = 0;
    while (pre < min && t->src[pre] == src[pre])
        pre++;
    while (suf < min - pre && t->src[olen - 1 - suf] == src[len - 1 - suf])
        suf++;
    TSInputEdit e = {(uint32_t)pre,         (uint32_t)(olen - suf),       (uint32_t)(len - suf),
                     point_at(t->src, pre), point_at(t->src, olen - suf), point_at(src, len - suf)};
    ts_tree_edit(t->tree, &e);
    char *copy = pgci_malloc(len + 1);
    memcpy(copy, src, len);
    copy[len] = '\0';
    TSTree *tree = ts_parser_parse_string(py_thread_parser(), t->tree, copy, (uint32_t)len);
    if (!tree) {
        free(copy);
        return pgci_error_set(PGCI_ERROR, "%s: tree-sitter could not parse", t->path);
    }
    ts_tree_delete(t->tree);
    free(t->src);
    t->tree = tree;
    t->src = copy;
    t->len = len;
    if (getenv("PGCI_VERIFY_REPARSE"))
        verify(t);
    return 0;
}
