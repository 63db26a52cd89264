/* Unit tests for src/workspace/toml.c: every construct the reader accepts, and
 * every error with the line it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "workspace/toml.h"

static toml_value *parse_ok(const char *src)
{
    toml_value *v = NULL;
    int r = toml_parse(&v, src, strlen(src), "t.toml");
    if (r != 0)
        fail_msg("unexpected error: %s", pgci_error_last());
    assert_non_null(v);
    return v;
}

/* Parses src, expects an error whose message starts with `prefix`. */
static void parse_err(const char *src, size_t len, const char *prefix)
{
    toml_value *v = (toml_value *)1;
    pgci_error_clear();
    int r = toml_parse(&v, src, len, "t.toml");
    if (r >= 0)
        fail_msg("expected an error for: %s", src);
    assert_null(v);
    if (strncmp(pgci_error_last(), prefix, strlen(prefix)) != 0)
        fail_msg("message '%s' does not start with '%s'", pgci_error_last(), prefix);
}
#define ERR(src, prefix) parse_err((src), strlen(src), (prefix))

static const char *str_at(const toml_value *root, const char *path)
{
    const char *s = toml_str(toml_get_path(root, path));
    if (!s)
        fail_msg("no string at %s", path);
    return s;
}

static void test_tables_and_dotted_keys(void **state)
{
    (void)state;
    toml_value *d = parse_ok("top = 1\n"
                             "[tool.patchgen]\n"
                             "search_root = \"a/b\"\n"
                             "[tool.pgci]\n"
                             "checks.drift.severity = \"error\"\n"
                             "  site . name = 'x'  # spaces around dots\n"
                             "[ \"quoted.key\" . plain ]\n"
                             "v = true\n"
                             "[a.b.c]\n"
                             "[a]\n"
                             "x = 2\n"
                             "[fruit]\n"
                             "apple.color = \"red\"\n"
                             "[fruit.apple.texture]\n"
                             "smooth = true\n");
    assert_int_equal(toml_get_path(d, "top")->integer, 1);
    assert_string_equal(str_at(d, "tool.patchgen.search_root"), "a/b");
    assert_string_equal(str_at(d, "tool.pgci.checks.drift.severity"), "error");
    assert_string_equal(str_at(d, "tool.pgci.site.name"), "x");
    const toml_value *q = toml_get(d, "quoted.key");
    assert_non_null(q);
    assert_int_equal(toml_get(toml_get(q, "plain"), "v")->boolean, 1);
    assert_int_equal(toml_get_path(d, "a.x")->integer, 2);
    assert_int_equal(toml_get_path(d, "a.b.c")->type, TOML_TABLE);
    assert_int_equal(toml_get_path(d, "fruit.apple.texture.smooth")->boolean, 1);
    /* definition order and lines */
    const toml_value *tool = toml_get(d, "tool");
    assert_string_equal(tool->entries.items[0].key, "patchgen");
    assert_string_equal(tool->entries.items[1].key, "pgci");
    assert_int_equal(toml_get_path(d, "tool.patchgen")->line, 2);
    assert_int_equal(toml_get_path(d, "tool.patchgen.search_root")->line, 3);
    assert_int_equal(toml_get_path(d, "a.x")->line, 11);
    assert_null(toml_get_path(d, "tool.nothing.here"));
    assert_null(toml_get_path(d, "top.x"));
    toml_free(d);
}

