/* Unit tests for py/pytop: module-level statement starts without a parse. The
 * oracle is tree-sitter: on every fixture module, the starts are those of the
 * module node's children that are not comments (tests/tools/pytop_cmp does the
 * same over the real corpus, fuzz_pytop over anything). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "py/py.h"
#include "py/pytop.h"
#include "tests/unit/py_files.h"

/* The 0-based rows the scan starts statements at, as "0,3,7" ("-" declined). */
static void rows(const char *src, char *out, size_t cap)
{
    py_top *t;
    size_t n;
    out[0] = '\0';
    if (py_top_split(src, strlen(src), &t, &n) < 0) {
        snprintf(out, cap, "-");
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%u", i ? "," : "", t[i].row);
    free(t);
}

#define ROWS(src, want)                                                                            \
    do {                                                                                           \
        char got_[256];                                                                            \
        rows(src, got_, sizeof(got_));                                                             \
        assert_string_equal(got_, want);                                                           \
    } while (0)

static void test_statements(void **state)
{
    (void)state;
    ROWS("x = 1\ny = 2\n", "0,1");
    ROWS("# c\n\nx = 1\n  # indented comment\n\ny = 2", "2,5");
    /* a block, its clauses, decorators (comments and blank lines between) */
    ROWS("if a:\n    b\nelif c:\n    d\nelse:\n    e\nz = 1\n", "0,6");
    ROWS("try:\n    a\nexcept E:\n    b\nfinally:\n    c\nelsewhere = 1\n", "0,6");
    ROWS("try:\n    a\nexcept E:\n    b\nexcept F:\n    b\nelse:\n    c\nfinally:\n    d\nx\n",
         "0,10");
    ROWS("while a:\n    b\nelse:\n    c\nif a:\n    b\nelif c:\n    d\nelif e:\n    f\n", "0,4");
    ROWS("@d\n# c\n\n@e(1)\ndef f():\n    pass\nclass A:\n    x = 1\n", "0,6");
    /* brackets and backslashes join lines */
    ROWS("x = (\n1,\n2)\ny = [\n]\nz = 1 + \\\n2\nw = 0\n", "0,3,5,7");
    /* strings: quotes inside, triple quotes over lines, prefixes, escapes */
    ROWS("s = '''\nclass A:\n'''\nt = 1\n", "0,3");
    ROWS("s = \"a\\\"b\"\nt = r'\\''\nu = b\"\"\"x\n\"\"\"\nv = 1\n", "0,1,2,4");
    ROWS("s = 'a\\\nb'\nt = 1\n", "0,2");
    /* f-strings: fields with strings of the other quote, format specs, braces */
    ROWS("s = f\"{d['k']:>{w}} {{x}}\"\nt = f'''{\nx\n}'''\nu = 1\n", "0,1,4");
    ROWS("s = f'\\N{BULLET} {x!r}'\nt = 1\n", "0,1");
    /* an identifier's tail is no prefix */
    ROWS("herb = 1\nx = herb\ny = 'f'\n", "0,1,2");
    /* a header's colon before a comment, over lines, after decorators */
    ROWS("def f():  # c\n    x = 1\nif (a and\n    b):\n    c\n@d\nclass A:\n  y\n", "0,2,5");
    ROWS("if x := f(a[1:2]):\n    pass\nclass A: y = 1\nz = 1\n", "0,2,3");
    ROWS("def f():\n    if a:\n            b\n    c\nd\n", "0,4");
    ROWS("", "");
    /* a class's body on the lines after its header */
    {
        const char *src =
            "@d\nclass A(B):  # c\n    # c\n    \"\"\"Doc.\"\"\"\n\n    @p\n    def f(self):\n"
            "        return 1\n    x = 1\nclass C: pass\n";
        py_top *t, *m;
        size_t n, k;
        assert_int_equal(py_top_split(src, strlen(src), &t, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(t[0].body_row, 2);
        assert_int_equal(t[1].body, 0);
        assert_int_equal(py_top_split_body(src, strlen(src), &t[0], t[1].start, &m, &k), 0);
        assert_int_equal(k, 3);
        assert_int_equal(m[0].row, 3);
        assert_int_equal(m[1].row, 5);
        assert_int_equal(m[2].row, 8);
        assert_int_equal(src[m[1].start], '@');
        free(m);
        free(t);
    }
    ROWS("# only a comment\n", "");
}

static void test_declines(void **state)
{
    (void)state;
    ROWS("x = 'unterminated\ny = 1\n", "-");
    ROWS("x = '''never closed\n", "-");
    ROWS("x = (1,\n", "-");
    ROWS("x = 1)\n", "-");
    ROWS("x = 1\r\ny = 2\r\n", "-");
    ROWS("\xef\xbb\xbfx = 1\n", "-");
    /* a character tree-sitter skips as blank, at a line's start: its statement
     * starts past it (fuzz_pytop's find: a byte order mark on line 2) */
    ROWS("#\n\xef\xbb\xbf"
         "b\nb",
         "-");
    ROWS("x = 1\n\xe2\x80\x8by = 2\n", "-");
    ROWS("class A:\n    \xe2\x81\xa0x = 1\n", "-");
    ROWS("x = 1\ny = 2\v\n", "-");
    ROWS("x = '\xe2\x80\x8b'\n", "-"); /* anywhere: the real corpus has none */
    ROWS("\fx = 1\n", "-");
    ROWS("x = 1 \\\n", "-");
    ROWS("\\\nx = 1\n", "-");
    ROWS("  x = 1\n", "-");
    /* an indented line after a simple statement: CPython refuses it, tree-sitter
     * reads a statement of its own (the fuzzer's first find) */
    ROWS("\"\"\"\"\"\"\n try:imports\nexcept :", "-");
    ROWS("def f(): pass\n    x = 1\n", "-");
    ROWS("e:\n 1\n b=2", "-");    /* a colon, but no compound statement's */
    ROWS("class A:x:\nb=2", "-"); /* an inline body's colon */
    ROWS("x =e:\nb = 2\n", "-");  /* a simple statement's */
    /* indentation CPython refuses: a dedent to no enclosing block's column, a
     * header without a body, tabs */
    ROWS("class A:\n     s\n s", "-");
    ROWS("def f():\n        a\n    b\n", "-");
    ROWS("if a:\nx = 1\n", "-");
    ROWS("if a:\n\tx = 1\n", "-");
    /* a clause its statement cannot take */
    ROWS("def g():s\nelse:s\n", "-");
    ROWS("try:\n    a\nfinally:\n    b\nelse:\n    c\n", "-");
    ROWS("for x in y:\n    a\nelse:\n    b\nelse:\n    c\n", "-");
    /* fields read differently before and after Python 3.12 */
    ROWS("x = f'{d['k']}'\n", "-");
    ROWS("x = f'{a # c\n}'\n", "-");
    ROWS("x = f'{a \\\n+ b}'\n", "-");
    ROWS("x = f'\\{a}'\n", "-");
    ROWS("x = t'{a}'\n", "-");
    /* a logical line that wants more: CPython refuses it, tree-sitter reads on
     * into the next line (fuzz_pytop's find: "#\nb=\nb") */
    ROWS("#\nb=\nb", "-");
    ROWS("import a,\nb\n", "-");
    ROWS("x = a and\nb\n", "-");
    ROWS("x = a.\nb\n", "-");
    ROWS("x = a *\nb\n", "-");
    ROWS("x = a1.\nb\n", "-");
    ROWS("z = 1,\n", "-"); /* a tuple's comma, as an import's: declined alike */
    /* statements of one line: tree-sitter's, but no line of their own */
    ROWS("ez;cept\n2", "-");
    ROWS("class A:\n    x = 1; y = 2\n", "-");
}

/* what ends a logical line without wanting more */
static void test_complete_lines(void **state)
{
    (void)state;
    ROWS("from m import *\nx = 1\n", "0,1");
    ROWS("x = ...\ndef f(): ...\ny = 1.\n", "0,1,2");
    ROWS("return_ = a.b\nimported = None\nx = yield\n", "0,1,2");
}

static int compare_with_tree(const char *path, const char *src, size_t len, size_t *stmts,
                             size_t *members)
{
    py_tree t;
    assert_int_equal(py_parse(&t, src, len, path), 0);
    if (ts_node_has_error(py_root(&t))) {
        py_tree_free(&t);
        return 0;
    }
    py_top *tops;
    size_t n;
    assert_int_equal(py_top_split(src, len, &tops, &n), 0);
    TSNode root = py_root(&t);
    size_t j = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
        TSNode ch = ts_node_named_child(root, i);
        if (py_is(ch, "comment"))
            continue;
        if (j >= n || tops[j].start != ts_node_start_byte(ch))
            fail_msg("%s:%u: tree-sitter starts a statement the scan does not", path, py_line(ch));
        /* a class's body: its block's statements */
        TSNode def = py_is(ch, "decorated_definition") ? py_field(ch, "definition") : ch;
        py_top *m;
        size_t k;
        if (tops[j].body && py_top_split_body(src, len, &tops[j],
                                              j + 1 < n ? tops[j + 1].start : len, &m, &k) == 0) {
            TSNode body = py_field(def, "body");
            size_t mi = 0;
            for (uint32_t c = 0; c < ts_node_named_child_count(body); c++) {
                TSNode st = ts_node_named_child(body, c);
                if (py_is(st, "comment"))
                    continue;
                if (mi >= k || m[mi].start != ts_node_start_byte(st))
                    fail_msg("%s:%u: tree-sitter starts a class body statement the scan does not",
                             path, py_line(st));
                mi++;
            }
            assert_int_equal(mi, k);
            *members += k;
            free(m);
        }
        j++;
    }
    assert_int_equal(j, n);
    *stmts += n;
    free(tops);
    py_tree_free(&t);
    return 1;
}

typedef struct fixture_counts {
    size_t files, stmts, members;
} fixture_counts;

static void compare_fixture(const char *path, const char *src, size_t len, void *arg)
{
    fixture_counts *c = arg;
    c->files += (size_t)compare_with_tree(path, src, len, &c->stmts, &c->members);
}

static void test_fixtures_like_tree_sitter(void **state)
{
    (void)state;
    fixture_counts c = {0, 0, 0};
    py_files_under("fixtures", compare_fixture, &c);
    size_t files = c.files, stmts = c.stmts, members = c.members;
    assert_true(files >= 80);
    assert_true(stmts >= 1000);
    assert_true(members >= 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statements),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_complete_lines),
        cmocka_unit_test(test_fixtures_like_tree_sitter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
