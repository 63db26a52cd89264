/* Version strings the survey reads: tags (core/version.h) and the removal
 * versions deprecation messages announce (contracts_removal_version). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "checks/contracts.h"
#include "core/version.h"

static void expect_removal(const char *text, const char *want)
{
    char *got = contracts_removal_version(text, strlen(text));
    if (!want) {
        if (got)
            fail_msg("%s: expected no version, got %s", text, got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_removal_versions(void **state)
{
    (void)state;
    expect_removal("will be removed in v4.47. Use x instead", "4.47");
    expect_removal("@deprecate_kwarg(\"past_key_value\", version=\"4.58\")", "4.58");
    expect_removal("scheduled for removal in 5.0.0.", "5.0.0");
    expect_removal("This will be removed in 5.x", "5.x");
    expect_removal("it will be REMOVED IN V6.*, migrate", "6.*");
    expect_removal("will be removed in the future", NULL);
    expect_removal("removed in x.y", NULL);
    /* a sentence's full stop is not part of the version */
    expect_removal("removed in 4.50.", "4.50");
    /* a wildcard follows one dot after a number, nothing else (found by fuzz_versions) */
    expect_removal("will be removed in v4....x", "4");
}

static void expect_advice(const char *text, const char *name, const char *want)
{
    char *got = contracts_deprecation_advice(text, strlen(text), name);
    if (!want) {
        if (got)
            fail_msg("%s: expected no advice, got %s", text, got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* What a deprecation notice tells callers to do instead, quoted by the survey when
 * the definition is gone (transformers 5.16.1's notices, abridged) */
static void test_deprecation_advice(void **state)
{
    (void)state;
    static const char win[] =
        "    def get_window_index(self, grid_thw):\n"
        "        logger.warning_once(\n"
        "            f\"`{self.__class__.__name__}.get_window_index` is deprecated and will be "
        "removed in v5.11. Use `get_vision_window_index` from `transformers.vision_utils` "
        "instead.\",\n"
        "        )\n";
    expect_advice(win, "get_window_index",
                  "Use `get_vision_window_index` from `transformers.vision_utils` instead.");
    /* the notice must name the definition: a docstring's attribute is something else */
    static const char attr[] = "class Qwen3_5CausalLMOutputWithPast(CausalLMOutputWithPast):\n"
                               "    r\"\"\"\n"
                               "    rope_deltas (`torch.LongTensor`):\n"
                               "        The attribute is deprecated and will be removed in v5.20, "
                               "use `model.base_model.rope_deltas` instead.\n";
    expect_advice(attr, "Qwen3_5CausalLMOutputWithPast", NULL);
    /* a name within a longer one does not count */
    expect_advice("`x.get_window_index_v2` is deprecated. Use `y` instead.", "get_window_index",
                  NULL);
    expect_advice("get_window_index is deprecated. Please use `y` now", "get_window_index",
                  "Please use `y` now");
    /* no advice in the notice, or none after it on its line */
    expect_advice("`f` is deprecated and will be removed in v6.", "f", NULL);
    expect_advice("`f` is deprecated.\nUse `g` instead.", "f", NULL);
}

static void test_version_order(void **state)
{
    (void)state;
    assert_true(version_cmp("v4.57.0", "v5.0.0") < 0);
    assert_true(version_cmp("5.16.1", "5.9.0") > 0);
    assert_true(version_cmp("5", "5.0.0") == 0);
    assert_true(version_cmp("5.0.0rc1", "5.0.0") < 0);
    /* a wildcard series: "5.x" is the 5 series, reached by 5.0.0, not a
     * pre-release of it, and ahead of every 4.x */
    assert_true(version_cmp("5.x", "5.0.0") == 0);
    assert_true(version_cmp("5.x", "4.99.9") > 0);
    assert_true(version_cmp("6.*", "6.0") == 0);
}

static void test_sort(void **state)
{
    (void)state;
    char *tags[] = {"v5.10.0",    "main",       "v5.10.0rc10", "v5.9.0", "5.10.0rc2",
                    "v5.10.0rc2", "v5.10.0rc1", "v4.0",        "v4.0.0"};
    const char *want[] = {"main",       "v4.0",       "v4.0.0",      "v5.9.0", "5.10.0rc2",
                          "v5.10.0rc1", "v5.10.0rc2", "v5.10.0rc10", "v5.10.0"};
    version_sort(tags, sizeof(tags) / sizeof(tags[0]));
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
        assert_string_equal(tags[i], want[i]);
}

static void test_latest(void **state)
{
    (void)state;
    strvec tags = STRVEC_INIT;
    const char *const all[] = {"v5.16.0rc1", "v5.9.0", "nightly", "v5.16.1", "v5.10.0", "v4.57.1"};
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
        strvec_push(&tags, all[i]);
    char *t = version_latest(&tags, "v5.9.0");
    assert_string_equal(t, "v5.16.1");
    free(t);
    assert_null(version_latest(&tags, "v5.16.1"));
    t = version_latest(&tags, NULL);
    assert_string_equal(t, "v5.16.1");
    free(t);
    strvec_free(&tags);
    assert_true(version_is_release("v5.9.0"));
    assert_true(version_is_release("4.57"));
    assert_false(version_is_release("v5.16.0rc1"));
    assert_false(version_is_release("nightly"));
    assert_false(version_is_release("v"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_removal_versions), cmocka_unit_test(test_deprecation_advice),
        cmocka_unit_test(test_version_order),    cmocka_unit_test(test_sort),
        cmocka_unit_test(test_latest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
