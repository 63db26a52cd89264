/* Unit tests for kernels/toy.c: the HF config.json reader of the toy families,
 * its defaults, and the clear refusal of what the kernels do not implement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "kernels/toy.h"

static int parse(toy_config *c, const char *json)
{
    return toy_config_parse(c, json, strlen(json), "t/config.json");
}

static void test_fixtures(void **state)
{
    (void)state;
    toy_config c;
    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/qwen3_moe_tiny"), 0);
    assert_int_equal(c.family, TOY_QWEN3_MOE);
    assert_string_equal(c.name, "qwen3_moe_tiny");
    assert_int_equal(c.hidden, 64);
    assert_int_equal(c.head_dim, 16);
    assert_int_equal(c.kv_heads, 2);
    assert_int_equal(c.num_experts, 8);
    assert_int_equal(c.top_k, 2);
    assert_int_equal(c.moe_inter, 32);
    assert_int_equal(c.norm_topk_prob, 1);
    assert_true(c.qk_norm && !c.qkv_bias && !c.o_bias && !c.tie_embeddings);
    /* mlp_only_layers [1]: layers 0 and 2 sparse, 1 dense */
    assert_true(c.layer_is_moe[0] && !c.layer_is_moe[1] && c.layer_is_moe[2]);
    assert_true(c.rope_theta == 1000000.0);
    toy_config_free(&c);

    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/qwen2_tiny/config.json"), 0);
    assert_int_equal(c.family, TOY_QWEN2);
    assert_true(c.qkv_bias && !c.o_bias && !c.qk_norm && c.tie_embeddings);
    assert_int_equal(c.head_dim, 8); /* hidden / heads */
    toy_config_free(&c);

    /* rope_parameters (transformers v5) and attention_bias on llama */
    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/llama_tied_bias"), 0);
    assert_true(c.rope_theta == 500000.0);
    assert_true(c.qkv_bias && c.o_bias);
    assert_true(c.rms_eps == 1e-5);
    assert_true(c.init_range == 0.05);
    toy_config_free(&c);

    const char *fams[] = {"llama", "qwen2", "qwen3", "qwen3_moe"};
    for (int i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof(path), "fixtures/toy_config/full/%s", fams[i]);
        assert_int_equal(toy_config_load(&c, path), 0);
        assert_int_equal(c.hidden, 4096);
        assert_int_equal(c.vocab, 151936);
        assert_int_equal(c.layers, 2);
        assert_string_equal(toy_family_name(c.family), fams[i]);
        toy_config_free(&c);
    }
}

static void test_defaults(void **state)
{
    (void)state;
    toy_config c;
    assert_int_equal(parse(&c, "{\"model_type\":\"qwen3\",\"vocab_size\":10,\"hidden_size\":8,"
                               "\"intermediate_size\":4,\"num_hidden_layers\":1,"
                               "\"num_attention_heads\":2}"),
                     0);
    assert_int_equal(c.head_dim, 128); /* Qwen3Config's default */
    assert_int_equal(c.kv_heads, 2);
    assert_true(c.rms_eps == 1e-6 && c.rope_theta == 10000.0 && c.init_range == 0.02);
    toy_config_free(&c);
    assert_int_equal(parse(&c, "{\"model_type\":\"qwen3_moe\",\"vocab_size\":10,\"hidden_size\":8,"
                               "\"num_hidden_layers\":4,\"num_attention_heads\":2,\"head_dim\":4,"
                               "\"num_experts\":4,\"num_experts_per_tok\":2,"
                               "\"decoder_sparse_step\":2}"),
                     0);
    assert_true(!c.layer_is_moe[0] && c.layer_is_moe[1] && !c.layer_is_moe[2] && c.layer_is_moe[3]);
    assert_int_equal(c.norm_topk_prob, 0);
    toy_config_free(&c);
}

#define BASE "\"vocab_size\":10,\"hidden_size\":8,\"intermediate_size\":4,\"num_hidden_layers\":1,"
#define HEADS "\"num_attention_heads\":2"

static void expect_error(const char *json, int code, const char *needle)
{
    toy_config c;
    int rc = parse(&c, json);
    if (rc != code || !strstr(pgci_error_last(), needle))
        fail_msg("rc %d (want %d), message '%s' (want '%s')", rc, code, pgci_error_last(), needle);
    assert_non_null(strstr(pgci_error_last(), "t/config.json"));
}

static void test_refusals(void **state)
{
    (void)state;
    expect_error("{\"model_type\":\"llama\"," BASE HEADS ",\"partial_rotary_factor\":0.5}",
                 PGCI_EUNSUPPORTED, "partial rotary");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS
                 ",\"rope_parameters\":{\"rope_type\":\"default\",\"partial_rotary_factor\":0.25}}",
                 PGCI_EUNSUPPORTED, "partial rotary");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS
                 ",\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":8.0}}",
                 PGCI_EUNSUPPORTED, "rope_type 'llama3'");
    expect_error("{\"model_type\":\"gemma\"," BASE HEADS "}", PGCI_EUNSUPPORTED,
                 "model_type 'gemma'");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS ",\"hidden_act\":\"gelu\"}",
                 PGCI_EUNSUPPORTED, "hidden_act 'gelu'");
    expect_error("{\"model_type\":\"qwen2\"," BASE HEADS ",\"use_sliding_window\":true}",
                 PGCI_EUNSUPPORTED, "use_sliding_window");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS ",\"mlp_bias\":true}", PGCI_EUNSUPPORTED,
                 "mlp_bias");
    expect_error("{\"model_type\":\"llama\"," BASE "\"num_attention_heads\":3,"
                 "\"num_key_value_heads\":2,\"head_dim\":4}",
                 PGCI_EINVALID, "not a multiple");
    expect_error("{\"model_type\":\"llama\",\"hidden_size\":8,\"intermediate_size\":4,"
                 "\"num_hidden_layers\":1," HEADS "}",
                 PGCI_EINVALID, "'vocab_size' is missing");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS ",\"head_dim\":5}", PGCI_EINVALID,
                 "must be even");
    expect_error("{\"model_type\":\"llama\"," BASE "\"num_attention_heads\":\"2\"}", PGCI_EINVALID,
                 "must be an integer");
    expect_error("{\"model_type\":\"llama\"," BASE "\"num_attention_heads\":-2}", PGCI_EINVALID,
                 "out of range");
    expect_error("{\"model_type\":\"llama\"," BASE HEADS ",", PGCI_EINVALID, "invalid JSON");
    expect_error("{\"model_type\":\"qwen3_moe\"," BASE HEADS
                 ",\"num_experts\":2,\"num_experts_per_tok\":3}",
                 PGCI_EINVALID, "larger than num_experts");
    expect_error("[1]", PGCI_EINVALID, "must be a JSON object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
