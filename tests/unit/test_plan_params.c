/*
 * test_plan_params.c - the pieces of the parallel plan's parameter walk that need
 * no survey: the key matcher against path patterns, as VeOmni's check_fqn_match
 * (re.escape, `*` -> `.*`, `^...$`) matches names, and what a value assigned to
 * `self.<attr>` holds (plan_value_kind): torch leaf modules by their constructor
 * call, data. The walk itself is proven through the survey in test_callees.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checks/plan_params.h"

/* A path pattern: `#` one index, `?` one segment. */
static int matches(const char *key, const char *pattern)
{
    char *p = pgci_strdup(pattern);
    for (char *q = p; *q; q++)
        *q = *q == '#' ? PLAN_PATH_INDEX : *q == '?' ? PLAN_PATH_SEGMENT : *q;
    int r = plan_key_matches(key, p);
    free(p);
    return r;
}

static void test_key_matches(void **state)
{
    (void)state;
    const char *k = "model.layers.*.mlp.experts.gate_up_proj";
    assert_true(matches(k, "model.layers.#.mlp.experts.gate_up_proj"));
    assert_true(matches(k, "model.layers.0.mlp.experts.gate_up_proj"));
    /* `*` spans dots: a block between the layer and its mlp */
    assert_true(matches(k, "model.layers.#.block.mlp.experts.gate_up_proj"));
    /* the whole name: nothing after, nothing before */
    assert_false(matches(k, "model.layers.#.mlp.experts.gate_up_proj.weight"));
    assert_false(matches(k, "x.model.layers.#.mlp.experts.gate_up_proj"));
    assert_false(matches(k, "model.layers.#.mlp.experts.gate_up_proj_bias"));
    assert_false(matches(k, "model.layers.#.mlp.routed.gate_up_proj"));
    /* the dots are literal (re.escape): `*` must sit between two of them */
    assert_false(matches(k, "model.layers.mlp.experts.gate_up_proj"));
    assert_false(matches(k, "model.layersX#.mlp.experts.gate_up_proj"));
    /* a literal index in the key against an index token: some index is that one */
    assert_true(matches("model.layers.12.mlp.w", "model.layers.#.mlp.w"));
    assert_false(matches("model.layers.1x.mlp.w", "model.layers.#.mlp.w"));
    /* `*` inside a segment, and an activation's parameter of any name */
    assert_true(matches("model.layers.*.mlp.act_fn.alpha_*", "model.layers.#.mlp.act_fn.?"));
    assert_true(matches("model.layers.*.alpha_p", "model.layers.#.mlp.act_fn.?"));
    assert_false(matches("model.layers.*.mlp.experts.w", "model.layers.#.mlp.act_fn.?"));
    assert_true(matches("*", "a.#.b"));
    assert_false(matches("a.*.c", "a.#.b"));
}

/* The value's kind, with the def header sig; the leaf's may and must bits. */
static plan_vkind kind_of(const char *v, const char *sig, plan_leaf *leaf)
{
    char *cls = NULL;
    plan_asgs prior = VEC_INIT;
    plan_asg a = {pgci_strdup("head_dim"), PLAN_V_DATA, NULL, 1, {0}};
    VEC_PUSH(&prior, a);
    memset(leaf, 0, sizeof(*leaf));
    plan_vkind k = plan_value_kind(v, sig, sig ? strlen(sig) : 0, &prior, &cls, leaf);
    free(cls);
    free(prior.items[0].attr);
    VEC_FREE(&prior);
    return k;
}

