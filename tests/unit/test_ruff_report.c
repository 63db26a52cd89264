/* Unit tests for src/patchgen/normalize_report: a batched `ruff check`'s text
 * report cut into each file's part, in ruff's full, concise, grouped and pylint
 * formats; what it refuses to cut (text before the first diagnostic, a file's
 * path inside another file's part, a path under the batch's directory that is
 * none of its files, an arrow line with something after ROW:COL). The reports are
 * shaped as ruff 0.13 prints them; tests/e2e/ruff_batch.sh and test_gate_ruff
 * check the cut against real ruff runs, file by file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/normalize_internal.h"

#define DIR "/tmp/pgci-ruff-Ab12"
#define NFILES 12

/* The batch's files: DIR/<k>/m<k>.py, twelve of them (so that DIR/1 is a prefix
 * of DIR/10's path). */
static void files_init(strvec *files)
{
    for (int k = 0; k < NFILES; k++)
        strvec_push_owned(files, pgci_asprintf(DIR "/%d/m%d.py", k, k));
}

typedef struct cut {
    strvec files;
    strbuf parts[NFILES];
    long n;
} cut;

static void cut_run(cut *c, const char *report)
{
    memset(c, 0, sizeof(*c));
    files_init(&c->files);
    for (int k = 0; k < NFILES; k++)
        strbuf_init(&c->parts[k], 0);
    c->n = normalize_report_split(report, strlen(report), DIR, &c->files, c->parts);
}

static void cut_free(cut *c)
{
    for (int k = 0; k < NFILES; k++)
        strbuf_free(&c->parts[k]);
    strvec_free(&c->files);
}

static const char *part(cut *c, int k)
{
    return c->parts[k].len ? c->parts[k].buf : "";
}

/* full: a header line, then the arrow line naming the file; files 1 and 10 */
#define FULL_1_A                                                                                   \
    "F821 Undefined name `y`\n"                                                                    \
    " --> " DIR "/1/m1.py:1:5\n"                                                                   \
    "  |\n"                                                                                        \
    "1 | x = y\n"                                                                                  \
    "  |     ^\n"                                                                                  \
    "  |\n"                                                                                        \
    "\n"
#define FULL_1_B                                                                                   \
    "invalid-syntax: Expected an expression\n"                                                     \
    "  --> " DIR "/1/m1.py:12:9\n"                                                                 \
    "   |\n"                                                                                       \
    "12 | z = (\n"                                                                                 \
    "   |        ^\n"                                                                              \
    "   |\n"                                                                                       \
    "\n"
#define FULL_10                                                                                    \
    "F821 Undefined name `w`\n"                                                                    \
    "    --> " DIR "/10/m10.py:3094:20\n"                                                          \
    "     |\n"                                                                                     \
    "3094 |     a: Optional[int] = None,\n"                                                        \
    "     |        ^^^^^^^^\n"                                                                     \
    "     |\n"                                                                                     \
    "help: Consider importing it\n"                                                                \
    "\n"

static void test_full(void **state)
{
    (void)state;
    cut c;
    /* ruff orders the files its own way: 10 before 1 */
    cut_run(&c, FULL_10 FULL_1_A FULL_1_B);
    assert_int_equal(c.n, 2);
    assert_string_equal(part(&c, 1), FULL_1_A FULL_1_B);
    assert_string_equal(part(&c, 10), FULL_10);
    assert_string_equal(part(&c, 0), "");
    cut_free(&c);
    /* no newline at the end */
    cut_run(&c, "F821 Undefined name `y`\n --> " DIR "/0/m0.py:1:5");
    assert_int_equal(c.n, 1);
    assert_string_equal(part(&c, 0), "F821 Undefined name `y`\n --> " DIR "/0/m0.py:1:5");
    cut_free(&c);
}

static void test_concise_grouped_pylint(void **state)
{
    (void)state;
    cut c;
    const char *concise =
        DIR "/10/m10.py:1:5: F821 Undefined name `y`\n" DIR
            "/10/m10.py:2:5: F821 Undefined name `w`\n" DIR "/2/m2.py:1:1: E902 No such file\n";
    cut_run(&c, concise);
    assert_int_equal(c.n, 2);
    assert_string_equal(part(&c, 10), DIR "/10/m10.py:1:5: F821 Undefined name `y`\n" DIR
                                          "/10/m10.py:2:5: F821 Undefined name `w`\n");
    assert_string_equal(part(&c, 2), DIR "/2/m2.py:1:1: E902 No such file\n");
    cut_free(&c);
    const char *grouped = DIR "/3/m3.py:\n  1:5 F821 Undefined name `y`\n  12:5 F821 Undefined "
                              "name `w`\n\n" DIR "/11/m11.py:\n  1:5 F821 Undefined name `r`\n\n";
    cut_run(&c, grouped);
    assert_int_equal(c.n, 2);
    assert_string_equal(part(&c, 3), DIR "/3/m3.py:\n  1:5 F821 Undefined name `y`\n  12:5 F821 "
                                         "Undefined name `w`\n\n");
    assert_string_equal(part(&c, 11), DIR "/11/m11.py:\n  1:5 F821 Undefined name `r`\n\n");
    cut_free(&c);
    cut_run(&c, DIR "/4/m4.py:1: [F821] Undefined name `y`\n");
    assert_int_equal(c.n, 1);
    assert_string_equal(part(&c, 4), DIR "/4/m4.py:1: [F821] Undefined name `y`\n");
    cut_free(&c);
}

