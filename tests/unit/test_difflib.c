/* Unit tests for src/patchgen/difflib: line splitting, rstrip, the matcher's
 * choices (CPython's docstring examples, autojunk on both sides of its threshold,
 * extension over popular elements), hunk ranges and context merging, and the
 * patchgen .diff form. The expected values were worked out by hand and agree with
 * CPython 3.11; tests/oracle/difflib.sh checks thousands more against Python. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "patchgen/difflib.h"

/* Characters of a C string as element ids. */
static uint32_t *ids(const char *s, size_t *n)
{
    *n = strlen(s);
    uint32_t *v = malloc((*n ? *n : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < *n; i++)
        v[i] = (unsigned char)s[i];
    return v;
}

static char *unified(const char *a, const char *b, int n)
{
    strbuf out = STRBUF_INIT;
    difflib_unified_diff(&out, a, strlen(a), b, strlen(b), "a", "b", n);
    return strbuf_detach(&out, NULL);
}

static char *patchgen(const char *a, const char *b)
{
    strbuf out = STRBUF_INIT;
    difflib_patchgen_diff(&out, a, strlen(a), b, strlen(b), "a/m.py", "b/m.py");
    return strbuf_detach(&out, NULL);
}

static void test_splitlines(void **state)
{
    (void)state;
    /* Every str.splitlines boundary once, and a last line without one. */
    const char *s = "a\nb\r\nc\rd\ve\ff\x1cg\x1dh\x1ei\xc2\x85j\xe2\x80\xa8k\xe2\x80\xa9l";
    size_t *st;
    size_t n = difflib_splitlines(s, strlen(s), &st);
    assert_int_equal(n, 12);
    static const size_t want[] = {0, 2, 5, 7, 9, 11, 13, 15, 17, 20, 24, 28, 29};
    for (size_t i = 0; i <= n; i++)
        assert_int_equal(st[i], want[i]);
    free(st);

    n = difflib_splitlines("", 0, &st);
    assert_int_equal(n, 0);
    assert_int_equal(st[0], 0);
    free(st);
    n = difflib_splitlines("\r\r\n\n", 4, &st);
    assert_int_equal(n, 3); /* "\r", "\r\n", "\n" */
    assert_int_equal(st[1], 1);
    assert_int_equal(st[2], 3);
    free(st);
    /* Not boundaries: \x1f, U+2027, a lone C2 or 85 byte, NEL split from its lead. */
    const char *t = "a\x1f\xe2\x80\xa7"
                    "b\xc2x\x85";
    n = difflib_splitlines(t, strlen(t), &st);
    assert_int_equal(n, 1);
    free(st);
}

/* Boundaries at every offset of the eight-byte scan, with tabs and other non-boundary
 * bytes (\x1f, 0xc2 0xa0, 0xe2 0x80 0x8b) that the word filter lets through. */
static void test_splitlines_offsets(void **state)
{
    (void)state;
    static const char *const seps[] = {"\n", "\r\n", "\r", "\x1e", "\xc2\x85", "\xe2\x80\xa9"};
    for (size_t k = 0; k < sizeof(seps) / sizeof(*seps); k++) {
        for (size_t pre = 0; pre < 20; pre++) {
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < pre; i++)
                strbuf_adds(&sb, i % 5 == 4 ? "\t" : i % 7 == 6 ? "\x1f" : "x");
            strbuf_adds(&sb, "\xc2\xa0\xe2\x80\x8b");
            size_t first = sb.len + strlen(seps[k]);
            strbuf_adds(&sb, seps[k]);
            strbuf_adds(&sb, "tail\ttext");
            size_t *st;
            size_t n = difflib_splitlines(sb.buf, sb.len, &st);
            assert_int_equal(n, 2);
            assert_int_equal(st[1], first);
            assert_int_equal(st[2], sb.len);
            free(st);
            strbuf_free(&sb);
        }
    }
}