static void test_leaf_modules(void **state)
{
    (void)state;
    plan_leaf l;
    assert_int_equal(kind_of("nn.Linear(2, 2)", NULL, &l), PLAN_V_LEAF);
    assert_string_equal(l.cls, "nn.Linear");
    assert_true(plan_leaf_must(&l, "weight") && plan_leaf_must(&l, "bias"));
    assert_false(plan_leaf_may(&l, "gate_up_proj"));
    /* bias=False, by keyword or position: no bias at all */
    static const char *const off[] = {"nn.Linear(2, 2, bias=False)", "nn.Linear(2, 2, False)",
                                      "torch.nn.Linear(a, b, bias=False)"};
    for (size_t i = 0; i < sizeof(off) / sizeof(*off); i++) {
        assert_int_equal(kind_of(off[i], NULL, &l), PLAN_V_LEAF);
        assert_true(plan_leaf_must(&l, "weight"));
        assert_false(plan_leaf_may(&l, "bias"));
    }
    /* a bias the call does not fix: maybe */
    static const char *const maybe[] = {"nn.Linear(2, 2, bias=config.bias)",
                                        "nn.Linear(2, 2, **kwargs)", "nn.Linear(*args)"};
    for (size_t i = 0; i < sizeof(maybe) / sizeof(*maybe); i++) {
        assert_int_equal(kind_of(maybe[i], NULL, &l), PLAN_V_LEAF);
        assert_true(plan_leaf_may(&l, "bias"));
        assert_false(plan_leaf_must(&l, "bias"));
    }
    assert_int_equal(kind_of("nn.Embedding(10, 2, padding_idx)", NULL, &l), PLAN_V_LEAF);
    assert_true(plan_leaf_must(&l, "weight"));
    assert_false(plan_leaf_may(&l, "bias"));
    assert_int_equal(kind_of("nn.LayerNorm(4, eps=1e-6, bias=False)", NULL, &l), PLAN_V_LEAF);
    assert_true(plan_leaf_must(&l, "weight"));
    assert_false(plan_leaf_may(&l, "bias"));
    assert_int_equal(kind_of("nn.LayerNorm(4, elementwise_affine=False)", NULL, &l), PLAN_V_LEAF);
    assert_false(plan_leaf_may(&l, "weight") || plan_leaf_may(&l, "bias"));
    assert_int_equal(kind_of("nn.Conv1d(1, 2, 3, 1, 0, 1, 1, False)", NULL, &l), PLAN_V_LEAF);
    assert_false(plan_leaf_may(&l, "bias"));
    assert_int_equal(kind_of("nn.SiLU()", NULL, &l), PLAN_V_LEAF);
    assert_false(plan_leaf_may(&l, "weight"));
    /* an activation: its own parameters, any names (nn.PReLU's weight, xIELU's) */
    assert_int_equal(kind_of("ACT2FN[config.hidden_act]", NULL, &l), PLAN_V_LEAF);
    assert_true(plan_leaf_may(&l, "alpha_p"));
    assert_false(plan_leaf_must(&l, "alpha_p"));
    /* not a whole call of a known leaf: not a leaf */
    assert_int_equal(kind_of("nn.Linear(2, 2).to(x)", NULL, &l), PLAN_V_UNKNOWN);
    assert_int_equal(kind_of("nn.Sequential(nn.Linear(2, 2))", NULL, &l), PLAN_V_UNKNOWN);
    assert_int_equal(kind_of("nn.PReLU()", NULL, &l), PLAN_V_UNKNOWN);
}

static void test_data_values(void **state)
{
    (void)state;
    plan_leaf l;
    const char *sig = "def __init__(self, config, layer_idx: int, eps=1e-6, norm=None, "
                      "size: Optional[int] = None, block: Block = None)";
    static const char *const data[] = {
        "config.hidden_size",
        "config",
        "getattr(config, \"head_dim\", config.hidden_size // config.num_attention_heads)",
        "self.head_dim**-0.5",
        "self.config.rope_parameters[\"rope_type\"]",
        "True",
        "1",
        "-1",
        "layer_idx",
        "eps",
        "config.intermediate_size if size is None else size",
        "config.layer_types[layer_idx] if hasattr(config, \"layer_types\") else None",
        "{\"compressor\": None}",
        "[nn.Linear(2, 2) for _ in range(3)]", /* a plain list registers nothing */
        "nn.Buffer(torch.ones(3))",
        "f\"layer_{layer_idx}\"",
        "int(math.sqrt(config.x))",
    };
    for (size_t i = 0; i < sizeof(data) / sizeof(*data); i++) {
        if (kind_of(data[i], sig, &l) != PLAN_V_DATA)
            fprintf(stderr, "not data: %s\n", data[i]);
        assert_int_equal(kind_of(data[i], sig, &l), PLAN_V_DATA);
    }
    static const char *const unknown[] = {
        "norm",                          /* a parameter that may be a module */
        "block",                         /* annotated with a class */
        "self.mlp",                      /* an attribute that is not data */
        "getattr(self, \"mlp\")",        /* by name */
        "make_block(config)",            /* a factory: a class call, not data */
        "lambda x: x",                   /* not read */
        "sum(m for m in config.mods)",   /* a generator's names */
        "config.x or self.mlp",          /* an operand that may be a module */
        "torch.zeros(3)",                /* torch's, unread */
        "nn.ModuleList()",               /* empty, filled later */
        "AutoModel.from_config(config)", /* another module's class */
    };
    for (size_t i = 0; i < sizeof(unknown) / sizeof(*unknown); i++) {
        plan_vkind k = kind_of(unknown[i], sig, &l);
        if (k == PLAN_V_DATA || k == PLAN_V_LEAF)
            fprintf(stderr, "read as %d: %s\n", (int)k, unknown[i]);
        assert_true(k != PLAN_V_DATA && k != PLAN_V_LEAF);
    }
    /* without the def's header, a bare name is unknown */
    assert_int_equal(kind_of("eps", NULL, &l), PLAN_V_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_matches),
        cmocka_unit_test(test_leaf_modules),
        cmocka_unit_test(test_data_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
