/* Unit tests for src/py/pystr.c: Python string literal decoding, one construct per
 * case (tests/oracle/pystr.sh compares thousands more against CPython itself). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/error.h"
#include "py/pystr.h"

/* Decodes `lit` and checks the result equals expect[0..elen). */
static void check_value(const char *lit, const char *expect, size_t elen)
{
    strbuf out = STRBUF_INIT;
    int r = pystr_decode(&out, lit, strlen(lit));
    if (r != 0)
        fail_msg("%s: %s", lit, pgci_error_last());
    assert_int_equal(out.len, elen);
    assert_memory_equal(out.buf, expect, elen);
    strbuf_free(&out);
}
#define VALUE(lit, expect) check_value(lit, expect, sizeof(expect) - 1)

static void check_error(const char *lit, int code, const char *needle)
{
    strbuf out = STRBUF_INIT;
    strbuf_adds(&out, "kept");
    assert_int_equal(pystr_decode(&out, lit, strlen(lit)), code);
    assert_string_equal(out.buf, "kept"); /* nothing appended on failure */
    if (!strstr(pgci_error_last(), needle))
        fail_msg("%s: message '%s' lacks '%s'", lit, pgci_error_last(), needle);
    strbuf_free(&out);
}

static void test_quotes(void **state)
{
    (void)state;
    VALUE("'abc'", "abc");
    VALUE("\"a'b\"", "a'b");
    VALUE("'''a\n'b'\n\"\"\"'''", "a\n'b'\n\"\"\"");
    VALUE("\"\"\"x\"y\"\"z\"\"\"", "x\"y\"\"z");
    VALUE("''", "");
    VALUE("''''''", "");
}

static void test_prefixes(void **state)
{
    (void)state;
    VALUE("u'\\n'", "\n");
    VALUE("U'x'", "x");
    VALUE("r'\\n'", "\\n");
    VALUE("R'\\''", "\\'");
    VALUE("b'\\x00\\xff'", "\0\xff");
    VALUE("Rb'\\d'", "\\d");
    VALUE("bR'\\d'", "\\d");
    VALUE("f'{{a}}'", "{a}");
    VALUE("rF'\\{{'", "\\{");
    unsigned fl = 0;
    strbuf out = STRBUF_INIT;
    assert_int_equal(pystr_decode_info(&out, "BR'''x'''", 9, &fl), 0);
    assert_int_equal(fl, PYSTR_BYTES | PYSTR_RAW | PYSTR_TRIPLE);
    strbuf_free(&out);
    check_error("ub'x'", PGCI_EINVALID, "invalid string prefix");
    check_error("bf'x'", PGCI_EINVALID, "invalid string prefix");
    check_error("rr'x'", PGCI_EINVALID, "invalid string prefix");
    check_error("x'a'", PGCI_EINVALID, "unexpected 'x'");
}

static void test_escapes(void **state)
{
    (void)state;
    VALUE("'\\\\ \\' \\\" \\a\\b\\f\\n\\r\\t\\v'", "\\ ' \" \a\b\f\n\r\t\v");
    VALUE("'\\0\\7\\101\\1234'", "\0\a"
                                 "A"
                                 "S4");
    VALUE("'\\777'", "\xc7\xbf"); /* chr(511) in UTF-8 */
    VALUE("b'\\777'", "\xff");    /* bytes keep the low byte */
    VALUE("'\\x41\\xe9'", "A\xc3\xa9");
    VALUE("'\\u4e2d\\U0001F600'", "\xe4\xb8\xad\xf0\x9f\x98\x80");
    VALUE("'\\ud800'", "\xed\xa0\x80"); /* surrogatepass */
    VALUE("b'\\u1234\\N{X}'", "\\u1234\\N{X}");
    VALUE("'\\q\\8\\ '", "\\q\\8\\ ");
    VALUE("'a\\\nb'", "ab");
    VALUE("'a\\\r\nb'", "ab");
    check_error("'\\x4'", PGCI_EINVALID, "truncated \\x escape");
    check_error("'\\u12'", PGCI_EINVALID, "truncated \\u escape");
    check_error("'\\U00110000'", PGCI_EINVALID, "illegal Unicode character");
    check_error("'\\N{DASH}'", PGCI_EUNSUPPORTED, "\\N{...}");
    VALUE("r'\\N{DASH}'", "\\N{DASH}");
}

static void test_newlines_and_utf8(void **state)
{
    (void)state;
    VALUE("'''a\r\nb\rc'''", "a\nb\nc");
    VALUE("'caf\xc3\xa9'", "caf\xc3\xa9");
    check_error("'a\nb'", PGCI_EINVALID, "newline in a one-line string");
    check_error("'\xff'", PGCI_EINVALID, "not valid UTF-8");
    check_error("'\xed\xa0\x80'", PGCI_EINVALID, "not valid UTF-8");
    check_error("b'\xc3\xa9'", PGCI_EINVALID, "ASCII");
}

static void test_malformed(void **state)
{
    (void)state;
    check_error("'abc", PGCI_EINVALID, "unterminated");
    check_error("'abc\\'", PGCI_EINVALID, "closing quote is escaped");
    check_error("r'abc\\'", PGCI_EINVALID, "closing quote is escaped");
    check_error("'a'b'", PGCI_EINVALID, "ends before its last quote");
    check_error("'''a''''", PGCI_EINVALID, "ends before its last quote");
    check_error("rb", PGCI_EINVALID, "no opening quote");
    strbuf out = STRBUF_INIT;
    assert_int_equal(pystr_decode(&out, "'a\0b'", 5), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "NUL"));
    strbuf_free(&out);
}

static void test_fstrings(void **state)
{
    (void)state;
    VALUE("f'a}}b{{'", "a}b{");
    VALUE("f'\\x7b'", "{"); /* an escaped brace is a character, not a field */
    VALUE("f'\\{{'", "\\{");
    check_error("f'{x}'", PGCI_EUNSUPPORTED, "replacement fields");
    check_error("f'a}'", PGCI_EINVALID, "single '}'");
}

/* Decodes the first expression of src through the tree-sitter node. */
static int node_decode(strbuf *out, const char *src)
{
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "m.py"), 0);
    TSNode n = ts_node_named_child(ts_node_named_child(py_root(&t), 0), 0);
    if (py_is(n, "parenthesized_expression"))
        n = ts_node_named_child(n, 0);
    int r = pystr_decode_node(out, &t, n);
    py_tree_free(&t);
    return r;
}

static void test_nodes(void **state)
{
    (void)state;
    strbuf out = STRBUF_INIT;
    assert_int_equal(node_decode(&out, "x = 1\n"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "expected a string literal"));
    assert_int_equal(node_decode(&out, "'a' \"b\" r'\\c'\n"), 0);
    assert_string_equal(out.buf, "ab\\c");
    strbuf_reset(&out);
    assert_int_equal(node_decode(&out, "('a'  # one\n 'b')\n"), 0);
    assert_string_equal(out.buf, "ab");
    strbuf_reset(&out);
    assert_int_equal(node_decode(&out, "('a'\n b'b')\n"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "m.py:2:2: cannot mix bytes and nonbytes"));
    assert_int_equal(out.len, 0);
    assert_int_equal(node_decode(&out, "\n  'a' f'{x}'\n"), PGCI_EUNSUPPORTED);
    assert_non_null(strstr(pgci_error_last(), "m.py:2:7: f-string"));
    strbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quotes),    cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_escapes),   cmocka_unit_test(test_newlines_and_utf8),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_fstrings),
        cmocka_unit_test(test_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