static void test_strings(void **state)
{
    (void)state;
    toml_value *d =
        parse_ok("basic = \"tab\\there \\\"q\\\" \\\\ \\u00e9 \\U0001F600 \\b\\f\\r\\n\"\n"
                 "literal = 'C:\\Users\\no\\escapes \"here\"'\n"
                 "ml = \"\"\"\n"
                 "first\n"
                 "  second \\\n"
                 "     joined\"\"\"\n"
                 "mll = '''\n"
                 "raw \\n ''quotes'' ok\n"
                 "'''\n"
                 "quotes = \"\"\"a\"\"\"\"\"\n"
                 "lquotes = '''b'''''\n"
                 "empty = \"\"\n"
                 "lempty = ''\n"
                 "utf8 = \"héllo\"\n"
                 "crlf = \"\"\"x\r\ny\"\"\"\n");
    assert_string_equal(str_at(d, "basic"),
                        "tab\there \"q\" \\ \xc3\xa9 \xf0\x9f\x98\x80 \b\f\r\n");
    assert_string_equal(str_at(d, "literal"), "C:\\Users\\no\\escapes \"here\"");
    assert_string_equal(str_at(d, "ml"), "first\n  second joined");
    assert_string_equal(str_at(d, "mll"), "raw \\n ''quotes'' ok\n");
    assert_string_equal(str_at(d, "quotes"), "a\"\"");
    assert_string_equal(str_at(d, "lquotes"), "b''");
    assert_string_equal(str_at(d, "empty"), "");
    assert_string_equal(str_at(d, "lempty"), "");
    assert_string_equal(str_at(d, "utf8"), "h\xc3\xa9llo");
    assert_string_equal(str_at(d, "crlf"), "x\ny");
    assert_int_equal(toml_get(d, "ml")->line, 3);
    assert_int_equal(toml_get(d, "mll")->line, 7);
    toml_free(d);
}

static void test_arrays(void **state)
{
    (void)state;
    toml_value *d = parse_ok("dependencies = [\n"
                             "  \"a>=1\",  # comment after an item\n"
                             "  # a comment line\n"
                             "\n"
                             "  'b==2',\n"
                             "]\n"
                             "empty = [ ]\n"
                             "nested = [[1, 2], [\"x\"], []]\n"
                             "mixed = [1, 'two', true, {k = 3}]\n"
                             "oneline = [\"x\",\"y\"]\n");
    const toml_value *deps = toml_get(d, "dependencies");
    assert_int_equal(deps->type, TOML_ARRAY);
    assert_int_equal(deps->items.len, 2);
    assert_string_equal(deps->items.items[0]->str, "a>=1");
    assert_int_equal(deps->items.items[0]->line, 2);
    assert_string_equal(deps->items.items[1]->str, "b==2");
    assert_int_equal(deps->items.items[1]->line, 5);
    assert_int_equal(toml_get(d, "empty")->items.len, 0);
    const toml_value *nested = toml_get(d, "nested");
    assert_int_equal(nested->items.len, 3);
    assert_int_equal(nested->items.items[0]->items.items[1]->integer, 2);
    assert_string_equal(nested->items.items[1]->items.items[0]->str, "x");
    const toml_value *mixed = toml_get(d, "mixed");
    assert_int_equal(mixed->items.items[2]->boolean, 1);
    assert_int_equal(toml_get(mixed->items.items[3], "k")->integer, 3);
    assert_int_equal(toml_get(d, "oneline")->items.len, 2);
    toml_free(d);
}

