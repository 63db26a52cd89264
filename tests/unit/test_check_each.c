/* check_each_input: a check's per-config work on worker threads gives the same
 * findings, in the same order, with any number of threads; a failure is the first
 * one in input order, with its own message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "checks/check.h"
#include "core/error.h"

#define N 40

/* input i appends i % 4 findings; inputs that are multiples of 7 sleep a little
 * so that later ones finish first on other threads */
static int work(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)ctx;
    int *fail_at = arg;
    int i = (int)(in - ctx->inputs);
    if (i % 7 == 0) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    for (int k = 0; k < i % 4; k++)
        findings_add(out, "t", SEV_INFO, in->module, NULL, (unsigned)i, (unsigned)k, NULL,
                     "input %d finding %d", i, k);
    if (fail_at && (i == fail_at[0] || i == fail_at[1]))
        return pgci_error_set(PGCI_EIO, "input %d failed", i);
    return 0;
}

static void run(int jobs, int *fail_at, findings *out, int *rc)
{
    static check_input inputs[N];
    static char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "m%d", i);
        inputs[i].module = names[i];
    }
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.inputs = inputs;
    ctx.n_inputs = N;
    ctx.jobs = jobs;
    *rc = check_each_input(&ctx, work, fail_at, out);
}

static void test_same_order_any_jobs(void **state)
{
    (void)state;
    findings one = FINDINGS_INIT;
    int rc;
    run(1, NULL, &one, &rc);
    assert_int_equal(rc, 0);
    /* sum of i % 4 over 0..39 */
    assert_int_equal(one.len, 60);
    size_t k = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i % 4; j++, k++) {
            char want[64];
            snprintf(want, sizeof(want), "input %d finding %d", i, j);
            assert_string_equal(one.items[k]->title, want);
        }
    for (int jobs = 2; jobs <= 16; jobs *= 2) {
        findings many = FINDINGS_INIT;
        run(jobs, NULL, &many, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(many.len, one.len);
        for (size_t i = 0; i < one.len; i++)
            assert_string_equal(many.items[i]->title, one.items[i]->title);
        findings_free(&many);
    }
    findings_free(&one);
}

static void test_first_failure_in_input_order(void **state)
{
    (void)state;
    int fail_at[2] = {33, 14}; /* 33 may fail first in time; 14 comes first in order */
    for (int jobs = 1; jobs <= 8; jobs *= 2) {
        findings fs = FINDINGS_INIT;
        int rc;
        run(jobs, fail_at, &fs, &rc);
        assert_int_equal(rc, PGCI_EIO);
        assert_string_equal(pgci_error_last(), "input 14 failed");
        assert_int_equal(fs.len, 60); /* the other inputs' findings are kept */
        pgci_error_clear();
        findings_free(&fs);
    }
}

static void test_no_inputs(void **state)
{
    (void)state;
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.jobs = 4;
    findings fs = FINDINGS_INIT;
    assert_int_equal(check_each_input(&ctx, work, NULL, &fs), 0);
    assert_int_equal(fs.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_order_any_jobs),
        cmocka_unit_test(test_first_failure_in_input_order),
        cmocka_unit_test(test_no_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
