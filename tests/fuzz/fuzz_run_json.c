/*
 * Fuzzes the run.json reader and every renderer behind it: whatever a shard or a
 * downloaded artifact holds, `pgci report` either refuses it with a one-line
 * message naming the file, or renders every format without crashing; a document
 * it accepts survives a dump and a re-read unchanged, and merging it with itself
 * succeeds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "reports/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_doc d;
    if (run_doc_parse(&d, (const char *)data, size, "fuzz.json") < 0) {
        const char *m = pgci_error_last();
        if (strncmp(m, "fuzz.json", 9) || strchr(m, '\n'))
            abort();
        return 0;
    }
    strbuf out = STRBUF_INIT;
    report_markdown(&out, &d);
    strbuf_reset(&out);
    if (report_html(&out, &d) < 0)
        abort();
    strbuf_reset(&out);
    report_sarif(&out, &d);
    strbuf_reset(&out);
    report_github(&out, &d);
    strbuf_reset(&out);
    report_comment(&out, &d, NULL, 4096);
    /* the comment never exceeds its limit by more than the closing lines */
    size_t chars = 0;
    for (size_t i = 0; i < out.len; i++)
        chars += ((unsigned char)out.buf[i] & 0xC0) != 0x80;
    if (chars > 4096 + 200)
        abort();
    strbuf_reset(&out);
    run_doc_dump(&d, &out);
    run_doc back;
    if (run_doc_parse(&back, out.buf, out.len, "dump.json") < 0)
        abort();
    strbuf again = STRBUF_INIT;
    run_doc_dump(&back, &again);
    if (strcmp(out.buf, again.buf))
        abort();
    run_doc pair[2] = {d, back}, merged;
    /* a run merged with itself is refused when it ran a config (its findings would
     * count twice) or, a verify run, a suite; either way the merge must not crash or
     * leak */
    if (run_doc_merge(&merged, pair, NULL, 2) < 0 && !pgci_error_last()[0])
        abort();
    run_doc_free(&merged);
    run_doc_free(&back);
    strbuf_free(&again);
    strbuf_free(&out);
    run_doc_free(&d);
    return 0;
}
