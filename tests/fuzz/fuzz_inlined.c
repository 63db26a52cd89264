/*
 * fuzz_inlined - libFuzzer target for checks/inlined.c: a function's one-use
 * temporaries written in place, the rewrite the survey compares two upstream
 * bodies through.
 *
 * The input is a definition's text. Beyond memory safety and termination, the
 * target aborts when an invariant breaks:
 *  - a text Python does not accept is refused (negative) and *out is untouched;
 *  - the rewrite of a text it accepts is Python too;
 *  - a rewrite with folds differs from the text, one without is the text;
 *  - the rewrite is deterministic: a second one gives the same bytes and count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/inlined.h"
#include "core/strbuf.h"
#include "py/py.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    py_tree t;
    int valid = py_parse(&t, src, size, "fuzz.py") == 0 && py_check_syntax(&t) == 0;
    if (t.tree)
        py_tree_free(&t);
    pgci_error_clear();
    strbuf out = STRBUF_INIT, again = STRBUF_INIT;
    strbuf_adds(&out, "untouched");
    int n = inlined_temporaries(&out, src, size);
    pgci_error_clear();
    CHECK((n < 0) == !valid);
    if (n < 0) {
        CHECK(!strcmp(out.buf, "untouched"));
    } else {
        CHECK(py_parse(&t, out.buf, out.len, "out.py") == 0);
        CHECK(py_check_syntax(&t) == 0);
        py_tree_free(&t);
        CHECK(n > 0 ? out.len != size || memcmp(out.buf, src, size)
                    : out.len == size && !memcmp(out.buf, src, size));
        CHECK(inlined_temporaries(&again, src, size) == n);
        CHECK(again.len == out.len && !memcmp(again.buf, out.buf, out.len));
    }
    pgci_error_clear();
    strbuf_free(&out);
    strbuf_free(&again);
    return 0;
}
