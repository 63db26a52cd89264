/*
 * fuzz_upstream_validate - libFuzzer target for upstream_validate(), the gate every
 * file from the network, a clone or a directory passes before pgci uses it.
 *
 * Aborts when an invariant breaks:
 *  - accepted input has no NUL byte, is well-formed UTF-8 by a second, independent
 *    decoder (code point arithmetic rather than the byte-range table), and does not
 *    start like an HTML page;
 *  - rejected input has a message, and the message names the first reason in the
 *    validator's order: NUL ("binary data"), then UTF-8 ("not valid UTF-8"), then
 *    HTML, then syntax ("not valid Python").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "upstream/upstream.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when s is well-formed UTF-8: decode each sequence to its code point, then
 * refuse overlong forms, surrogates and anything past U+10FFFF. */
static int utf8_ok(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = s[i];
        size_t len;
        uint32_t min;
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
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

static int starts_like_html(const uint8_t *s, size_t n)
{
    size_t i = n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (i < n && strchr(" \t\r\n", s[i]) && s[i])
        i++;
    return (n - i >= 5 && !strncasecmp((const char *)s + i, "<html", 5)) ||
           (n - i >= 9 && !strncasecmp((const char *)s + i, "<!doctype", 9));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pgci_error_clear();
    int r = upstream_validate((const char *)data, size, "f.py");
    int has_nul = memchr(data, 0, size) != NULL;
    int utf8 = utf8_ok(data, size);
    const char *m = pgci_error_last();
    if (r == 0) {
        CHECK(!has_nul);
        CHECK(utf8);
        CHECK(!starts_like_html(data, size));
        return 0;
    }
    CHECK(r == PGCI_EINVALID);
    CHECK(m[0] != '\0');
    if (has_nul)
        CHECK(strstr(m, "binary data") != NULL);
    else if (!utf8)
        CHECK(strstr(m, "not valid UTF-8") != NULL);
    else if (starts_like_html(data, size))
        CHECK(strstr(m, "HTML page") != NULL);
    else
        CHECK(strstr(m, "HTML page") != NULL || strstr(m, "not valid Python") != NULL);
    return 0;
}
