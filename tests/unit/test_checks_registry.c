/* Unit tests for the check table (checks/registry.c): every row is whole, the
 * ids are unique, and the report order places each section exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "checks/checks.h"

static size_t rows(void)
{
    size_t n = 0;
    while (check_registry[n].def)
        n++;
    return n;
}

static void test_rows_are_whole(void **state)
{
    (void)state;
    size_t n = rows();
    assert_true(n > 10);
    for (size_t i = 0; i < n; i++) {
        const check_entry *e = &check_registry[i];
        assert_non_null(e->def->id);
        assert_non_null(e->def->summary);
        assert_non_null(e->title);
        /* a gate row runs, a survey row compares (or is reported by one that does),
         * a recorded row does neither */
        assert_true((e->def->run != NULL || e->def->each != NULL) == (e->where == CHECK_IN_GATE));
        /* a check is one pass or config by config, never both */
        assert_false(e->def->run && e->def->each);
        if (e->def->each)
            assert_non_null(e->def->each->one);
        if (e->where != CHECK_IN_SURVEY)
            assert_null(e->def->compare);
        assert_ptr_equal(check_find(e->def->id), e);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(check_registry[j].def->id, e->def->id);
    }
    assert_null(check_find("no-such-check"));
}

static void test_report_order_is_a_permutation(void **state)
{
    (void)state;
    size_t n = rows();
    for (size_t k = 0; k < n; k++) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++)
            hits += check_registry[i].report_order == (int)k;
        assert_int_equal(hits, 1);
    }
}

/* The gate's checks are the ones each check file defines, all of them. */
static void test_gate_rows(void **state)
{
    (void)state;
    const check_def *gate[] = {&check_drift,
                               &check_ruff_equivalence,
                               &check_diff_consistency,
                               &check_names,
                               &check_targets,
                               &check_protocol_registration,
                               &check_protocol_retired,
                               &check_protocol_comments,
                               &check_protocol_siblings,
                               &check_protocol_tests,
                               &check_protocol_import};
    size_t seen = 0;
    for (const check_entry *e = check_registry; e->def; e++)
        if (e->where == CHECK_IN_GATE)
            assert_ptr_equal(e->def, gate[seen++]);
    assert_int_equal(seen, sizeof(gate) / sizeof(gate[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_whole),
        cmocka_unit_test(test_report_order_is_a_permutation),
        cmocka_unit_test(test_gate_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
