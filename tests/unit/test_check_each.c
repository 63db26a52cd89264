/* check_each_input: a check's per-config work on worker threads gives the same
 * findings, in the same order, with any number of threads; a failure is the first
 * one in input order, with its own message. check_run_group: config-by-config
 * checks run together give each check's findings and status as run alone, and
 * the tree they share is dropped when its config is done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/check.h"
#include "core/error.h"
#include "py/parse_set.h"

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

/* Config-by-config checks for the group tests. "odd" finds the odd inputs, its
 * begin() can say it is not configured; "tree" reads each input's raw source
 * through the run's parse set and says it did not run when it saw no input. */
typedef struct probe {
    int not_configured;
    int fail_at; /* -1: none */
    atomic_int calls;
} probe;

static probe *current; /* the probe of the test running */

static int odd_begin(const check_ctx *ctx, void **arg, strbuf *why)
{
    (void)ctx;
    probe *p = current;
    if (p->not_configured) {
        strbuf_adds(why, "odd is off");
        return CHECK_NOT_CONFIGURED;
    }
    *arg = p;
    return CHECK_RAN;
}

static int odd_one(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    probe *p = arg;
    int i = (int)(in - ctx->inputs);
    atomic_fetch_add(&p->calls, 1);
    if (i % 7 == 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (i == p->fail_at)
        return pgci_error_set(PGCI_EIO, "odd failed on input %d", i);
    if (i % 2)
        findings_add(out, "odd", SEV_WARNING, in->module, NULL, (unsigned)i, 0, NULL, "odd %d", i);
    return 0;
}

static int tree_one(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)arg;
    if (!in->raw)
        return 0;
    py_tree t;
    if (py_parse_set_get(ctx->parses, in->raw, in->raw_len, in->module, &t) < 0)
        return PGCI_ERROR;
    findings_add(out, "tree", SEV_INFO, in->module, NULL, 0, 0, NULL, "%s has %u statements",
                 in->module, ts_node_named_child_count(py_root(&t)));
    py_parse_set_release(&t);
    return 0;
}

static int tree_end(const check_ctx *ctx, void *arg, strbuf *why)
{
    (void)arg;
    if (!ctx->n_inputs || !ctx->inputs[0].raw) {
        strbuf_adds(why, "nothing to read");
        return CHECK_NOT_RUN;
    }
    return CHECK_RAN;
}

static const check_each_def odd_each = {.begin = odd_begin, .one = odd_one};
static const check_each_def tree_each = {.one = tree_one, .end = tree_end};
static const check_def check_odd = {.id = "odd", .summary = "odd inputs", .each = &odd_each};
static const check_def check_tree = {.id = "tree", .summary = "statements", .each = &tree_each};
/* the same tree check again: in a group, it reads the tree the first one made */
static const check_def check_tree2 = {.id = "tree2", .summary = "again", .each = &tree_each};

static check_input group_inputs[N];
static char group_names[N][16], group_src[N][64];

static check_ctx group_ctx(probe *p, int jobs, int with_raw, py_parse_set *set)
{
    current = p;
    for (int i = 0; i < N; i++) {
        snprintf(group_names[i], sizeof(group_names[i]), "m%d", i);
        snprintf(group_src[i], sizeof(group_src[i]), "x = %d\n%s", i, i % 3 ? "y = x\n" : "");
        group_inputs[i].module = group_names[i];
        group_inputs[i].raw = with_raw ? group_src[i] : NULL;
        group_inputs[i].raw_len = with_raw ? strlen(group_src[i]) : 0;
    }
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.inputs = group_inputs;
    ctx.n_inputs = N;
    ctx.jobs = jobs;
    ctx.parses = set;
    return ctx;
}

static char *titles(const findings *fs)
{
    strbuf b = STRBUF_INIT;
    for (size_t i = 0; i < fs->len; i++)
        strbuf_addf(&b, "%s\n", fs->items[i]->title);
    return strbuf_detach(&b, NULL);
}

static void test_group_is_each_check_alone(void **state)
{
    (void)state;
    const check_def *defs[] = {&check_odd, &check_tree, &check_tree2};
    probe p = {.fail_at = -1};
    /* each check alone, one thread */
    char *alone[3];
    for (int c = 0; c < 3; c++) {
        py_parse_set *set = py_parse_set_new();
        check_ctx ctx = group_ctx(&p, 1, 1, set);
        findings fs = FINDINGS_INIT;
        strbuf why = STRBUF_INIT;
        assert_int_equal(check_run(defs[c], &ctx, &fs, &why), CHECK_RAN);
        assert_int_equal(why.len, 0);
        alone[c] = titles(&fs);
        findings_free(&fs);
        strbuf_free(&why);
        py_parse_set_free(set);
    }
    assert_non_null(strstr(alone[0], "odd 39\n"));
    assert_null(strstr(alone[0], "odd 38\n"));
    assert_non_null(strstr(alone[1], "m1 has 2 statements\n"));
    assert_non_null(strstr(alone[1], "m3 has 1 statements\n"));
    for (int jobs = 1; jobs <= 16; jobs *= 2) {
        py_parse_set *set = py_parse_set_new();
        check_ctx ctx = group_ctx(&p, jobs, 1, set);
        check_outcome o[3];
        check_run_group(&ctx, defs, 3, o);
        for (int c = 0; c < 3; c++) {
            assert_int_equal(o[c].status, CHECK_RAN);
            char *got = titles(&o[c].fs);
            assert_string_equal(got, alone[c]);
            free(got);
            check_outcome_free(&o[c]);
        }
        /* one parse per input, read again by tree2 on the same worker */
        size_t parses, reused;
        py_parse_set_counts(set, &parses, &reused);
        assert_int_equal(parses, N);
        assert_int_equal(reused, N);
        /* and dropped when the input was done: a new request parses again */
        py_tree t;
        assert_int_equal(py_parse_set_get(set, group_src[5], strlen(group_src[5]), "m5", &t), 0);
        py_parse_set_release(&t);
        py_parse_set_counts(set, &parses, &reused);
        assert_int_equal(parses, N + 1);
        py_parse_set_free(set);
    }
    for (int c = 0; c < 3; c++)
        free(alone[c]);
}