static void test_scalars(void **state)
{
    (void)state;
    toml_value *d = parse_ok("t = true\nf = false\n"
                             "i = 42\nneg = -17\npos = +5\nzero = 0\nbig = 1_000_000\n"
                             "hex = 0xDEAD_beef\noct = 0o755\nbin = 0b1101\n"
                             "max = 9223372036854775807\nmin = -9223372036854775808\n"
                             "fl = 3.14\nexp = 1e3\nfe = -2.5E-2\nfu = 1_0.0_1\n"
                             "pinf = inf\nninf = -inf\nnan = nan\n");
    assert_int_equal(toml_get(d, "t")->type, TOML_BOOL);
    assert_int_equal(toml_get(d, "t")->boolean, 1);
    assert_int_equal(toml_get(d, "f")->boolean, 0);
    assert_int_equal(toml_get(d, "i")->integer, 42);
    assert_int_equal(toml_get(d, "neg")->integer, -17);
    assert_int_equal(toml_get(d, "pos")->integer, 5);
    assert_int_equal(toml_get(d, "zero")->integer, 0);
    assert_int_equal(toml_get(d, "big")->integer, 1000000);
    assert_int_equal(toml_get(d, "hex")->integer, 0xdeadbeef);
    assert_int_equal(toml_get(d, "oct")->integer, 0755);
    assert_int_equal(toml_get(d, "bin")->integer, 13);
    assert_true(toml_get(d, "max")->integer == 9223372036854775807LL);
    assert_true(toml_get(d, "min")->integer == -9223372036854775807LL - 1);
    assert_int_equal(toml_get(d, "fl")->type, TOML_FLOAT);
    assert_true(toml_get(d, "fl")->flt == 3.14);
    assert_true(toml_get(d, "exp")->flt == 1000.0);
    assert_true(toml_get(d, "fe")->flt == -0.025);
    assert_true(toml_get(d, "fu")->flt == 10.01);
    assert_true(isinf(toml_get(d, "pinf")->flt) && toml_get(d, "pinf")->flt > 0);
    assert_true(isinf(toml_get(d, "ninf")->flt) && toml_get(d, "ninf")->flt < 0);
    assert_true(isnan(toml_get(d, "nan")->flt));
    assert_string_equal(toml_type_name(toml_get(d, "i")->type), "integer");
    toml_free(d);
}

static void test_inline_tables_and_aot(void **state)
{
    (void)state;
    toml_value *d = parse_ok("license = { text = \"Apache-2.0\" }\n"
                             "authors = [{ name = \"A\", email = 'a@x' }, {name=\"B\"}]\n"
                             "point = { x.y = 1, z = [1, 2] }\n"
                             "empty = {}\n"
                             "[[tool.uv.index]]\n"
                             "name = \"one\"\n"
                             "[tool.uv.index.sub]\n"
                             "k = 1\n"
                             "[[tool.uv.index]]\n"
                             "name = \"two\"\n"
                             "[tool.uv]\n"
                             "managed = true\n");
    assert_string_equal(str_at(d, "license.text"), "Apache-2.0");
    const toml_value *authors = toml_get(d, "authors");
    assert_int_equal(authors->items.len, 2);
    assert_string_equal(toml_str(toml_get(authors->items.items[0], "email")), "a@x");
    assert_int_equal(toml_get_path(d, "point.x.y")->integer, 1);
    assert_int_equal(toml_get(d, "empty")->entries.len, 0);
    const toml_value *idx = toml_get_path(d, "tool.uv.index");
    assert_int_equal(idx->type, TOML_ARRAY);
    assert_int_equal(idx->items.len, 2);
    assert_string_equal(toml_str(toml_get(idx->items.items[0], "name")), "one");
    assert_int_equal(toml_get_path(idx->items.items[0], "sub.k")->integer, 1);
    assert_string_equal(toml_str(toml_get(idx->items.items[1], "name")), "two");
    assert_int_equal(toml_get_path(d, "tool.uv.managed")->boolean, 1);
    toml_free(d);
}

static void test_comments_and_blank(void **state)
{
    (void)state;
    toml_value *d = parse_ok("# only a comment\n\n   \t\n"
                             "a = 1 # trailing\n"
                             "[t] # after a header\n"
                             "# \xc3\xa9 utf-8 in a comment\n"
                             "b = \"# not a comment\"\n"
                             "c = 2");
    assert_int_equal(toml_get(d, "a")->integer, 1);
    assert_string_equal(str_at(d, "t.b"), "# not a comment");
    assert_int_equal(toml_get_path(d, "t.c")->integer, 2);
    toml_free(d);
    d = parse_ok("");
    assert_int_equal(d->entries.len, 0);
    toml_free(d);
    d = parse_ok("a = 1\r\nb = 2\r\n");
    assert_int_equal(toml_get(d, "b")->integer, 2);
    assert_int_equal(toml_get(d, "b")->line, 2);
    toml_free(d);
}

