/* Unit tests for src/py/reparse: an incremental re-parse gives the tree a fresh
 * parse gives, for edits at the start, in the middle, at the end, that change the
 * indentation (Python's external scanner), that introduce and remove a syntax
 * error, and for a text that shares nothing with the old one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "py/py.h"
#include "py/reparse.h"

static void same_as_fresh(py_tree *t, const char *next)
{
    assert_int_equal(py_reparse(t, next, strlen(next)), 0);
    assert_string_equal(t->src, next);
    py_tree fresh;
    assert_int_equal(py_parse(&fresh, next, strlen(next), "<fresh>"), 0);
    char *a = ts_node_string(py_root(t)), *b = ts_node_string(py_root(&fresh));
    assert_string_equal(a, b);
    free(a);
    free(b);
    py_tree_free(&fresh);
}

static void test_edits(void **state)
{
    (void)state;
    const char *steps[] = {
        "class A:\n    def f(self):\n        return 1\n",
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n",
        "class A:\n    x = 2\n    def f(self):\n        return 1\n\n    def g(self):\n        "
        "pass\n",
        "class A:\n    x = 2\n    def f(self):\n        if x:\n            return 1\n"
        "        return 2\n\n    def g(self):\n        pass\n",
        "class A:\n    x = 2\n    def f(self):\n    return 1\n",     /* a syntax error */
        "class A:\n    x = 2\n    def f(self):\n        return 1\n", /* and back */
        "@dec\nclass A:\n\tdef f(self):\n\t\treturn 1  # tabs\n",
        "def totally_other():\n    ...\n",
        "",
        "class B(A):\n    pass\n",
    };
    py_tree t;
    assert_int_equal(py_parse(&t, steps[0], strlen(steps[0]), "<class>"), 0);
    for (size_t i = 1; i < sizeof(steps) / sizeof(*steps); i++)
        same_as_fresh(&t, steps[i]);
    py_tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
