/*
 * fuzz_forest - libFuzzer target for a regenerated file read as a forest
 * (src/py/forest.c) by the names check and the structural comparison. The
 * input, split at the first "\n#--\n", is an upstream module and a regenerated
 * text (without one, the input is both). Aborts when an invariant breaks:
 *  - the names findings of the text read as a forest against the module are
 *    those of its whole tree;
 *  - the structural comparison of the text with the module, the text read as a
 *    forest, says what the whole comparison says, to the lines and the message;
 *  - the forest declines only a text with a syntax error or one whose
 *    statements the scan (py_top_split) cannot tell;
 *  - a second forest of the text, with the first one's parse as kin (as the
 *    second config of a module takes its sibling's: here nearly every statement
 *    the first one parsed), is made too, and its names findings are the whole
 *    tree's as well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/names.h"
#include "core/error.h"
#include "py/forest.h"
#include "py/py.h"
#include "py/pytop.h"
#include "py/structural.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *names_json(const findings *f)
{
    json_t *j = findings_to_json(f);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

static void names_like_whole(const py_tree *tu, const char *a, size_t alen)
{
    py_tree ta;
    CHECK(py_parse(&ta, a, alen, "a.py") == 0);
    findings fw = FINDINGS_INIT, ff = FINDINGS_INIT;
    int clean = check_names_tree(&fw, &ta, "m", "a.py", NULL) == 0;
    pgci_error_clear();
    py_forest f;
    if (py_forest_build(&f, a, alen, "a.py", tu, NULL, 0) == 0) {
        CHECK(clean);
        CHECK(check_names_forest(&ff, &f, "m", "a.py", NULL) == 0);
        char *x = names_json(&fw), *y = names_json(&ff);
        CHECK(!strcmp(x, y));
        free(y);
        const py_tree *kin[] = {&f.parsed};
        py_forest g;
        CHECK(py_forest_build(&g, a, alen, "a.py", tu, kin, 1) == 0);
        findings_free(&ff);
        CHECK(check_names_forest(&ff, &g, "m", "a.py", NULL) == 0);
        y = names_json(&ff);
        CHECK(!strcmp(x, y));
        free(x);
        free(y);
        py_forest_free(&g);
        py_forest_free(&f);
    } else {
        py_top *t = NULL;
        size_t n;
        CHECK(!clean || py_top_split(a, alen, &t, &n) < 0 || n == 0 ||
              ts_node_has_error(py_root(&ta)));
        free(t);
    }
    pgci_error_clear();
    findings_free(&fw);
    findings_free(&ff);
    py_tree_free(&ta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    const char *s = (const char *)data, *a;
    size_t ulen, alen;
    fuzz_two_texts(s, size, &ulen, &a, &alen);
    py_tree tu;
    CHECK(py_parse(&tu, s, ulen, "u.py") == 0);
    if (py_check_syntax(&tu) == 0) {
        names_like_whole(&tu, a, alen);
        structural_result whole, forest;
        int rw = structural_compare_whole(a, alen, s, ulen, &whole);
        pgci_error_clear();
        if (structural_compare_forest(s, ulen, a, alen, s, ulen, &forest) == 0) {
            CHECK(rw == 0);
            CHECK(structural_result_same(&whole, &forest));
            structural_result_free(&forest);
        }
        if (rw == 0)
            structural_result_free(&whole);
    }
    pgci_error_clear();
    py_tree_free(&tu);
    return 0;
}
