/* Unit tests for src/py: the tree-sitter wrapper over the pinned Python grammar,
 * and the parse set that shares a run's trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/error.h"
#include "core/sha256.h"
#include "py/parse_set.h"
#include "py/py.h"
#include "py/pysrc.h"

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

static size_t parses_of(py_parse_set *s)
{
    size_t parses, reused;
    py_parse_set_counts(s, &parses, &reused);
    return parses;
}

/* A forgotten tree: a copy still out stays whole until released, the next
 * request parses again; forgetting what the set never had does nothing. */
/* universal newlines as Python reads a source: \r\n and a lone \r become \n, at
 * the start, the end and side by side; text without \r is copied as it is */
/* A buffer asked for again is found by its address, its bytes compared: the same
 * buffer rewritten in place with other bytes of the same length is another text,
 * and a copy of the bytes elsewhere is the same one */
static void test_parse_set_same_buffer_new_bytes(void **state)
{
    (void)state;
    char buf[] = "x = 1\n";
    py_parse_set *s = py_parse_set_new();
    py_tree t;
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 1);
    buf[0] = 'y';
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    TSNode stmt = ts_node_named_child(py_root(&t), 0);
    TSNode assign = ts_node_named_child(stmt, 0);
    assert_true(py_text_eq(&t, py_field(assign, "left"), "y"));
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 2);
    char copy[] = "y = 1\n";
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 2);
    /* forgetting through the rewritten buffer forgets the text it now holds */
    py_parse_set_forget(s, buf, strlen(buf));
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 3);
    py_parse_set_free(s);
}

/* The digest a set keyed a tree by is the SHA-256 of the bytes: given for a
 * buffer it parsed (and for a copy of it once asked for), refused for bytes it
 * never parsed, for a buffer rewritten since, and for a tree forgotten. */
static void test_parse_set_digest(void **state)
{
    (void)state;
    char buf[] = "x = 1\n", copy[] = "x = 1\n", want[SHA256_HEX_LEN + 1];
    char got[SHA256_HEX_LEN + 1];
    py_parse_set *s = py_parse_set_new();
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), -1);
    py_tree t;
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    sha256_hex(buf, strlen(buf), want);
    memset(got, 0, sizeof(got));
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), 0);
    assert_string_equal(got, want);
    /* a copy is known by its address only once it was asked for */
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), -1);
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), 0);
    assert_string_equal(got, want);
    buf[0] = 'y';
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), -1);
    py_parse_set_forget(s, copy, strlen(copy));
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), -1);
    py_parse_set_free(s);
}

static void test_prepare_newlines(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {{"a = 1\nb = 2\n", "a = 1\nb = 2\n"},
                 {"a\r\nb\rc\n", "a\nb\nc\n"},
                 {"\r\r\n\n\r", "\n\n\n\n"},
                 {"x\r", "x\n"},
                 {"\r\nx", "\nx"},
                 {"", ""}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        strbuf b = STRBUF_INIT;
        strbuf_adds(&b, "#");
        assert_int_equal(pysrc_prepare(&b, cases[i].in, strlen(cases[i].in), "t.py"), 0);
        assert_int_equal(b.len, 1 + strlen(cases[i].out));
        assert_memory_equal(b.buf + 1, cases[i].out, b.len - 1);
        strbuf_free(&b);
    }
}

static void test_parse_set_forget(void **state)
{
    (void)state;
    const char *a = "def f(x):\n    return x\n", *b = "y = 2\n";
    py_parse_set *s = py_parse_set_new();
    py_parse_set_forget(s, b, strlen(b));
    py_tree t1, t2;
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t2), 0);
    assert_int_equal(parses_of(s), 1);
    py_parse_set_forget(s, a, strlen(a));
    py_parse_set_release(&t1);
    /* t2 is still a whole tree over its source */
    TSNode def = ts_node_named_child(py_root(&t2), 0);
    assert_true(py_is(def, "function_definition"));
    assert_true(py_text_eq(&t2, py_field(def, "name"), "f"));
    py_parse_set_release(&t2);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 2);
    /* asked for again before its last copy went: forgetting is undone */
    py_parse_set_forget(s, a, strlen(a));
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t2), 0);
    py_parse_set_release(&t1);
    py_parse_set_release(&t2);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 2);
    py_parse_set_release(&t1);
    /* forgotten with no copy out: gone at once */
    py_parse_set_forget(s, a, strlen(a));
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 3);
    py_parse_set_release(&t1);
    py_parse_set_free(s);
}

/* py_field is tree-sitter's ts_node_child_by_field_name, for every field name of
 * the grammar (and names it lacks) at every node of the tree. */