static void test_eol_len(void **state)
{
    (void)state;
    assert_int_equal(difflib_eol_len("ab", 2), 0);
    assert_int_equal(difflib_eol_len("", 0), 0);
    assert_int_equal(difflib_eol_len("a\n", 2), 1);
    assert_int_equal(difflib_eol_len("a\r\n", 3), 2);
    assert_int_equal(difflib_eol_len("a\r", 2), 1);
    assert_int_equal(difflib_eol_len("a\x1e", 2), 1);
    assert_int_equal(difflib_eol_len("a\xc2\x85", 3), 2);
    assert_int_equal(difflib_eol_len("a\xe2\x80\xa9", 4), 3);
    assert_int_equal(difflib_eol_len("a\x1f", 2), 0);
}

static void test_rstrip(void **state)
{
    (void)state;
    /* ASCII whitespace, \x1c-\x1f, NBSP, NEL, OGHAM SPACE MARK, EN QUAD, HAIR SPACE,
     * NARROW NBSP, MEDIUM MATHEMATICAL SPACE, IDEOGRAPHIC SPACE. */
    const char *s = "x \t\v\f\r\n\x1c\x1d\x1e\x1f\xc2\xa0\xc2\x85\xe1\x9a\x80\xe2\x80\x80"
                    "\xe2\x80\x8a\xe2\x80\xaf\xe2\x81\x9f\xe3\x80\x80";
    assert_int_equal(difflib_rstrip_len(s, strlen(s)), 1);
    assert_int_equal(difflib_rstrip_len("", 0), 0);
    assert_int_equal(difflib_rstrip_len("  ", 2), 0);
    /* Not str.isspace(): ZERO WIDTH SPACE, MONGOLIAN VOWEL SEPARATOR, BOM, U+200B
     * after a space, and a trailing "é". */
    assert_int_equal(difflib_rstrip_len("x\xe2\x80\x8b", 4), 4);
    assert_int_equal(difflib_rstrip_len("x\xe1\xa0\x8e", 4), 4);
    assert_int_equal(difflib_rstrip_len("x\xef\xbb\xbf", 4), 4);
    assert_int_equal(difflib_rstrip_len("x \xe2\x80\x8b", 5), 5);
    assert_int_equal(difflib_rstrip_len("x\xc3\xa9 ", 4), 3);
}

static void test_longest_match(void **state)
{
    (void)state;
    size_t na, nb;
    uint32_t *a = ids(" abcd", &na), *b = ids("abcd abcd", &nb);
    difflib_matcher *m = difflib_matcher_new(a, na, b, nb, 1);
    difflib_match x = difflib_find_longest_match(m, 0, na, 0, nb);
    assert_int_equal(x.a, 0);
    assert_int_equal(x.b, 4);
    assert_int_equal(x.size, 5);
    /* Restricted ranges: the earliest "abcd" in b wins the tie. */
    x = difflib_find_longest_match(m, 1, na, 0, nb);
    assert_int_equal(x.a, 1);
    assert_int_equal(x.b, 0);
    assert_int_equal(x.size, 4);
    difflib_matcher_free(m);
    free(a);
    free(b);

    a = ids("ab", &na);
    b = ids("c", &nb);
    m = difflib_matcher_new(a, na, b, nb, 1);
    x = difflib_find_longest_match(m, 0, na, 0, nb);
    assert_int_equal(x.a, 0);
    assert_int_equal(x.b, 0);
    assert_int_equal(x.size, 0);
    difflib_matcher_free(m);
    free(a);
    free(b);
}

