/*
 * Fuzzes the JUnit XML reader (src/verify/junit.c, libxml2 underneath) and the
 * run.json form of its cases.
 *
 * Beyond memory safety (ASan, UBSan), it checks the reader's contract: on success
 * the counts add up to the cases, every string is valid UTF-8 (jansson takes it),
 * messages and traces stay within their clipping limits; on failure no case is
 * left and the message is one line starting with the file's name.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "verify/junit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s, int max_lines, int nullable)
{
    if (!s) {
        if (!nullable)
            abort();
        return;
    }
    json_t *j = json_string(s); /* NULL when not UTF-8 */
    if (!j)
        abort();
    json_decref(j);
    int lines = 1;
    for (const char *p = s; *p; p++)
        lines += *p == '\n';
    if (lines > max_lines || strlen(s) > JUNIT_TEXT_MAX)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    junit_result r;
    pgci_error_clear();
    if (junit_parse(&r, (const char *)data, size, "fuzz.xml") < 0) {
        const char *m = pgci_error_last();
        if (r.cases.len || strncmp(m, "fuzz.xml", 8) || strchr(m, '\n'))
            abort();
        return 0;
    }
    size_t total = 0;
    for (int k = 0; k < 4; k++)
        total += r.counts[k];
    if (total != r.cases.len || !(r.seconds >= 0))
        abort();
    for (size_t i = 0; i < r.cases.len; i++) {
        const junit_case *c = &r.cases.items[i];
        check_text(c->classname, 1, 0);
        check_text(c->name, 1, 0);
        check_text(c->message, JUNIT_TRACE_LINES, 1);
        check_text(c->trace, JUNIT_TRACE_LINES, 1);
        if (!(c->seconds >= 0) || (unsigned)c->status > JUNIT_SKIPPED)
            abort();
        if (c->status == JUNIT_PASSED && (c->message || c->trace))
            abort();
    }
    junit_result_free(&r);
    return 0;
}
