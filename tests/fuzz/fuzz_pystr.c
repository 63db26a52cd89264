/*
 * fuzz_pystr - libFuzzer target for the Python string-literal decoder.
 *
 * The input is tried two ways: as one literal's text (pystr_decode_info), and as
 * Python source whose every string / concatenated_string node is decoded through
 * pystr_decode_node, as the index and the config evaluator do. Aborts when an
 * invariant breaks:
 *  - the result is 0, PGCI_EINVALID or PGCI_EUNSUPPORTED, and an error has a message;
 *  - on error the output buffer is left exactly as it was;
 *  - a str literal decodes to well-formed UTF-8 (lone surrogates allowed, written
 *    as Python's surrogatepass does); a bytes literal's source is ASCII;
 *  - a raw, non-f literal without CR decodes to its body unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "py/py.h"
#include "py/pystr.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* UTF-8 with surrogates allowed (WTF-8), decoded by code point arithmetic. */
static int wtf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = s[i], min;
        size_t len;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            len = 2, min = 0x80, c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3, min = 0x800, c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        if (i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            c = (c << 6) | (s[i + k] & 0x3f);
        }
        if (c < min || c > 0x10ffff)
            return 0;
        i += len;
    }
    return 1;
}

static void check_text(const char *lit, size_t len)
{
    strbuf out = STRBUF_INIT;
    strbuf_adds(&out, "keep");
    unsigned flags = 0;
    pgci_error_clear();
    int r = pystr_decode_info(&out, lit, len, &flags);
    if (r < 0) {
        CHECK(r == PGCI_EINVALID || r == PGCI_EUNSUPPORTED);
        CHECK(pgci_error_last()[0] != '\0');
        CHECK(out.len == 4 && !memcmp(out.buf, "keep", 4));
        strbuf_free(&out);
        return;
    }
    CHECK(r == 0);
    const unsigned char *v = (const unsigned char *)out.buf + 4;
    size_t vlen = out.len - 4;
    if (flags & PYSTR_BYTES) {
        for (size_t i = 0; i < len; i++)
            CHECK((unsigned char)lit[i] < 0x80);
    } else {
        CHECK(wtf8_ok(v, vlen));
    }
    if ((flags & PYSTR_RAW) && !(flags & PYSTR_FSTRING) && !memchr(lit, '\r', len)) {
        size_t q = (flags & PYSTR_TRIPLE) ? 3 : 1, start = 0;
        while (lit[start] != '\'' && lit[start] != '"')
            start++;
        size_t blen = len - start - 2 * q;
        CHECK(vlen == blen && !memcmp(v, lit + start + q, blen));
    }
    strbuf_free(&out);
}

static void walk(const py_tree *t, TSNode n, int depth)
{
    if (depth > 200)
        return;
    if (py_is(n, "string") || py_is(n, "concatenated_string")) {
        strbuf out = STRBUF_INIT;
        int r = pystr_decode_node(&out, t, n);
        CHECK(r == 0 || r == PGCI_EINVALID || r == PGCI_EUNSUPPORTED);
        CHECK(r == 0 || out.len == 0);
        strbuf_free(&out);
        if (py_is(n, "string")) {
            size_t len;
            const char *s = py_text(t, n, &len);
            check_text(s, len);
        }
    }
    uint32_t c = ts_node_child_count(n);
    for (uint32_t i = 0; i < c; i++)
        walk(t, ts_node_child(n, i), depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    check_text((const char *)data, size);
    py_tree t;
    if (py_parse(&t, (const char *)data, size, "fuzz.py") == 0) {
        walk(&t, py_root(&t), 0);
        py_tree_free(&t);
    }
    return 0;
}