static void test_blocks_and_opcodes(void **state)
{
    (void)state;
    size_t na, nb, cnt;
    uint32_t *a = ids("abxcd", &na), *b = ids("abcd", &nb);
    difflib_matcher *m = difflib_matcher_new(a, na, b, nb, 1);
    const difflib_match *bl = difflib_matching_blocks(m, &cnt);
    assert_int_equal(cnt, 3);
    assert_int_equal(bl[0].a, 0);
    assert_int_equal(bl[0].b, 0);
    assert_int_equal(bl[0].size, 2);
    assert_int_equal(bl[1].a, 3);
    assert_int_equal(bl[1].b, 2);
    assert_int_equal(bl[1].size, 2);
    assert_int_equal(bl[2].a, 5);
    assert_int_equal(bl[2].b, 4);
    assert_int_equal(bl[2].size, 0);
    difflib_matcher_free(m);
    free(a);
    free(b);

    a = ids("qabxcd", &na);
    b = ids("abycdf", &nb);
    m = difflib_matcher_new(a, na, b, nb, 1);
    const difflib_opcode *op = difflib_opcodes(m, &cnt);
    static const difflib_opcode want[] = {
        {DIFFLIB_DELETE, 0, 1, 0, 0}, {DIFFLIB_EQUAL, 1, 3, 0, 2},  {DIFFLIB_REPLACE, 3, 4, 2, 3},
        {DIFFLIB_EQUAL, 4, 6, 3, 5},  {DIFFLIB_INSERT, 6, 6, 5, 6},
    };
    assert_int_equal(cnt, 5);
    for (size_t i = 0; i < cnt; i++) {
        assert_int_equal(op[i].tag, want[i].tag);
        assert_int_equal(op[i].i1, want[i].i1);
        assert_int_equal(op[i].i2, want[i].i2);
        assert_int_equal(op[i].j1, want[i].j1);
        assert_int_equal(op[i].j2, want[i].j2);
    }
    difflib_matcher_free(m);
    free(a);
    free(b);

    /* Two empty sequences: only the closing block, no opcodes, no groups. */
    m = difflib_matcher_new(NULL, 0, NULL, 0, 1);
    bl = difflib_matching_blocks(m, &cnt);
    assert_int_equal(cnt, 1);
    assert_int_equal(bl[0].size, 0);
    difflib_opcodes(m, &cnt);
    assert_int_equal(cnt, 0);
    difflib_opcode *gops;
    size_t *ends;
    assert_int_equal(difflib_grouped_opcodes(m, 3, &gops, &ends), 0);
    free(gops);
    free(ends);
    difflib_matcher_free(m);
}

/* CPython's get_grouped_opcodes docstring: 1..39 with an insertion, two
 * replacements and a deletion gives three groups. */
static void test_grouped_opcodes(void **state)
{
    (void)state;
    uint32_t a[39], b[40];
    for (uint32_t i = 0; i < 39; i++)
        a[i] = i + 1;
    size_t nb = 0;
    for (size_t i = 0; i < 39; i++) {
        if (i == 8)
            b[nb++] = 100; /* b[8:8] = ['i'] */
        b[nb++] = a[i];
    }
    b[20] = 101;                                           /* b[20] += 'x' */
    memmove(&b[23], &b[28], (nb - 28) * sizeof(uint32_t)); /* b[23:28] = [] */
    nb -= 5;
    b[30] = 102; /* b[30] += 'y' */
    difflib_matcher *m = difflib_matcher_new(a, 39, b, nb, 1);
    difflib_opcode *ops;
    size_t *ends;
    size_t ng = difflib_grouped_opcodes(m, 3, &ops, &ends);
    static const difflib_opcode want[] = {
        {DIFFLIB_EQUAL, 5, 8, 5, 8},       {DIFFLIB_INSERT, 8, 8, 8, 9},
        {DIFFLIB_EQUAL, 8, 11, 9, 12},     {DIFFLIB_EQUAL, 16, 19, 17, 20},
        {DIFFLIB_REPLACE, 19, 20, 20, 21}, {DIFFLIB_EQUAL, 20, 22, 21, 23},
        {DIFFLIB_DELETE, 22, 27, 23, 23},  {DIFFLIB_EQUAL, 27, 30, 23, 26},
        {DIFFLIB_EQUAL, 31, 34, 27, 30},   {DIFFLIB_REPLACE, 34, 35, 30, 31},
        {DIFFLIB_EQUAL, 35, 38, 31, 34},
    };
    assert_int_equal(ng, 3);
    assert_int_equal(ends[0], 3);
    assert_int_equal(ends[1], 8);
    assert_int_equal(ends[2], 11);
    for (size_t i = 0; i < 11; i++) {
        assert_int_equal(ops[i].tag, want[i].tag);
        assert_int_equal(ops[i].i1, want[i].i1);
        assert_int_equal(ops[i].i2, want[i].i2);
        assert_int_equal(ops[i].j1, want[i].j1);
        assert_int_equal(ops[i].j2, want[i].j2);
    }
    free(ops);
    free(ends);
    difflib_matcher_free(m);
}

