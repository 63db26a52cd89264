/*
 * fuzz_pysrc - libFuzzer target for reading a Python file as the interpreter does
 * (src/py/pysrc.c): line breaks, the coding line, NFKC identifiers, nesting.
 *
 * Aborts when an invariant breaks:
 *  - pysrc_prepare fails with exactly one line of message, or succeeds with text
 *    that has no "\r", as many line breaks as the input has ("\r\n" counting once),
 *    and is valid UTF-8;
 *  - pysrc_check_nesting and pysrc_check_indent_width fail with one line or succeed;
 *  - identifiers normalised (or one line of error): the text keeps its line
 *    breaks, and normalising the new text again changes nothing (NFKC is
 *    idempotent) when both trees parse cleanly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core/error.h"
#include "py/py.h"
#include "py/pysrc.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one_line(void)
{
    const char *m = pgci_error_last();
    return *m && !strchr(m, '\n');
}

static size_t breaks(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n' || (s[i] == '\r' && !(i + 1 < n && s[i + 1] == '\n')))
            k++;
    return k;
}

static int valid_utf8(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0)
            return 0;
        i += (size_t)k;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    const char *src = (const char *)data;
    strbuf text = STRBUF_INIT;
    pgci_error_clear();
    if (pysrc_prepare(&text, src, size, "f.py") < 0) {
        CHECK(one_line());
        strbuf_free(&text);
        return 0;
    }
    CHECK(!memchr(text.buf, '\r', text.len));
    CHECK(breaks(text.buf, text.len) == breaks(src, size));
    CHECK(valid_utf8(text.buf, text.len));
    if (pysrc_check_indent_width(text.buf, text.len, "f.py") < 0)
        CHECK(one_line());
    py_tree t;
    if (py_parse(&t, text.buf, text.len, "f.py") == 0) {
        TSNode err;
        int had_error = py_first_error(&t, &err);
        if (pysrc_check_nesting(&t) < 0)
            CHECK(one_line());
        strbuf norm = STRBUF_INIT;
        int nr = pysrc_normalize_identifiers(&norm, &t);
        if (nr < 0)
            CHECK(one_line());
        if (nr > 0) {
            CHECK(breaks(norm.buf, norm.len) == breaks(text.buf, text.len));
            py_tree u;
            if (py_parse(&u, norm.buf, norm.len, "f.py") == 0) {
                strbuf again = STRBUF_INIT;
                if (!had_error && !py_first_error(&u, &err))
                    CHECK(pysrc_normalize_identifiers(&again, &u) == 0);
                strbuf_free(&again);
                py_tree_free(&u);
            }
        }
        strbuf_free(&norm);
        py_tree_free(&t);
    }
    strbuf_free(&text);
    return 0;
}
