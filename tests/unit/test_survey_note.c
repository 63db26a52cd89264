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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inline)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
