/*
 * fuzz_reparse - libFuzzer target for the line-matched incremental parse
 * (src/py/reparse.c: py_reparse_lines, py_parse_near), which the structural
 * comparison uses to derive a regenerated file's tree from the checked-in file's.
 *
 * The input is two texts, old and new, split at the first "\n#--\n" (without one,
 * old is the input's first half of lines and new the whole input). Aborts when an
 * invariant breaks:
 *  - the tree py_reparse_lines makes from old's tree is the one a fresh parse of
 *    new gives (same node string), over new's bytes;
 *  - py_parse_near gives that tree too and leaves old's tree as it was.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "py/py.h"
#include "py/reparse.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_tree(const py_tree *a, const py_tree *b)
{
    char *x = ts_node_string(py_root(a)), *y = ts_node_string(py_root(b));
    int same = !strcmp(x, y);
    free(x);
    free(y);
    return same;
}

static void split(const char *s, size_t n, size_t *old_len, size_t *new_off)
{
    const char *sep = memmem(s, n, "\n#--\n", 5);
    if (sep) {
        *old_len = (size_t)(sep - s) + 1;
        *new_off = *old_len + 4;
        return;
    }
    size_t lines = 0, half = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    for (size_t i = 0, k = 0; i < n && k < lines / 2; i++)
        if (s[i] == '\n' && ++k == lines / 2)
            half = i + 1;
    *old_len = half;
    *new_off = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    const char *s = (const char *)data;
    size_t old_len, new_off;
    split(s, size, &old_len, &new_off);
    const char *nw = s + new_off;
    size_t new_len = size - new_off;

    py_tree t, fresh, near, derived;
    CHECK(py_parse(&t, s, old_len, "<old>") == 0);
    CHECK(py_parse(&near, s, old_len, "<near>") == 0);
    CHECK(py_reparse_lines(&t, nw, new_len) == 0);
    CHECK(t.len == new_len && !memcmp(t.src, nw, new_len));
    CHECK(py_parse(&fresh, nw, new_len, "<fresh>") == 0);
    CHECK(same_tree(&t, &fresh));
    CHECK(py_parse_near(&derived, nw, new_len, "<derived>", &near) == 0);
    CHECK(same_tree(&derived, &fresh));
    py_tree again;
    CHECK(py_parse(&again, s, old_len, "<again>") == 0);
    CHECK(same_tree(&near, &again));
    py_tree_free(&again);
    py_tree_free(&derived);
    py_tree_free(&fresh);
    py_tree_free(&near);
    py_tree_free(&t);
    pgci_error_clear();
    return 0;
}