/* len(b) == 200: an element is popular past 1 + 200/100 = 3 occurrences. */
static void test_autojunk_threshold(void **state)
{
    (void)state;
    uint32_t a[1] = {999}, b[200];
    for (uint32_t j = 0; j < 200; j++)
        b[j] = j;
    for (int j = 196; j < 200; j++)
        b[j] = 999; /* four times: popular, so it never starts a match */
    difflib_matcher *m = difflib_matcher_new(a, 1, b, 200, 1);
    difflib_match x = difflib_find_longest_match(m, 0, 1, 0, 200);
    assert_int_equal(x.size, 0);
    difflib_matcher_free(m);

    m = difflib_matcher_new(a, 1, b, 200, 0); /* autojunk off: found */
    x = difflib_find_longest_match(m, 0, 1, 0, 200);
    assert_int_equal(x.b, 196);
    assert_int_equal(x.size, 1);
    difflib_matcher_free(m);

    b[196] = 196; /* three times: still indexed */
    m = difflib_matcher_new(a, 1, b, 200, 1);
    x = difflib_find_longest_match(m, 0, 1, 0, 200);
    assert_int_equal(x.b, 197);
    assert_int_equal(x.size, 1);
    difflib_matcher_free(m);

    /* 199 elements: below the size threshold, nothing is popular. */
    for (int j = 190; j < 199; j++)
        b[j] = 999;
    m = difflib_matcher_new(a, 1, b, 199, 1);
    x = difflib_find_longest_match(m, 0, 1, 0, 199);
    assert_int_equal(x.b, 190);
    assert_int_equal(x.size, 1);
    difflib_matcher_free(m);
}

/* A popular element next to a unique match is picked up by the extension. */
static void test_extension_over_popular(void **state)
{
    (void)state;
    uint32_t a[3] = {7, 5, 7}, b[200];
    size_t nb = 0;
    for (int k = 0; k < 3; k++)
        b[nb++] = 7;
    for (uint32_t v = 100; v < 150; v++)
        b[nb++] = v;
    b[nb++] = 7;
    b[nb++] = 5;
    b[nb++] = 7;
    for (uint32_t v = 200; nb < 200; v++)
        b[nb++] = v;
    difflib_matcher *m = difflib_matcher_new(a, 3, b, 200, 1);
    difflib_match x = difflib_find_longest_match(m, 0, 3, 0, 200);
    assert_int_equal(x.a, 0);
    assert_int_equal(x.b, 53);
    assert_int_equal(x.size, 3);
    difflib_matcher_free(m);
}