static void test_errors(void **state)
{
    (void)state;
    ERR("a = 1\n\na = 2\n", "t.toml:3: duplicate key 'a' (first defined on line 1)");
    ERR("[t]\nx = 1\n[t]\n", "t.toml:3: table [t] is defined twice (first on line 1)");
    ERR("[a]\nb.c = 1\n[a.b]\n", "t.toml:3: table [a.b] is defined twice");
    ERR("a.b = 1\n[a]\n", "t.toml:2: table [a] is defined twice");
    ERR("x = 1\ns = \"abc\n", "t.toml:2: newline in a single-line string");
    ERR("x = 1\n\ns = \"\"\"abc\n\n", "t.toml:3: unterminated string");
    ERR("s = 'abc", "t.toml:1: unterminated string");
    ERR("\ns = \"a\\qb\"\n", "t.toml:2: invalid escape '\\' followed by 'q'");
    ERR("s = \"\\u12\"\n", "t.toml:1: \\u escape needs 4 hex digits");
    ERR("s = \"\\uD800\"\n", "t.toml:1: \\u escape U+D800 is not a Unicode scalar value");
    ERR("s = \"\\u0000\"\n", "t.toml:1: \\u0000 (NUL) is not supported");
    ERR("s = \"a\tb\x01\"\n", "t.toml:1: control character 0x01 in a string");
    ERR("a = 01\n", "t.toml:1: invalid value '01'");
    ERR("a = 1__0\n", "t.toml:1: invalid value '1__0'");
    ERR("a = 1.\n", "t.toml:1: invalid float '1.'");
    ERR("a = 1e\n", "t.toml:1: invalid float '1e'");
    ERR("a = -0x10\n", "t.toml:1: a sign is not allowed on '-0x10'");
    ERR("a = 0xZZ\n", "t.toml:1: invalid number '0xZZ'");
    ERR("a = 9223372036854775808\n", "t.toml:1: integer '9223372036854775808' does not fit");
    ERR("\n\na 1\n", "t.toml:3: expected '=' after key 'a', found '1'");
    ERR("a =\n", "t.toml:1: expected a value, found end of line");
    ERR("a = # nothing\n", "t.toml:1: expected a value, found '#'");
    ERR("a = hello\n", "t.toml:1: expected a value, found 'h' (a string needs quotes)");
    ERR("a = truex\n", "t.toml:1: expected a value, found 't'");
    ERR("a = [\n 1\n 2]\n", "t.toml:3: expected ',' or ']' in an array, found '2'");
    ERR("a = [1,", "t.toml:1: expected a value, found end of file");
    ERR("a = { b = 1,\n c = 2 }\n", "t.toml:1: expected a key, found end of line");
    ERR("a = { b = 1\n}\n", "t.toml:1: expected ',' or '}' in an inline table, found end of line "
                            "(inline tables must fit on one line)");
    ERR("a = { b = 1, }\n", "t.toml:1: trailing comma in an inline table");
    ERR("a = { b = 1, b = 2 }\n", "t.toml:1: duplicate key 'b'");
    /* a key with a newline still gives a one-line message */
    ERR("\"a\\nb\" = 1\n\"a\\nb\" = 2\n",
        "t.toml:2: duplicate key 'a?b' (first defined on line 1)");
    ERR("d = 1979-05-27\n", "t.toml:1: dates and times are not supported ('1979-05-27')");
    ERR("d = 07:32:00\n", "t.toml:1: dates and times are not supported");
    ERR("[a\nb = 1\n", "t.toml:1: expected ']' to close the table header, found end of line");
    ERR("[[a]\n", "t.toml:1: expected ']]' to close the table header, found ']'");
    ERR("[]\n", "t.toml:1: expected a key, found ']'");
    ERR("[a..b]\n", "t.toml:1: expected a key, found '.'");
    ERR("a = 1 2\n", "t.toml:1: expected end of line after a value, found '2'");
    ERR("[a] x = 1\n", "t.toml:1: expected end of line after a table header, found 'x'");
    ERR("a = {b = 1}\na.c = 2\n",
        "t.toml:2: cannot add to 'a' with a dotted key: it is an inline table defined on line 1");
    ERR("a = 1\na.c = 2\n",
        "t.toml:2: cannot add to 'a' with a dotted key: it is an integer defined on line 1");
    /* a parent made by a header takes dotted keys (tomllib agrees), then no header */
    ERR("[a.b.c]\n[a]\nb.d = 1\n[a.b]\n", "t.toml:4: table [a.b] is defined twice");
    ERR("a = {b = 1}\n[a.c]\n", "t.toml:2: 'a' is already an inline table (line 1), not a table");
    ERR("a = 1\n[a.b]\n", "t.toml:2: 'a' is already an integer (line 1), not a table");
    ERR("a = []\n[[a]]\n", "t.toml:2: [[a]] conflicts with 'a' defined on line 1");
    ERR("[[a]]\n[a]\n", "t.toml:2: table [a] is defined twice");
    ERR("[a.b]\n[a]\nb.c = 1\n",
        "t.toml:3: cannot add to 'b' with a dotted key: it is a table defined on line 1");
    ERR("\"\"\"k\"\"\" = 1\n", "t.toml:1: a multi-line string cannot be a key");
    ERR("# comment \x07 bell\n", "t.toml:1: control character 0x07 in a comment");
    ERR("a = 1\rb = 2\n", "t.toml:1: expected end of line after a value, found byte 0x0d");
    ERR("\xef\xbb\xbf"
        "a = 1\n",
        "t.toml:1: byte order mark at the start of the file");
    ERR("s = \"\xff\"\n", "t.toml:1: invalid UTF-8 (byte 0xff)");
    ERR("s = \"\xc0\xaf\"\n", "t.toml:1: invalid UTF-8 (overlong or out-of-range sequence)");
    ERR("s = \"\xe2\x82\"", "t.toml:1: invalid UTF-8");
    ERR("a = 1\n# comment \xff\n", "t.toml:2: invalid UTF-8 (byte 0xff)");
    parse_err("a = \"x\0y\"\n", 10, "t.toml:1: control character 0x00 in a string");
}

