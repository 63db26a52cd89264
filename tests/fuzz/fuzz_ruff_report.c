/*
 * fuzz_ruff_report - libFuzzer target for src/patchgen/normalize_report: a
 * batched `ruff check` report cut into each file's part.
 *
 * The input is the report; the batch's files are /t/<k>/m<k>.py, k < 12. The
 * target aborts when an invariant breaks:
 *  - the result is -1 (refused) or the number of files with a part;
 *  - the parts and what comes before the first one make up the report: their
 *    lengths add up to its length, the text before the first part is blank, and
 *    each part is made of lines of the report;
 *  - a file's part names that file and no other file of the batch;
 *  - cutting is deterministic: a second cut of the same input gives the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/normalize_internal.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFILES 12

static long cut(const char *rep, size_t len, const strvec *files, strbuf *parts)
{
    for (int k = 0; k < NFILES; k++)
        strbuf_init(&parts[k], 0);
    return normalize_report_split(rep, len, "/t", files, parts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *rep = (const char *)data;
    strvec files = STRVEC_INIT;
    char name[32];
    for (int k = 0; k < NFILES; k++) {
        snprintf(name, sizeof(name), "/t/%d/m%d.py", k, k);
        strvec_push(&files, name);
    }
    strbuf parts[NFILES], again[NFILES];
    long n = cut(rep, size, &files, parts);
    long m = cut(rep, size, &files, again);
    CHECK(n == m);
    CHECK(n >= -1 && n <= NFILES);
    size_t total = 0;
    long with = 0;
    for (int k = 0; k < NFILES; k++) {
        CHECK(parts[k].len == again[k].len);
        CHECK(!parts[k].len || !memcmp(parts[k].buf, again[k].buf, parts[k].len));
        if (n < 0 || !parts[k].len)
            continue;
        with++;
        total += parts[k].len;
        /* each of its lines is a line of the report (a file's diagnostics may
         * come in more than one stretch: its part joins them) */
        for (size_t a = 0; a < parts[k].len;) {
            const char *nl = memchr(parts[k].buf + a, '\n', parts[k].len - a);
            size_t b = nl ? (size_t)(nl - parts[k].buf) + 1 : parts[k].len;
            CHECK(memmem(rep, size, parts[k].buf + a, b - a) != NULL);
            a = b;
        }
        CHECK(memmem(parts[k].buf, parts[k].len, files.items[k], strlen(files.items[k])) != NULL);
        for (int j = 0; j < NFILES; j++) {
            /* "/t/1/m1.py" inside "/t/11/m11.py"? no: the k differs before */
            char other[40];
            snprintf(other, sizeof(other), "%s:", files.items[j]);
            if (j != k)
                CHECK(memmem(parts[k].buf, parts[k].len, other, strlen(other)) == NULL);
        }
    }
    if (n >= 0) {
        CHECK(with == n);
        CHECK(total <= size);
        for (size_t i = 0; i < size - total; i++)
            CHECK(rep[i] == ' ' || rep[i] == '\t' || rep[i] == '\r' || rep[i] == '\n');
    }
    for (int k = 0; k < NFILES; k++) {
        strbuf_free(&parts[k]);
        strbuf_free(&again[k]);
    }
    strvec_free(&files);
    return 0;
}
