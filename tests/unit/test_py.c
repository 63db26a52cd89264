/* Unit tests for src/py: the tree-sitter wrapper over the pinned Python grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/error.h"
#include "py/py.h"

static void test_parse_function(void **state)
{
    (void)state;
    const char *src = "@auto_docstring\ndef f(x, *, y: int = 3) -> int:\n    return x\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "m.py"), 0);
    TSNode root = py_root(&t);
    assert_string_equal(ts_node_type(root), "module");
    TSNode dec = ts_node_named_child(root, 0);
    assert_true(py_is(dec, "decorated_definition"));
    TSNode def = py_field(dec, "definition");
    assert_true(py_is(def, "function_definition"));
    assert_true(py_text_eq(&t, py_field(def, "name"), "f"));
    assert_int_equal(py_line(def), 2);
    assert_int_equal(py_check_syntax(&t), 0);
    py_tree_free(&t);
}

static void test_syntax_error(void **state)
{
    (void)state;
    const char *src = "x = 1\ndef (:\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "bad.py"), 0);
    assert_int_equal(py_check_syntax(&t), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "bad.py:2:"));
    py_tree_free(&t);
}

static void test_html_is_not_python(void **state)
{
    (void)state;
    const char *src = "<!DOCTYPE html>\n<html><body>Not Found</body></html>\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "page.py"), 0);
    assert_int_equal(py_check_syntax(&t), PGCI_EINVALID);
    py_tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_function),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_html_is_not_python),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
