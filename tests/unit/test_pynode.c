/* Unit tests for src/py/pynode.c: where code ends, clean one-line source text, and
 * the other node helpers the index stands on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "py/pynode.h"

static TSNode first_stmt(py_tree *t, const char *src)
{
    assert_int_equal(py_parse(t, src, strlen(src), "m.py"), 0);
    return pynode_named_child(py_root(t), 0);
}

static void test_code_end(void **state)
{
    (void)state;
    py_tree t;
    const char *src = "def f():\n    x = 1\n    # trailing\n\n# outside\ny = 2\n";
    TSNode f = first_stmt(&t, src);
    assert_true(py_is(f, "function_definition"));
    uint32_t end;
    TSPoint p = pynode_code_end(f, &end);
    assert_int_equal(p.row + 1, 2);
    assert_int_equal(pynode_end_line(f), 2);
    assert_memory_equal(t.src + end - 5, "x = 1", 5);
    py_tree_free(&t);
}

static void check_clean(const char *src, const char *want)
{
    py_tree t;
    TSNode stmt = first_stmt(&t, src);
    TSNode expr = pynode_named_child(stmt, 0);
    if (py_is(expr, "assignment"))
        expr = py_field(expr, "right");
    strbuf sb = STRBUF_INIT;
    pynode_text_clean(&sb, &t, expr);
    assert_string_equal(sb.buf, want);
    strbuf_free(&sb);
    py_tree_free(&t);
}

static void test_text_clean(void **state)
{
    (void)state;
    check_clean("x = f(a, b)\n", "f(a, b)");
    check_clean("x = f(\n    a,  # first\n    b,\n)\n", "f(a, b,)");
    check_clean("x = [1,\n     2] + \\\n    y\n", "[1, 2] + y");
    /* strings are copied as they are, newlines and '#' included */
    check_clean("x = ('''a\n# b''' +\n     \"#c\")\n", "('''a\n# b''' + \"#c\")");
    check_clean("x = {\n  'k': v  # note\n}\n", "{'k': v}");
}

static void test_children_and_docstring(void **state)
{
    (void)state;
    py_tree t;
    TSNode f = first_stmt(&t, "def f(a, # c\n      b):\n    # lead\n    'Doc.'\n    pass\n");
    TSNode *kids;
    size_t n = pynode_children(py_field(f, "parameters"), 1, &kids);
    assert_int_equal(n, 2); /* the comment is not a child */
    assert_true(py_text_eq(&t, kids[0], "a"));
    assert_true(py_text_eq(&t, kids[1], "b"));
    free(kids);
    TSNode doc = pynode_docstring(&t, py_field(f, "body"));
    assert_false(ts_node_is_null(doc));
    assert_true(py_text_eq(&t, doc, "'Doc.'"));
    py_tree_free(&t);

    /* bytes and f-strings are not docstrings */
    f = first_stmt(&t, "def f():\n    b'x'\n");
    assert_true(ts_node_is_null(pynode_docstring(&t, py_field(f, "body"))));
    py_tree_free(&t);
    f = first_stmt(&t, "def f():\n    f'x'\n");
    assert_true(ts_node_is_null(pynode_docstring(&t, py_field(f, "body"))));
    py_tree_free(&t);
    f = first_stmt(&t, "def f():\n    'a' 'b'\n    x = 1\n");
    assert_true(py_is(pynode_docstring(&t, py_field(f, "body")), "concatenated_string"));
    py_tree_free(&t);
}

static void test_depth(void **state)
{
    (void)state;
    py_tree t;
    first_stmt(&t, "x = ((((1))))\n");
    assert_false(pynode_deeper_than(py_root(&t), 30));
    assert_true(pynode_deeper_than(py_root(&t), 5));
    py_tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_code_end),
        cmocka_unit_test(test_text_clean),
        cmocka_unit_test(test_children_and_docstring),
        cmocka_unit_test(test_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