static size_t fields_like_tree_sitter(const py_tree *t)
{
    const TSLanguage *l = tree_sitter_python();
    uint32_t count = ts_language_field_count(l);
    const char *others[] = {"", "nosuchfield", "bod", "bodyx",
                            "a_very_long_field_name_beyond_32_chars"};
    size_t asked = 0;
    TSTreeCursor c = ts_tree_cursor_new(py_root(t));
    do {
        TSNode n = ts_tree_cursor_current_node(&c);
        for (uint32_t i = 1; i <= count; i++) {
            const char *name = ts_language_field_name_for_id(l, (TSFieldId)i);
            TSNode want = ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
            assert_true(ts_node_eq(py_field(n, name), want));
            asked++;
        }
        for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
            assert_true(ts_node_is_null(py_field(n, others[i])));
    } while (py_cursor_next(&c, 1));
    ts_tree_cursor_delete(&c);
    return asked;
}

static void test_field_like_tree_sitter(void **state)
{
    (void)state;
    const char *srcs[] = {
        "def f(a: int = 1, *b, c, **d) -> int:\n    return a if b else c\n",
        "class A(B, metaclass=M):\n    x: int = 1\n    def g(self): return self.y[0](z=1)\n",
        "for (i, j) in k:\n    with a as b, c: pass\nelse:\n    import x.y as z\n",
        "try:\n    f(*a, **k)\nexcept E as e:\n    raise X from e\nfinally:\n    del q\n",
        "lambda x, y=2: [v for v in x if v]\nmatch p:\n    case {'a': 1}: pass\n",
        "def broken(:\n",
    };
    size_t asked = 0;
    for (size_t i = 0; i < sizeof(srcs) / sizeof(*srcs); i++) {
        py_tree t;
        assert_int_equal(py_parse(&t, srcs[i], strlen(srcs[i]), "<fields>"), 0);
        asked += fields_like_tree_sitter(&t);
        py_tree_free(&t);
    }
    assert_true(asked > 1000);
    TSNode null = {0};
    assert_true(ts_node_is_null(py_field(null, "body")));
}

/* py_is is strcmp(ts_node_type(n), type) == 0, for every symbol name of the
 * grammar (aliased, anonymous, ERROR in broken code) and names it lacks, at every
 * node of the tree. */
static void test_is_like_tree_sitter(void **state)
{
    (void)state;
    const char *srcs[] = {
        "def f(a: int = 1, *b, c, **d) -> int:\n    return a if b else c\n",
        "class A(B, metaclass=M):\n    x: int = 1\n    def g(self): return self.y[0](z=1)\n",
        "print >> x, 'y'\nexec 'code'\nasync def h():\n    await q\n    yield from r\n",
        "lambda x, y=2: [v for v in x if v]\nmatch p:\n    case {'a': 1}: pass\n",
        "def broken(:\n  x = (1,\n",
        "f'{a!r:>{w}}' + b'\\x00' + r'\\n'\n",
    };
    const TSLanguage *l = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(l);
    const char *others[] = {"", "ERROR", "nosuchtype", "identifie", "identifierx", "_"};
    size_t yes = 0;
    for (size_t k = 0; k < sizeof(srcs) / sizeof(*srcs); k++) {
        py_tree t;
        assert_int_equal(py_parse(&t, srcs[k], strlen(srcs[k]), "<is>"), 0);
        TSTreeCursor c = ts_tree_cursor_new(py_root(&t));
        do {
            TSNode n = ts_tree_cursor_current_node(&c);
            for (uint32_t i = 0; i < count; i++) {
                const char *name = ts_language_symbol_name(l, (TSSymbol)i);
                int want = strcmp(ts_node_type(n), name) == 0;
                assert_int_equal(py_is(n, name), want);
                yes += want;
            }
            for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
                assert_int_equal(py_is(n, others[i]), strcmp(ts_node_type(n), others[i]) == 0);
        } while (py_cursor_next(&c, 1));
        ts_tree_cursor_delete(&c);
        py_tree_free(&t);
    }
    assert_true(yes > 100);
    TSNode null = {0};
    assert_false(py_is(null, "identifier"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_function),
        cmocka_unit_test(test_is_like_tree_sitter),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_html_is_not_python),
        cmocka_unit_test(test_parse_set_forget),
        cmocka_unit_test(test_parse_set_digest),
        cmocka_unit_test(test_prepare_newlines),
        cmocka_unit_test(test_parse_set_same_buffer_new_bytes),
        cmocka_unit_test(test_field_like_tree_sitter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