static void test_group_statuses(void **state)
{
    (void)state;
    const check_def *defs[] = {&check_odd, &check_tree};
    /* begin() says not configured: one() never called, the reason kept; end()
     * says not run when there was nothing to read */
    probe off = {.not_configured = 1, .fail_at = -1};
    check_ctx ctx = group_ctx(&off, 4, 0, NULL);
    check_outcome o[2];
    check_run_group(&ctx, defs, 2, o);
    assert_int_equal(o[0].status, CHECK_NOT_CONFIGURED);
    assert_string_equal(o[0].why.buf, "odd is off");
    assert_int_equal(atomic_load(&off.calls), 0);
    assert_int_equal(o[1].status, CHECK_NOT_RUN);
    assert_string_equal(o[1].why.buf, "nothing to read");
    for (int c = 0; c < 2; c++) {
        assert_int_equal(o[c].fs.len, 0);
        check_outcome_free(&o[c]);
    }
    /* a failure: the check's status and message, its other findings kept, the
     * other check unaffected */
    for (int jobs = 1; jobs <= 8; jobs *= 2) {
        probe p = {.fail_at = 21};
        py_parse_set *set = py_parse_set_new();
        ctx = group_ctx(&p, jobs, 1, set);
        check_run_group(&ctx, defs, 2, o);
        assert_int_equal(o[0].status, PGCI_EIO);
        assert_string_equal(o[0].why.buf, "odd failed on input 21");
        assert_int_equal(o[0].fs.len, N / 2 - 1);
        assert_int_equal(atomic_load(&p.calls), N);
        assert_int_equal(o[1].status, CHECK_RAN);
        assert_int_equal(o[1].fs.len, N);
        /* alone, the same failure is the check's error */
        findings fs = FINDINGS_INIT;
        strbuf why = STRBUF_INIT;
        assert_int_equal(check_run(&check_odd, &ctx, &fs, &why), PGCI_EIO);
        assert_string_equal(pgci_error_last(), "odd failed on input 21");
        pgci_error_clear();
        findings_free(&fs);
        strbuf_free(&why);
        for (int c = 0; c < 2; c++)
            check_outcome_free(&o[c]);
        py_parse_set_free(set);
    }
}

/* The order a group's workers take the configs in: the first config of each
 * upstream module, then the second of each, and so on, each level in the
 * configs' order; a config without an upstream module is a first. (The forests
 * of configs regenerated from one module share what they parse when made one
 * after the other.) The findings stay in the configs' order. */
static int order_seen[8];
static atomic_int order_n;

static int order_one(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)arg;
    int i = (int)(in - ctx->inputs);
    order_seen[atomic_fetch_add(&order_n, 1)] = i;
    findings_add(out, "order", SEV_INFO, in->module, NULL, (unsigned)i, 0, NULL, "input %d", i);
    return 0;
}

static void test_group_order(void **state)
{
    (void)state;
    static const check_each_def order_each = {.one = order_one};
    static const check_def check_order = {.id = "order", .summary = "order", .each = &order_each};
    const check_def *defs[] = {&check_order};
    static char a2[] = "module a";
    /* A, A (the same buffer), B, A (the same bytes elsewhere), C, none, B, A */
    const char *up[] = {"module a", NULL, "module b", a2, "module c", NULL, "module b", a2};
    check_input in[8];
    char names[8][16];
    memset(in, 0, sizeof(in));
    for (int i = 0; i < 8; i++) {
        snprintf(names[i], sizeof(names[i]), "m%d", i);
        in[i].module = names[i];
        in[i].upstream = i == 1 ? up[0] : up[i];
        in[i].upstream_len = in[i].upstream ? strlen(in[i].upstream) : 0;
    }
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.inputs = in;
    ctx.n_inputs = 8;
    ctx.jobs = 1;
    atomic_store(&order_n, 0);
    check_outcome o;
    check_run_group(&ctx, defs, 1, &o);
    const int want[] = {0, 2, 4, 5, 1, 6, 3, 7};
    assert_int_equal(atomic_load(&order_n), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(order_seen[i], want[i]);
    assert_int_equal(o.fs.len, 8);
    for (size_t i = 0; i < o.fs.len; i++)
        assert_int_equal(o.fs.items[i]->line, i);
    check_outcome_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_order_any_jobs),
        cmocka_unit_test(test_first_failure_in_input_order),
        cmocka_unit_test(test_no_inputs),
        cmocka_unit_test(test_group_is_each_check_alone),
        cmocka_unit_test(test_group_statuses),
        cmocka_unit_test(test_group_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