static void test_limits(void **state)
{
    (void)state;
    /* nesting past TOML_MAX_DEPTH is refused with ELIMIT, not a stack overflow */
    char buf[4096];
    size_t n = 0;
    n += (size_t)snprintf(buf, sizeof(buf), "a = ");
    for (int i = 0; i < TOML_MAX_DEPTH + 5; i++)
        buf[n++] = '[';
    buf[n] = '\0';
    toml_value *v = NULL;
    int r = toml_parse(&v, buf, n, "t.toml");
    assert_int_equal(r, PGCI_ELIMIT);
    assert_string_equal(pgci_error_last(), "t.toml:1: values nested deeper than 64 levels");
    /* and exactly at the limit it still parses */
    n = (size_t)snprintf(buf, sizeof(buf), "a = ");
    for (int i = 0; i < TOML_MAX_DEPTH; i++)
        buf[n++] = '[';
    for (int i = 0; i < TOML_MAX_DEPTH; i++)
        buf[n++] = ']';
    buf[n] = '\0';
    assert_int_equal(toml_parse(&v, buf, n, "t.toml"), 0);
    toml_free(v);
    /* a dotted key with too many parts */
    n = 0;
    for (int i = 0; i < TOML_MAX_DEPTH + 2; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%sk", i ? "." : "");
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, " = 1\n");
    assert_int_equal(toml_parse(&v, buf, n, "t.toml"), PGCI_ELIMIT);
}

static void test_parse_file(void **state)
{
    (void)state;
    char path[] = "/tmp/pgci-toml-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[tool.patchgen]\nsearch_root = 'x'\n\nbad\n", f);
    fclose(f);
    toml_value *v = NULL;
    assert_int_equal(toml_parse_file(&v, path, "pyproject.toml"), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(),
                        "pyproject.toml:4: expected '=' after key 'bad', found end of line");
    assert_true(toml_parse_file(&v, "/nonexistent/pyproject.toml", NULL) < 0);
    assert_null(v);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_and_dotted_keys),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_inline_tables_and_aot),
        cmocka_unit_test(test_comments_and_blank),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_parse_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