static void test_unified_small(void **state)
{
    (void)state;
    char *d = unified("one\ntwo\nthree\nfour\n", "zero\none\ntree\nfour\n", 3);
    assert_string_equal(d, "--- a\n+++ b\n@@ -1,4 +1,4 @@\n+zero\n one\n-two\n-three\n+tree\n"
                           " four\n");
    free(d);
    d = unified("same\n", "same\n", 3);
    assert_string_equal(d, "");
    free(d);
    d = unified("", "", 3);
    assert_string_equal(d, "");
    free(d);
    /* Empty sides: a zero-length range starts at the line before it. */
    d = unified("", "x\n", 3);
    assert_string_equal(d, "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
    free(d);
    d = unified("x\ny\n", "", 3);
    assert_string_equal(d, "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n");
    free(d);
    /* n = 0: a one-line range is just its start. */
    d = unified("a\nb\nc\n", "a\nc\n", 0);
    assert_string_equal(d, "--- a\n+++ b\n@@ -2 +1,0 @@\n-b\n");
    free(d);
    /* A last line without a newline is written as it is, with no marker. */
    d = unified("a\nb", "a\nc", 3);
    assert_string_equal(d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b+c");
    free(d);
    /* \r\n and \r are kept inside the lines; "x\r\n" differs from "x\n". */
    d = unified("x\r\ny\r", "x\ny\r", 3);
    assert_string_equal(d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x\r\n+x\n y\r");
    free(d);
}

static char *numbered(int n, int change1, int change2)
{
    strbuf sb = STRBUF_INIT;
    for (int i = 1; i <= n; i++) {
        if (i == change1 || i == change2)
            strbuf_addf(&sb, "changed %d\n", i);
        else
            strbuf_addf(&sb, "%d\n", i);
    }
    return strbuf_detach(&sb, NULL);
}

static int count_hunks(const char *d)
{
    int n = 0;
    for (const char *p = d; (p = strstr(p, "\n@@ -")) != NULL; p++)
        n++;
    return n;
}

/* Two changes 2n lines apart share a hunk; 2n + 1 apart, they do not. */
static void test_context_merging(void **state)
{
    (void)state;
    char *a = numbered(20, 0, 0);
    char *b = numbered(20, 5, 12);
    char *d = unified(a, b, 3);
    const char *head = "--- a\n+++ b\n@@ -2,14 +2,14 @@\n 2\n 3\n 4\n-5\n+changed 5\n";
    assert_int_equal(strncmp(d, head, strlen(head)), 0);
    assert_int_equal(count_hunks(d), 1);
    assert_non_null(strstr(d, " 15\n"));
    assert_null(strstr(d, " 16\n"));
    free(b);
    free(d);

    b = numbered(20, 5, 13);
    d = unified(a, b, 3);
    assert_non_null(strstr(d, "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+changed 5\n 6\n 7\n 8\n@@ "));
    assert_non_null(
        strstr(d, "@@ -10,7 +10,7 @@\n 10\n 11\n 12\n-13\n+changed 13\n 14\n 15\n 16\n"));
    assert_int_equal(count_hunks(d), 2);
    free(b);
    free(d);

    /* n = 0 gives one hunk per change, n = 10 one hunk for the whole file. */
    b = numbered(20, 5, 6);
    d = unified(a, b, 0);
    assert_string_equal(d, "--- a\n+++ b\n@@ -5,2 +5,2 @@\n-5\n-6\n+changed 5\n+changed 6\n");
    free(d);
    d = unified(a, b, 10);
    assert_non_null(strstr(d, "@@ -1,16 +1,16 @@\n"));
    free(b);
    free(d);
    free(a);
}

static void test_patchgen_form(void **state)
{
    (void)state;
    char *d = patchgen("x  \n", "y\t\n");
    assert_string_equal(d, "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x\n+y\n");
    free(d);
    d = patchgen("same\n", "same\n");
    assert_string_equal(d, "");
    free(d);
    /* \r\n endings and trailing Unicode spaces go; a missing final newline gets one,
     * and the quoted lines are split again at every splitlines boundary. */
    d = patchgen("a\r\nb\xe3\x80\x80\n", "a\r\nc\xc2\xa0");
    assert_string_equal(d, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
    free(d);
    d = patchgen("p\x1cq\n", "r\n"); /* "-p\x1c" comes back as "-p\n" */
    assert_string_equal(d, "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1 @@\n-p\n-q\n+r\n");
    free(d);
    /* Whitespace-only lines become empty; the context marker " " is stripped too. */
    d = patchgen("\n \nz\n", "\n \nw\n");
    assert_string_equal(d, "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n\n\n-z\n+w\n");
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitlines),
        cmocka_unit_test(test_splitlines_offsets),
        cmocka_unit_test(test_eol_len),
        cmocka_unit_test(test_rstrip),
        cmocka_unit_test(test_longest_match),
        cmocka_unit_test(test_blocks_and_opcodes),
        cmocka_unit_test(test_grouped_opcodes),
        cmocka_unit_test(test_autojunk_threshold),
        cmocka_unit_test(test_extension_over_popular),
        cmocka_unit_test(test_unified_small),
        cmocka_unit_test(test_context_merging),
        cmocka_unit_test(test_patchgen_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
