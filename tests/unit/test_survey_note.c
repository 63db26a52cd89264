/* The survey note's inline text (reports/survey_note.h): titles keep their code
 * spans (they render as code in the HTML), everything outside them is escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "reports/survey_note.h"

static void expect(const char *in, const char *want)
{
    strbuf sb = STRBUF_INIT;
    survey_note_inline(&sb, in);
    assert_string_equal(sb.buf, want);
    strbuf_free(&sb);
}

static void test_inline(void **state)
{
    (void)state;
    expect("`self.act_fn` renamed", "`self.act_fn` renamed");
    expect("`Dict[str, List[int]]` <tmp> a_b *x*",
           "`Dict[str, List[int]]` &lt;tmp&gt; a\\_b \\*x\\*");
    expect("`a | b` | c", "`a | b` \\| c");
    expect("two\nlines", "two lines");
    expect("unbalanced `code", "unbalanced `code`");
}

/* The PR comment of a survey too long for its limit keeps every error section:
 * it drops the other sections, then the folded findings, not the errors. */
static void test_comment_keeps_error_sections(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    strbuf full = STRBUF_INIT, small = STRBUF_INIT;
    report_comment(&full, &d, NULL, 0);
    report_comment(&small, &d, NULL, 3000);
    assert_true(full.len > 10000); /* the limit below really bites */
    assert_true(small.len <= 3000);
    static const char *const errors[] = {
        "### `Optional` is no longer imported by the modeling module upstream",
        "### `Qwen3MLP.forward` became `Qwen3FeedForward.forward`",
        "### `LlamaMLP.__init__`: `self.act_fn` became `self.activation_fn`",
        "**Action:** rename `self.act_fn` to `self.activation_fn` in the patch bodies."};
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        assert_non_null(strstr(full.buf, errors[i]));
        assert_non_null(strstr(small.buf, errors[i]));
    }
    assert_null(strstr(small.buf, "<details>"));
    assert_null(strstr(small.buf, "Truncated"));
    assert_non_null(strstr(small.buf, "Left out to fit GitHub's comment limit: Contract changes"));
    strbuf_free(&full);
    strbuf_free(&small);
    run_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inline),
                                       cmocka_unit_test(test_comment_keeps_error_sections)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
