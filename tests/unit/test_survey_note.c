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

/* Sets the detail of every finding of change id to det. */
static void set_details(run_doc *d, const char *id, const char *det)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(d->root, "findings"), i, f)
    {
        const char *c = json_string_value(json_object_get(json_object_get(f, "data"), "change"));
        if (c && !strcmp(c, id))
            json_object_set_new(f, "detail", json_string(det));
    }
}

static size_t occurrences(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        k++;
    return k;
}

/* A detail every finding of a change shares is shown once: before the folded
 * list, or only in "What changed" when the section shows it there. */
static void test_shared_detail_once(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    static const char diff[] = "--- a\n+++ b\n@@ -1 +1 @@\n-old_line_of_upstream\n"
                               "+new_line_of_upstream\n";
    set_details(&d, "body-forcausallm-forward", diff);
    set_details(&d, "name-optional", "evidence shared by every finding");
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_int_equal(occurrences(md.buf, "+new_line_of_upstream"), 1);
    const char *sec = strstr(md.buf, "body changed under");
    assert_non_null(sec);
    assert_non_null(strstr(md.buf, "The same for each:"));
    /* the error's "What changed" shows it; the list does not repeat it */
    assert_int_equal(occurrences(md.buf, "evidence shared by every finding"), 1);
    const char *what = strstr(md.buf, "What changed:\n\n```\nevidence shared by every finding");
    assert_non_null(what);
    strbuf_free(&md);
    /* one finding's detail differs: each keeps its own */
    json_t *f = NULL;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(d.root, "findings"), i, it)
    {
        const char *c = json_string_value(json_object_get(json_object_get(it, "data"), "change"));
        if (c && !strcmp(c, "body-forcausallm-forward"))
            f = it;
    }
    assert_non_null(f);
    json_object_set_new(f, "detail", json_string("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"));
    report_markdown(&md, &d);
    assert_int_equal(occurrences(md.buf, "+new_line_of_upstream"), 3);
    strbuf_free(&md);
    run_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inline),
                                       cmocka_unit_test(test_comment_keeps_error_sections),
                                       cmocka_unit_test(test_shared_detail_once)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
