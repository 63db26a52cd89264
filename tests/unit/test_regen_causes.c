/*
 * A regeneration's failure read as keys (checks/regen_causes.h), on messages of
 * the shapes pgci writes: ruff's full output after "exited with status 1: ", cut
 * or not, and the code generator's. The messages are written here in those
 * shapes, the names those of veomni's Qwen3.5 configs at 5.20.2 -> 5.24.0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "checks/regen_causes.h"

#define RUFF_HEAD                                                                                  \
    "m/q/q_gpu_patch_gen_config.py: ruff normalisation failed: '/x/ruff check --fix --quiet "      \
    "--no-cache --ignore E402,B007 <tmp>/patched_q_gpu.py' exited with status 1: "

static const char fn_only[] =
    RUFF_HEAD "F811 Redefinition of unused `causal_conv1d_fn` from line 124\n"
              "   --> <tmp>/patched_q_gpu.py:435:5\n"
              "    |\n"
              "434 | @use_kernel_func_from_hub(\"causal_conv1d_fn\")\n"
              "    |\n"
              "help: Remove definition: `causal_conv1d_fn`";

/* the same at another tag, its lines moved, and a second redefinition */
static const char fn_and_update[] =
    RUFF_HEAD "F811 Redefinition of unused `causal_conv1d_update` from line 127\n"
              "   --> <tmp>/patched_q_gpu.py:415:5\n"
              "    |\n"
              "F811 Redefinition of unused `causal_conv1d_fn` from line 126\n"
              "   --> <tmp>/patched_q_gpu.py:440:5\n"
              "... (33 more lines of ruff output)";

static const char positioned[] =
    "m/q/q_gpu_patch_gen_config.py: /abs/m/q/q_gpu_patch_gen_config.py: positioned helper "
    "target(s) not found in generated output: Qwen3_5CausalLMOutputWithPast, Qwen3_5Foo "
    "(add_helper_after needs a top-level class or function of transformers.models.q.modeling_q)";

static const char positioned_one[] =
    "m/q/q_gpu_patch_gen_config.py: /abs/m/q/q_gpu_patch_gen_config.py: positioned helper "
    "target(s) not found in generated output: Qwen3_5Foo (add_helper_after needs a top-level "
    "class or function of transformers.models.q.modeling_q)";

static void test_keys(void **state)
{
    (void)state;
    regen_causes c;
    regen_causes_read(&c, fn_and_update);
    assert_int_equal(c.stage, REGEN_STAGE_RUFF);
    assert_true(c.cut);
    assert_int_equal(c.keys.len, 2);
    assert_string_equal(c.keys.items[0],
                        "F811 Redefinition of unused `causal_conv1d_update` from line #");
    assert_string_equal(c.keys.items[1],
                        "F811 Redefinition of unused `causal_conv1d_fn` from line #");
    regen_causes_free(&c);
    /* a name with digits keeps them; the list is one key a target */
    regen_causes_read(&c, positioned);
    assert_int_equal(c.stage, REGEN_STAGE_CODEGEN);
    assert_false(c.cut);
    assert_int_equal(c.keys.len, 2);
    assert_string_equal(c.keys.items[0],
                        "positioned helper target not found: Qwen3_5CausalLMOutputWithPast");
    assert_string_equal(c.keys.items[1], "positioned helper target not found: Qwen3_5Foo");
    regen_causes_free(&c);
    /* ruff that cannot parse the file: its first line */
    regen_causes_read(&c, RUFF_HEAD "error: Failed to parse <tmp>/patched_q_gpu.py:12:5: "
                                    "Expected an expression\n");
    assert_int_equal(c.keys.len, 1);
    assert_string_equal(
        c.keys.items[0],
        "error: Failed to parse <tmp>/patched_q_gpu.py:#:#: Expected an expression");
    regen_causes_free(&c);
    regen_causes_read(&c, NULL);
    assert_int_equal(c.keys.len, 0);
    regen_causes_free(&c);
}

/* what b adds to a, or that a cannot tell */
static int added(const char *a, const char *b, strvec *fresh)
{
    regen_causes ca, cb;
    regen_causes_read(&ca, a);
    regen_causes_read(&cb, b);
    strvec_free(fresh);
    int r = regen_causes_new(&ca, &cb, fresh);
    regen_causes_free(&ca);
    regen_causes_free(&cb);
    return r;
}

static void test_new(void **state)
{
    (void)state;
    strvec fresh = STRVEC_INIT;
    /* A whole, B with one more: that one (the line moved: the same cause) */
    assert_int_equal(added(fn_only, fn_and_update, &fresh), 1);
    assert_int_equal(fresh.len, 1);
    assert_string_equal(fresh.items[0],
                        "F811 Redefinition of unused `causal_conv1d_update` from line #");
    /* A cut short: what B adds may be past A's cut, so nothing can be told */
    assert_int_equal(added(fn_and_update, fn_only, &fresh), 0);
    /* B's code generator stops before ruff, where A's passed it: its cause is new */
    assert_int_equal(added(fn_and_update, positioned, &fresh), 1);
    assert_int_equal(fresh.len, 2);
    /* A's code generator stopped first: B's ruff failure may have been there, unseen */
    assert_int_equal(added(positioned, fn_only, &fresh), 0);
    /* one anchor of two gone at A, both at B: the other is new; fewer at B: none */
    assert_int_equal(added(positioned_one, positioned, &fresh), 1);
    assert_int_equal(fresh.len, 1);
    assert_string_equal(fresh.items[0],
                        "positioned helper target not found: Qwen3_5CausalLMOutputWithPast");
    assert_int_equal(added(positioned, positioned_one, &fresh), 1);
    assert_int_equal(fresh.len, 0);
    strvec_free(&fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