static void test_nothing(void **state)
{
    (void)state;
    cut c;
    cut_run(&c, "");
    assert_int_equal(c.n, 0);
    cut_free(&c);
    cut_run(&c, "\n  \n");
    assert_int_equal(c.n, 0);
    cut_free(&c);
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        /* text before the first diagnostic */
        "warning: something about the configuration\n" FULL_1_A,
        /* github's format: no line starts a part */
        "::error title=Ruff (F821),file=" DIR "/1/m1.py,line=1::m1.py:1:5: F821\n",
        /* file 2's path inside file 1's part */
        FULL_1_A "note: see also " DIR "/2/m2.py\n",
        /* ... in a line that starts a part (found by the fuzz target) */
        DIR "/10/m10.py:1:5: F821 Undefine" DIR "/6/m6.py:d name\n",
        "F821 Undefined name `y`\n --> " DIR "/1/m1.py:1:5\n" DIR "/2/m2.py",
        /* a path under DIR that is none of the files */
        FULL_1_A "F821 Undefined name `q`\n --> " DIR "/12/m12.py:1:1\n",
        DIR "/1/other.py:1:5: F821 Undefined name `y`\n",
        DIR "/01/m1.py:1:5: F821 Undefined name `y`\n",
        /* an arrow line with more after ROW:COL, or without a column */
        "F821 Undefined name `y`\n --> " DIR "/1/m1.py:1:5 extra\n",
        "F821 Undefined name `y`\n --> " DIR "/1/m1.py:1\n",
        /* a file's path not followed by ':' at a line's start */
        DIR "/1/m1.py is broken\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cut c;
        cut_run(&c, bad[i]);
        if (c.n != -1)
            fail_msg("cut, not refused: %s", bad[i]);
        cut_free(&c);
    }
}

/* A refusal's message cut at its budget lists the diagnostics past the cut the kept
 * lines do not show, each once (normalize.h): what failed is all in the message. */
static void ruff_refusal(strbuf *out, const char *last, int n_last)
{
    strbuf_reset(out);
    for (int i = 0; i < 20; i++)
        strbuf_addf(out,
                    "F821 Undefined name `Optional`\n   --> /t/x.py:%d:20\n    |\n%d |     a: "
                    "Optional[int] = None,\n    |                    ^^^^^^^^\n    |\n\n",
                    100 + i, 100 + i);
    for (int i = 0; i < n_last; i++)
        strbuf_addf(out, "%s%s%d`\n   --> /t/x.py:%d:1\n    |\n\n", last, i ? "_" : "", i, 900 + i);
}

static void test_refusal_cut(void **state)
{
    (void)state;
    const char *argv[] = {"ruff", "check", "--fix", "/t/x.py", NULL};
    strbuf rep = STRBUF_INIT;
    ruff_refusal(&rep, "F821 Undefined name `logger", 2);
    normalize_ruff_failed(argv, "/t", 1, "", 0, rep.buf, rep.len);
    const char *m = pgci_error_last();
    assert_non_null(strstr(m, " more lines of ruff output; the other diagnostics there:)\n"
                              "F821 Undefined name `logger0`\n"
                              "F821 Undefined name `logger_1`"));
    assert_null(strstr(strstr(m, "diagnostics there"), "Optional"));
    assert_null(strstr(m, "(and more)"));
    /* nothing past the cut that the kept lines do not show */
    ruff_refusal(&rep, "", 0);
    normalize_ruff_failed(argv, "/t", 1, "", 0, rep.buf, rep.len);
    m = pgci_error_last();
    assert_non_null(strstr(m, " more lines of ruff output, no other diagnostic among them)"));
    /* more than the list's budget: it says so */
    ruff_refusal(&rep, "F821 Undefined name `a_long_name_that_a_patch_body_reads_and_nothing_binds",
                 40);
    normalize_ruff_failed(argv, "/t", 1, "", 0, rep.buf, rep.len);
    m = pgci_error_last();
    assert_non_null(strstr(m, "nothing_binds0`\n"));
    assert_non_null(strstr(m, "\n... (and more)"));
    assert_true(strlen(m) < 2600);
    /* the concise format's lines read from the rule on */
    const char *l = "/t/x.py:3:5: F821 Undefined name `x`";
    assert_ptr_equal(normalize_ruff_diagnostic(l, l + strlen(l)), strstr(l, "F821"));
    l = "  3 | F821 is no diagnostic";
    assert_null(normalize_ruff_diagnostic(l, l + strlen(l)));
    strbuf_free(&rep);
    pgci_error_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),        cmocka_unit_test(test_concise_grouped_pylint),
        cmocka_unit_test(test_nothing),     cmocka_unit_test(test_refused),
        cmocka_unit_test(test_refusal_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
