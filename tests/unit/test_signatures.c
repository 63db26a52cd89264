/* The signature survey on the fixture tags v1.0.0 -> v1.1.0, whose every change is
 * listed in fixtures/upstream/DRIFT.md: each patch below targets one drifted (or
 * one unchanged) definition, and the findings must be exactly those changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/contracts.h"
#include "checks/signatures.h"
#include "checks/survey_compare.h"
#include "core/fs.h"

static strbuf last_src[2];
/* the findings' details after their lines, for the next survey, when a test sets it */
static int with_detail;
/* transformers.utils.auto_docstring at B for the next survey, when a test sets it */
static const index_module *docs_a, *docs_b;

static index_module *load(const char *tag, const char *model)
{
    strbuf p = STRBUF_INIT, src = STRBUF_INIT;
    strbuf_addf(&p, "fixtures/upstream/%s/transformers/models/%s/modeling_%s.py", tag, model,
                model);
    assert_int_equal(fs_read_file(&src, p.buf, 0), 0);
    index_module *m;
    assert_int_equal(index_module_from_source(&m, src.buf, src.len, p.buf, model), 0);
    strbuf_free(&p);
    int side = strcmp(tag, "v1.0.0") != 0;
    strbuf_free(&last_src[side]);
    last_src[side] = src;
    return m;
}

/* The file that registers the next survey's patches (NULL: none recorded). */
static const char *reg_file;

/* Runs the survey for one patch between two indexed modules (the sources in
 * last_src); returns the findings as "severity kind: title" lines. */
static char *survey_patches(index_module *a, index_module *b, const pg_patch *patches, size_t n)
{
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.source_module = "transformers.models.x";
    for (size_t i = 0; i < n; i++) {
        pg_patch patch = patches[i];
        patch.reg_line = 7;
        patch.reg_file = reg_file;
        VEC_PUSH(&cfg.patches, patch);
    }
    survey_pair p = {.config = "cfg",
                     .config_path = "cfg.py",
                     .cfg = &cfg,
                     .a = a,
                     .b = b,
                     .tag_a = "v1.0.0",
                     .tag_b = "v1.1.0",
                     .src_b = last_src[1].buf,
                     .src_b_len = last_src[1].len,
                     .src_a = last_src[0].buf,
                     .src_a_len = last_src[0].len};
    p.docs_a = docs_a;
    p.docs_b = docs_b;
    findings fs = FINDINGS_INIT;
    signatures_compare(&fs, &p);
    strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < fs.len; i++) {
        const char *kind = json_string_value(json_object_get(fs.items[i]->data, "kind"));
        strbuf_addf(&out, "%s %s: %s\n", severity_name(fs.items[i]->sev), kind, fs.items[i]->title);
        if (with_detail && fs.items[i]->detail)
            strbuf_adds(&out, fs.items[i]->detail);
        assert_int_equal(fs.items[i]->line, 7);
        assert_string_equal(fs.items[i]->path, reg_file ? reg_file : "cfg.py");
    }
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
    index_module_free(a);
    index_module_free(b);
    return strbuf_detach(&out, NULL);
}

static char *survey_modules(index_module *a, index_module *b, pg_patch_type type,
                            const char *target, const pg_object *replacement)
{
    pg_patch patch = {.type = type, .target = target, .replacement = replacement};
    return survey_patches(a, b, &patch, 1);
}

/* The same for one model of the fixture tags. */
static char *survey(const char *model, pg_patch_type type, const char *target,
                    const pg_object *replacement)
{
    index_module *a = load("v1.0.0", model), *b = load("v1.1.0", model);
    return survey_modules(a, b, type, target, replacement);
}

/* Indexes two sources written here into m[0], m[1] (kept in last_src). */
static void load_text(const char *src_a, const char *src_b, index_module **m)
{
    const char *src[2] = {src_a, src_b};
    for (int i = 0; i < 2; i++) {
        strbuf_free(&last_src[i]);
        strbuf_adds(&last_src[i], src[i]);
        assert_int_equal(
            index_module_from_source(&m[i], last_src[i].buf, last_src[i].len, "m.py", "m"), 0);
    }
}

/* The same for two sources written here. */
static char *survey_text(const char *src_a, const char *src_b, pg_patch_type type,
                         const char *target, const pg_object *replacement)
{
    index_module *m[2];
    load_text(src_a, src_b, m);
    return survey_modules(m[0], m[1], type, target, replacement);
}

static void expect(const char *model, pg_patch_type type, const char *target,
                   const pg_object *replacement, const char *want)
{
    char *got = survey(model, type, target, replacement);
    if (strcmp(got, want))
        fprintf(stderr, "survey of %s:\n--- got\n%s--- want\n%s", target, got, want);
    assert_string_equal(got, want);
    free(got);
}

static void test_unchanged_target_reports_nothing(void **state)
{
    (void)state;
    expect("llama", PG_METHOD_OVERRIDE, "LlamaModel.forward", NULL, "");
    expect("qwen3_moe", PG_FUNCTION_REPLACEMENT, "rotate_half", NULL, "");
}

/* Optional[X] -> X | None across qwen3 is one type spelt two ways: no finding
 * (the dropped `Optional` import is reported where a patch uses it). */
static void test_pep604_is_not_a_change(void **state)
{
    (void)state;
    expect("qwen3", PG_METHOD_OVERRIDE, "Qwen3Model.forward", NULL, "");
    expect("qwen3", PG_METHOD_OVERRIDE, "Qwen3Attention.forward", NULL, "");
}

/* self.gate -> self.router: both assigned `Qwen3MoeRouter(config)`, the evidence
 * that makes it a rename (names alone would not). */
static void test_init_attr_rename_needs_evidence(void **state)
{
    (void)state;
    char *got = survey("qwen3_moe", PG_METHOD_OVERRIDE, "Qwen3MoeSparseMoeBlock.forward", NULL);
    assert_non_null(strstr(got, "warning init-attr-renamed: `Qwen3MoeSparseMoeBlock.__init__`: "
                                "`self.gate` renamed to `self.router`\n"));
    free(got);
}

/* LlamaMLP.forward changed only by the rename of self.act_fn: one fact, the
 * rename (with its action); no body finding beside it. A body changed by a rename
 * and by something else still is one. */
static void test_body_change_that_is_only_a_rename(void **state)
{
    (void)state;
    expect("llama", PG_METHOD_OVERRIDE, "LlamaMLP.forward", NULL,
           "warning init-attr-renamed: `LlamaMLP.__init__`: `self.act_fn` renamed to "
           "`self.activation_fn`\n");
    static const char a[] = "class Norm:\n"
                            "    def __init__(self, eps):\n"
                            "        self.eps = eps\n"
                            "        self.myself = 1\n"
                            "    def forward(self, x):\n"
                            "        return x + self.eps + self.myself.eps\n";
    static const char b_rename[] = "class Norm:\n"
                                   "    def __init__(self, eps):\n"
                                   "        self.variance_epsilon = eps\n"
                                   "        self.myself = 1\n"
                                   "    def forward(self, x):\n"
                                   "        return x + self.variance_epsilon + self.myself.eps\n";
    static const char b_more[] = "class Norm:\n"
                                 "    def __init__(self, eps):\n"
                                 "        self.variance_epsilon = eps\n"
                                 "        self.myself = 1\n"
                                 "    def forward(self, x):\n"
                                 "        return x - self.variance_epsilon + self.myself.eps\n";
    static const char rename[] = "warning init-attr-renamed: `Norm.__init__`: `self.eps` renamed "
                                 "to `self.variance_epsilon`\n";
    char *got = survey_text(a, b_rename, PG_METHOD_OVERRIDE, "Norm.forward", NULL);
    assert_string_equal(got, rename);
    free(got);
    got = survey_text(a, b_more, PG_METHOD_OVERRIDE, "Norm.forward", NULL);
    assert_non_null(strstr(got, rename));
    assert_non_null(
        strstr(got, "warning body-changed: `Norm.forward`: the upstream body changed "));
    free(got);
    /* `myself.eps` is not `self.eps`: renaming it too is not b_rename */
    static const char b_wrong[] =
        "class Norm:\n"
        "    def __init__(self, eps):\n"
        "        self.variance_epsilon = eps\n"
        "        self.myself = 1\n"
        "    def forward(self, x):\n"
        "        return x + self.variance_epsilon + self.myself.variance_epsilon\n";
    got = survey_text(a, b_wrong, PG_METHOD_OVERRIDE, "Norm.forward", NULL);
    assert_non_null(strstr(got, "warning body-changed: `Norm.forward`"));
    free(got);
}

/* A body whose only change is that it stopped passing a dropped parameter on
 * (`cache_position=cache_position,`, transformers 5.9.0's `*ForCausalLM.forward`) is
 * that parameter's removal: one finding; one whose only change is a renamed
 * parameter's new name is the rename. A line doing more with it is a change. */
static void test_body_change_that_is_only_params(void **state)
{
    (void)state;
    static const char a[] = "class LM:\n"
                            "    def forward(self, x, cache_position=None, **kwargs):\n"
                            "        out = self.model(\n"
                            "            x,\n"
                            "            cache_position=cache_position,\n"
                            "            **kwargs,\n"
                            "        )\n"
                            "        return out\n";
    static const char b[] = "class LM:\n"
                            "    def forward(self, x, **kwargs):\n"
                            "        out = self.model(\n"
                            "            x,\n"
                            "            **kwargs,\n"
                            "        )\n"
                            "        return out\n";
    static const char removed[] = "warning param-removed: `LM.forward`: parameter "
                                  "`cache_position` removed (v1.0.0 → v1.1.0)\n";
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "LM.forward", NULL);
    assert_string_equal(got, removed);
    free(got);
    /* A computed a default from it: B lost that step too, a body change */
    static const char a_more[] = "class LM:\n"
                                 "    def forward(self, x, cache_position=None, **kwargs):\n"
                                 "        cache_position = cache_position or 0\n"
                                 "        out = self.model(\n"
                                 "            x,\n"
                                 "            cache_position=cache_position,\n"
                                 "            **kwargs,\n"
                                 "        )\n"
                                 "        return out\n";
    got = survey_text(a_more, b, PG_METHOD_OVERRIDE, "LM.forward", NULL);
    assert_non_null(strstr(got, removed));
    assert_non_null(strstr(got, "warning body-changed: `LM.forward`"));
    free(got);
    /* a kept parameter no longer passed on is a change as well */
    static const char b_kept[] = "class LM:\n"
                                 "    def forward(self, x, cache_position=None, **kwargs):\n"
                                 "        out = self.model(\n"
                                 "            x,\n"
                                 "            **kwargs,\n"
                                 "        )\n"
                                 "        return out\n";
    got = survey_text(a, b_kept, PG_METHOD_OVERRIDE, "LM.forward", NULL);
    assert_non_null(strstr(got, "warning body-changed: `LM.forward`"));
    free(got);
    /* renamed behind the shim (transformers 5.24.0's `past_key_values` → `cache`):
     * the names follow, an attribute of the same name does not */
    static const char r_a[] = "class LM:\n"
                              "    def forward(self, x, past_key_values=None):\n"
                              "        out = self.model(x, past_key_values=past_key_values)\n"
                              "        return out.past_key_values\n";
    static const char r_b[] =
        "class LM:\n"
        "    @deprecate_kwarg(\"past_key_values\", \"9.0\", new_name=\"cache\")\n"
        "    def forward(self, x, cache=None):\n"
        "        out = self.model(x, cache=cache)\n"
        "        return out.past_key_values\n";
    static const char r_attr[] =
        "class LM:\n"
        "    @deprecate_kwarg(\"past_key_values\", \"9.0\", new_name=\"cache\")\n"
        "    def forward(self, x, cache=None):\n"
        "        out = self.model(x, cache=cache)\n"
        "        return out.cache\n";
    got = survey_text(r_a, r_b, PG_METHOD_OVERRIDE, "LM.forward", NULL);
    assert_non_null(strstr(got, "warning param-renamed: `LM.forward`"));
    assert_null(strstr(got, "body-changed"));
    free(got);
    got = survey_text(r_a, r_attr, PG_METHOD_OVERRIDE, "LM.forward", NULL);
    assert_non_null(strstr(got, "warning body-changed: `LM.forward`"));
    free(got);
}

/* A temporary folded into the statement after it (transformers 5.24.0's Qwen2-VL
 * `get_image_features`), or split out of one: the body says the same, no
 * finding. Folded where it moves a call past another call, or beside a real
 * change, it is a body change. */
static void test_body_change_that_is_only_a_temporary(void **state)
{
    (void)state;
    static const char a[] = "class VL:\n"
                            "    def feats(self, x, sizes):\n"
                            "        out = self.visual(x)\n"
                            "        embeds = torch.split(out.pooled, sizes)\n"
                            "        out.pooled = embeds\n"
                            "        return out\n";
    static const char b[] = "class VL:\n"
                            "    def feats(self, x, sizes):\n"
                            "        out = self.visual(x)\n"
                            "        out.pooled = torch.split(out.pooled, sizes)\n"
                            "        return out\n";
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "VL.feats", NULL);
    assert_string_equal(got, "");
    free(got);
    got = survey_text(b, a, PG_METHOD_OVERRIDE, "VL.feats", NULL);
    assert_string_equal(got, "");
    free(got);
    static const char b_order[] =
        "class VL:\n"
        "    def feats(self, x, sizes):\n"
        "        out = self.visual(x)\n"
        "        out.pooled = join(self.prep(), torch.split(out.pooled, sizes))\n"
        "        return out\n";
    static const char a_order[] = "class VL:\n"
                                  "    def feats(self, x, sizes):\n"
                                  "        out = self.visual(x)\n"
                                  "        embeds = torch.split(out.pooled, sizes)\n"
                                  "        out.pooled = join(self.prep(), embeds)\n"
                                  "        return out\n";
    got = survey_text(a_order, b_order, PG_METHOD_OVERRIDE, "VL.feats", NULL);
    assert_non_null(strstr(got, "warning body-changed: `VL.feats`"));
    free(got);
    static const char b_more[] = "class VL:\n"
                                 "    def feats(self, x, sizes):\n"
                                 "        out = self.visual(x)\n"
                                 "        out.pooled = torch.split(out.pooled, sizes, dim=1)\n"
                                 "        return out\n";
    got = survey_text(a, b_more, PG_METHOD_OVERRIDE, "VL.feats", NULL);
    assert_non_null(strstr(got, "warning body-changed: `VL.feats`"));
    free(got);
}

static void test_config_added_target_filtered(void **state)
{
    (void)state;
    expect("llama", PG_METHOD_OVERRIDE, "LlamaMLP.fused_forward", NULL, "");
    expect("llama", PG_FUNCTION_REPLACEMENT, "not_upstream_anywhere", NULL, "");
}

/* The body's only change is the parameter's new name (`past_key_value.update(...)`
 * → `past_key_values.update(...)`): the rename is the one fact, no body change. */
static void test_param_renamed_and_decorator(void **state)
{
    (void)state;
    expect("llama", PG_METHOD_OVERRIDE, "LlamaAttention.forward", NULL,
           "warning param-renamed: `LlamaAttention.forward`: parameter `past_key_value` renamed to "
           "`past_key_values` (v1.0.0 → v1.1.0); `@deprecate_kwarg` keeps `past_key_value` working "
           "until 1.2.0\n");
}

/* Only the docstring changed (its `position_ids` line went with the parameter):
 * that is not a body change. */
static void test_param_added_and_removed(void **state)
{
    (void)state;
    expect("llama", PG_FUNCTION_REPLACEMENT, "apply_rotary_pos_emb", NULL,
           "warning param-removed: `apply_rotary_pos_emb`: parameter `position_ids` removed "
           "(v1.0.0 → v1.1.0)\n");
}

static void test_class_renamed_candidate(void **state)
{
    (void)state;
    char *got = survey("qwen3", PG_CLASS_REPLACEMENT, "Qwen3MLP", NULL);
    assert_non_null(strstr(got, "error vanished: `Qwen3MLP` vanished upstream between v1.0.0 and "
                                "v1.1.0; most likely successor: `Qwen3FeedForward`\n"));
    free(got);
}

static void test_reordered(void **state)
{
    (void)state;
    char *got = survey("qwen3_moe", PG_METHOD_OVERRIDE, "Qwen3MoeExperts.forward", NULL);
    assert_non_null(strstr(got, "error param-reordered: `Qwen3MoeExperts.forward`: parameters "
                                "reordered: (self, hidden_states, routing_weights, "
                                "selected_experts) → (self, hidden_states, selected_experts, "
                                "routing_weights)\n"));
    free(got);
}

/* A patch registered in another file (VeOmni's NPU configs import the GPU
 * config's PatchConfig and extend it) is reported at its line in that file: the
 * NPU config's path with the GPU file's line pointed past the end of a 55-line
 * file for 149 findings of the corpus. */
static void test_finding_in_registering_file(void **state)
{
    (void)state;
    reg_file = "m/qwen3_moe_gpu_patch_gen_config.py";
    char *got = survey("qwen3_moe", PG_METHOD_OVERRIDE, "Qwen3MoeExperts.forward", NULL);
    reg_file = NULL;
    assert_non_null(strstr(got, "error param-reordered: "));
    free(got);
}

static void test_default_changed(void **state)
{
    (void)state;
    char *got = survey("qwen3_moe", PG_FUNCTION_REPLACEMENT, "load_balancing_loss_func", NULL);
    assert_non_null(strstr(got, "warning param-default-changed: `load_balancing_loss_func`: "
                                "default of `top_k` changed: 2 → 1\n"));
    free(got);
}

/* The override `name` that makes up the whole of a config's three-line source. */
static pg_object cfg_def(const char *name, const char *src)
{
    return (pg_object){.name = name,
                       .module = "cfg",
                       .file = "/x/cfg.py",
                       .text = src,
                       .start_line = 1,
                       .end_line = 3,
                       .text_len = strlen(src)};
}

static void test_init_attr_renamed_used_by_patch(void **state)
{
    (void)state;
    static const char cfg_src[] = "@config.override_method(\"LlamaMLP.forward\")\n"
                                  "def mlp_forward(self, x):\n"
                                  "    return self.down_proj(self.act_fn(self.gate_proj(x)) * "
                                  "self.up_proj(x))\n";
    pg_object o = cfg_def("mlp_forward", cfg_src);
    char *got = survey("llama", PG_METHOD_OVERRIDE, "LlamaMLP.forward", &o);
    assert_non_null(strstr(got, "error init-attr-renamed: `LlamaMLP.__init__`: `self.act_fn` "
                                "renamed to `self.activation_fn` and the patch still uses it\n"));
    free(got);
}

/* An `__init__` attribute that moved into a submodule the class now builds: 5.22.2
 * split `Qwen2_5OmniThinkerForConditionalGeneration` into itself and a
 * `Qwen2_5OmniThinkerModel` in `self.model`, which sets `self.audio_tower` to what
 * the thinker set it to. The finding names the new place (the patch's mechanical
 * action) and stays an error. Only with evidence: the holder built from the
 * `__init__`'s own config, which the new class's `__init__` takes under the same
 * name, and the very value; else it is "no longer set". */
static void test_init_attr_moved_into_submodule(void **state)
{
    (void)state;
    static const char a[] = "class Enc:\n    pass\n\n\nclass Text:\n    pass\n\n\n"
                            "class Thinker:\n"
                            "    def __init__(self, config):\n"
                            "        self.audio_tower = Enc._from_config(config.audio_config)\n"
                            "        self.visual = Enc(config.vision_config)\n"
                            "        self.rope_deltas = None\n"
                            "        self.model = Text(config.text_config)\n\n"
                            "    def forward(self, x):\n"
                            "        return self.model(x)\n";
    static const char b[] = "class Enc:\n    pass\n\n\nclass Text:\n    pass\n\n\n"
                            "class ThinkerModel:\n"
                            "    def __init__(self, config):\n"
                            "        self.audio_tower = Enc._from_config(config.audio_config)\n"
                            "        self.visual = Enc(config)\n"
                            "        self.language_model = Text(config.text_config)\n\n\n"
                            "class Other:\n"
                            "    def __init__(self, cfg):\n"
                            "        self.rope_deltas = None\n\n\n"
                            "class Thinker:\n"
                            "    def __init__(self, config):\n"
                            "        self.model = ThinkerModel(config)\n"
                            "        self.other = Other(config)\n\n"
                            "    def forward(self, x):\n"
                            "        return self.model(x)\n";
    static const char cfg_src[] = "@config.override_method(\"Thinker.forward\")\n"
                                  "def forward(self, x):\n"
                                  "    return self.audio_tower(x) + self.visual(x) + "
                                  "self.rope_deltas\n";
    pg_object o = cfg_def("forward", cfg_src);
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "Thinker.forward", &o);
    assert_non_null(strstr(got, "error init-attr-removed: `Thinker.__init__`: `self.audio_tower` "
                                "moved to `self.model.audio_tower` (a `ThinkerModel`) and the "
                                "patch still uses it\n"));
    /* another value, or another name for the config: no evidence */
    assert_non_null(strstr(got, "error init-attr-removed: `Thinker.__init__`: `self.visual` no "
                                "longer set and the patch still uses it\n"));
    assert_non_null(strstr(got, "error init-attr-removed: `Thinker.__init__`: `self.rope_deltas` "
                                "no longer set and the patch still uses it\n"));
    free(got);
}

/* A replaced function is the config's source: a decorator upstream dropped does not
 * reach the generated code unless the replacement carries it (then a warning, as
 * for an override, which keeps upstream's decorators); one upstream added stays a
 * warning (the replacement may want it). */
static void test_decorator_dropped_under_a_replacement(void **state)
{
    (void)state;
    static const char a[] = "@hub_kernel(\"rope\")\n"
                            "@functools.cache\n"
                            "def rope(x):\n"
                            "    return x\n";
    static const char b[] = "@new_hub(\"rope\")\n"
                            "@trace\n"
                            "def rope(x):\n"
                            "    return x\n";
    static const char plain[] = "def my_rope(x):\n    return -x\n";
    static const char carries[] = "@hub_kernel(\"rope\")\ndef my_rope(x):\n    return -x\n";
    pg_object o = cfg_def("my_rope", plain);
    char *got = survey_text(a, b, PG_FUNCTION_REPLACEMENT, "rope", &o);
    /* a decorator dropped for another name with the same arguments is one change */
    assert_string_equal(got, "info decorator-changed: `rope`: decorator changed: "
                             "`@hub_kernel(\"rope\")` → `@new_hub(\"rope\")` (the replacement "
                             "does not carry it)\n"
                             "warning decorator-added: `rope`: decorator `@trace` added\n"
                             "info decorator-removed: `rope`: decorator `@functools.cache` removed "
                             "(the replacement does not carry it)\n");
    free(got);
    o = cfg_def("my_rope", carries);
    got = survey_text(a, b, PG_FUNCTION_REPLACEMENT, "rope", &o);
    assert_non_null(strstr(got, "warning decorator-changed: `rope`: decorator changed: "
                                "`@hub_kernel(\"rope\")` → `@new_hub(\"rope\")`\n"));
    assert_non_null(strstr(got, "info decorator-removed: `rope`: decorator `@functools.cache`"));
    free(got);
    /* an override keeps upstream's decorators: every change is a warning */
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "rope", NULL);
    assert_null(strstr(got, "info "));
    assert_non_null(strstr(got, "warning decorator-removed: `rope`: decorator `@functools.cache` "
                                "removed\n"));
    free(got);
}

/* A replaced class's methods are compared name by name and, where a name is
 * defined twice (a property's getter and setter), rank by rank: the setter is not
 * compared with the getter. The fuzzer found it: the class surveyed against itself
 * reported the setter's `value` removed and the getter's parameters added. A
 * setter dropped upstream is a method removed, one added a method added. */
static void test_replaced_class_property_setter(void **state)
{
    (void)state;
    static const char a[] = "class Cache:\n"
                            "    @property\n"
                            "    def size(self):\n"
                            "        return self._size\n"
                            "\n"
                            "    @size.setter\n"
                            "    def size(self, value):\n"
                            "        self._size = value\n";
    static const char b[] = "class Cache:\n"
                            "    @property\n"
                            "    def size(self):\n"
                            "        return self._size\n";
    char *got = survey_text(a, a, PG_CLASS_REPLACEMENT, "Cache", NULL);
    assert_string_equal(got, "");
    free(got);
    got = survey_text(a, b, PG_CLASS_REPLACEMENT, "Cache", NULL);
    assert_string_equal(got, "warning method-removed: `Cache.size`: method removed from the "
                             "replaced class\n");
    free(got);
    got = survey_text(b, a, PG_CLASS_REPLACEMENT, "Cache", NULL);
    assert_string_equal(got, "warning method-added: `Cache.size`: method added upstream; the "
                             "replacement class does not have it unless it defines it\n");
    free(got);
}

/* A class attribute assigned twice in the class body holds the later value: a
 * class surveyed against itself says nothing of it (fuzz_signatures found the
 * first assignment compared with the second), and only the last value is compared
 * across tags. */
static void test_class_attr_assigned_twice(void **state)
{
    (void)state;
    static const char a[] = "class Cfg:\n"
                            "    size = 1\n"
                            "    size = 2\n"
                            "    name = 'a'\n";
    static const char b[] = "class Cfg:\n"
                            "    size = 2\n"
                            "    name = 'a'\n"
                            "    name = 'b'\n";
    char *got = survey_text(a, a, PG_CLASS_REPLACEMENT, "Cfg", NULL);
    assert_string_equal(got, "");
    free(got);
    got = survey_text(a, b, PG_CLASS_REPLACEMENT, "Cfg", NULL);
    assert_string_equal(got, "warning class-attr-changed: `Cfg`: class attribute `name` changed: "
                             "'a' → 'b'\n");
    free(got);
}

/* A class attribute's value compares as Python reads it, not as it is laid out:
 * a list wrapped one element a line with a trailing comma, or quoted the other
 * way, is the same value (the wording of 5.16.1's GptOss change showed upstream's
 * text joined: `["a", "b", "c",]`); a value changed still is. */
static void test_class_attr_layout(void **state)
{
    (void)state;
    static const char a[] = "class Cfg:\n"
                            "    modules = [\"Layer\", \"Block\"]\n"
                            "    impls = ['fa3', 'fa4']\n";
    static const char b[] = "class Cfg:\n"
                            "    modules = [\n"
                            "        \"Layer\",\n"
                            "        \"Block\",\n"
                            "    ]\n"
                            "    impls = [\n"
                            "        \"fa3\",\n"
                            "        \"fa4\",\n"
                            "        \"metal\",\n"
                            "    ]\n";
    char *got = survey_text(a, b, PG_CLASS_REPLACEMENT, "Cfg", NULL);
    assert_string_equal(got, "warning class-attr-changed: `Cfg`: class attribute `impls` changed: "
                             "['fa3', 'fa4'] → [\"fa3\", \"fa4\", \"metal\",]\n");
    free(got);
}

/* @auto_docstring documents an argument by name from auto_docstring.py's *Args
 * classes (transformers 5.24.0 prints "[ERROR] `cache_position` is part of ...'s
 * signature, but not documented" and nothing for `output_attentions`, which
 * ModelArgs has): only an argument neither the override's docstring nor those
 * classes document is missing, and only one that was not missing at A. */
static void test_auto_docstring_common_args(void **state)
{
    (void)state;
    static const char a_plain[] = "class M:\n"
                                  "    def forward(self, x, cache_position=None):\n"
                                  "        return x\n";
    static const char a[] = "class M:\n"
                            "    @auto_docstring\n"
                            "    def forward(self, x, cache_position=None):\n"
                            "        return x\n";
    static const char b[] = "class M:\n"
                            "    @auto_docstring\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char override[] =
        "def fwd(self, x, cache_position=None, output_attentions=None, rope_deltas=None):\n"
        "    r\"\"\"\n"
        "    rope_deltas (`torch.Tensor`, *optional*):\n"
        "        the deltas.\n"
        "    \"\"\"\n"
        "    return x\n";
    static const char docs_at_a[] = "class ModelArgs:\n"
                                    "    output_attentions = {\"description\": \"...\"}\n"
                                    "    cache_position = {\"description\": \"...\"}\n";
    static const char docs_at_b[] = "class ModelArgs:\n"
                                    "    output_attentions = {\"description\": \"...\"}\n"
                                    "    cache = {\"description\": \"...\"}\n"
                                    "\n"
                                    "class ModelOutputArgs:\n"
                                    "    last_hidden_state = {}\n";
    pg_object o = cfg_def("fwd", override);
    o.end_line = 6;
    /* @auto_docstring at B only: both are the bump's, and they are what the
     * decorator does to the override (no decorator-added finding beside them) */
    char *got = survey_text(a_plain, b, PG_METHOD_OVERRIDE, "M.forward", &o);
    assert_non_null(strstr(got, "`M.forward` is @auto_docstring upstream; the override adds "
                                "`cache_position`, `output_attentions`, missing"));
    assert_null(strstr(got, "decorator"));
    free(got);
    /* at both tags, no tables: the generated method printed both errors at A as
     * well, standing facts */
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "M.forward", &o);
    assert_null(strstr(got, "auto_docstring"));
    free(got);
    /* ModelArgs documents `output_attentions` at both and `cache_position` at A only
     * (transformers 5.2.0 → 5.9.0): that one is the bump's, and the table says why */
    index_module *da, *db;
    assert_int_equal(index_module_from_source(&da, docs_at_a, strlen(docs_at_a),
                                              "auto_docstring.py",
                                              "transformers.utils.auto_docstring"),
                     0);
    assert_int_equal(index_module_from_source(&db, docs_at_b, strlen(docs_at_b),
                                              "auto_docstring.py",
                                              "transformers.utils.auto_docstring"),
                     0);
    docs_a = da;
    docs_b = db;
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "M.forward", &o);
    assert_non_null(strstr(got,
                           "\nwarning auto-docstring: `M.forward` is @auto_docstring upstream; "
                           "auto_docstring.py's `ModelArgs` no longer documents "
                           "`cache_position`, which the override takes and its docstring "
                           "leaves out\n"));
    free(got);
    /* the same tables at both tags: nothing changed */
    docs_a = db;
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "M.forward", &o);
    assert_null(strstr(got, "auto_docstring"));
    free(got);
    docs_a = docs_b = NULL;
    index_module_free(da);
    index_module_free(db);
    /* @auto_docstring on the class documents its __init__, not its methods */
    static const char b_class[] = "@auto_docstring\n"
                                  "class M:\n"
                                  "    def forward(self, x):\n"
                                  "        return x\n";
    got = survey_text(a_plain, b_class, PG_METHOD_OVERRIDE, "M.forward", &o);
    assert_null(strstr(got, "auto_docstring"));
    free(got);
}

/* The generated method carries the override's docstring, not upstream's: what
 * upstream's own docstring documented is undocumented when the override's leaves it
 * out (5.9.0's vision blocks: `cu_seqlens`, `rotary_pos_emb`), and what upstream
 * documents nowhere either is upstream's own error. */
static void test_auto_docstring_replaced(void **state)
{
    (void)state;
    static const char a[] =
        "class Block:\n"
        "    def forward(self, h, cu_seqlens, rotary_pos_emb=None, extra=None):\n"
        "        return h\n";
    static const char b[] =
        "class Block:\n"
        "    @auto_docstring\n"
        "    def forward(self, h, cu_seqlens, rotary_pos_emb=None, extra=None):\n"
        "        r\"\"\"\n"
        "        cu_seqlens (`torch.Tensor`):\n"
        "            Cumulative lengths.\n"
        "        rotary_pos_emb (`torch.Tensor`, *optional*):\n"
        "            Rotary embeddings.\n"
        "        \"\"\"\n"
        "        return h\n";
    static const char override[] =
        "def fwd(self, h, cu_seqlens, max_seqlen, rotary_pos_emb=None, extra=None):\n"
        "    return h\n";
    pg_object o = cfg_def("fwd", override);
    o.end_line = 2;
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "Block.forward", &o);
    assert_non_null(strstr(got, "`Block.forward` is @auto_docstring upstream; the override adds "
                                "`max_seqlen`, missing from its docstring's Args:, and its "
                                "docstring, which replaces upstream's, leaves out `cu_seqlens`, "
                                "`rotary_pos_emb`\n"));
    free(got);
    /* an override documenting them says nothing */
    static const char documented[] =
        "def fwd(self, h, cu_seqlens, max_seqlen, rotary_pos_emb=None):\n"
        "    r\"\"\"\n"
        "    cu_seqlens (`torch.Tensor`): lengths.\n"
        "    max_seqlen (`int`): the longest.\n"
        "    rotary_pos_emb (`torch.Tensor`): rotary.\n"
        "    \"\"\"\n"
        "    return h\n";
    o = cfg_def("fwd", documented);
    o.end_line = 7;
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "Block.forward", &o);
    assert_null(strstr(got, "auto-docstring"));
    assert_null(strstr(got, "@auto_docstring upstream"));
    free(got);
}

static void test_removed_import_used_by_patch(void **state)
{
    (void)state;
    static const char cfg_src[] = "@config.override_method(\"Qwen3Attention.forward\")\n"
                                  "def attn_forward(self, x, mask: Optional[int] = None):\n"
                                  "    return x\n";
    pg_object o = cfg_def("attn_forward", cfg_src);
    char *got = survey("qwen3", PG_METHOD_OVERRIDE, "Qwen3Attention.forward", &o);
    assert_non_null(strstr(got, "error import-removed: `Qwen3Attention.forward` uses `Optional`, "
                                "which upstream no longer imports at v1.1.0\n"));
    free(got);
}

/* A method override whose method upstream dropped is appended to the class
 * (PATCHGEN_SPEC §3): when another override of the config, of a method upstream
 * still has, calls it through `self`, the patch still runs, and the removal is a
 * warning that says so, not "silently dropped" (5.16.1 -> 5.18.0: the Qwen3-VL
 * configs' `fast_pos_embed_interpolate` and `rot_pos_emb`, called by their own
 * `*VisionModel.forward`; 5.12.1 -> 5.14.1: the NPU configs' own
 * `*TextModel.forward` calls `_update_linear_attn_mask`). A call written in a
 * comment or a string is none; nor does a caller help once the class is gone. */
static void test_vanished_method_still_called(void **state)
{
    (void)state;
    static const char a[] = "class Vision(nn.Module):\n"
                            "    def rot_pos_emb(self, grid):\n"
                            "        return grid * 2\n\n"
                            "    def forward(self, x):\n"
                            "        return x + self.rot_pos_emb(x)\n";
    static const char b[] = "class Vision(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x + get_ids(x)\n";
    static const char gone[] = "class Other(nn.Module):\n"
                               "    def forward(self, x):\n"
                               "        return x\n";
    static const char rot[] = "@config.override_method(\"Vision.rot_pos_emb\")\n"
                              "def rot(self, grid):\n"
                              "    return grid * 3\n";
    static const char calls[] = "@config.override_method(\"Vision.forward\")\n"
                                "def fwd(self, x):\n"
                                "    return x + self.rot_pos_emb(x)\n";
    static const char mentions[] = "@config.override_method(\"Vision.forward\")\n"
                                   "def fwd(self, x):\n"
                                   "    return x + get_ids(x)  # was self.rot_pos_emb(x)\n";
    pg_object o_rot = cfg_def("rot", rot), o_calls = cfg_def("fwd", calls),
              o_mentions = cfg_def("fwd", mentions);
    pg_patch ps[2] = {
        {.type = PG_METHOD_OVERRIDE, .target = "Vision.rot_pos_emb", .replacement = &o_rot},
        {.type = PG_METHOD_OVERRIDE, .target = "Vision.forward", .replacement = &o_calls}};
    index_module *m[2];
    load_text(a, b, m);
    char *got = survey_patches(m[0], m[1], ps, 2);
    assert_non_null(strstr(got, "warning vanished-called: `Vision.rot_pos_emb` vanished upstream "
                                "between v1.0.0 and v1.1.0; patchgen appends the override to "
                                "`Vision`, where the config's `Vision.forward` still calls it\n"));
    assert_null(strstr(got, "error vanished"));
    free(got);
    /* the override of forward mentions it in a comment only */
    ps[1].replacement = &o_mentions;
    load_text(a, b, m);
    got = survey_patches(m[0], m[1], ps, 2);
    assert_non_null(strstr(got, "error vanished: `Vision.rot_pos_emb` vanished upstream"));
    free(got);
    /* the class went: the override lands nowhere */
    ps[1].replacement = &o_calls;
    load_text(a, gone, m);
    got = survey_patches(m[0], m[1], ps, 2);
    assert_non_null(strstr(got, "error vanished: `Vision.rot_pos_emb` vanished upstream"));
    free(got);
}

/* `@use_kernel_forward_from_hub` put on a class whose `forward` the config
 * overrides: with `use_kernels=True` kernels' kernelize replaces that forward by the
 * hub layer, the override with it (5.12.1 -> 5.14.1: `Qwen3_5GatedDeltaNet`). An
 * override of another method of the class is no one's concern. */
/* Upstream changed a method's body under a replaced class: 5.18.0 wrote every
 * `*Experts.forward` `one_hot(top_k_index, num_classes=self.num_experts + 1)` (the
 * expert-parallel sentinel index no longer crashes `one_hot`), which ten VeOmni
 * configs replacing those classes still wrote without `+ 1`; a replaced class's
 * methods were compared by signature only, and the survey said nothing. One
 * warning for the class, its methods' diffs the detail, with which of them the
 * replacement defines. What the override's body change leaves quiet stays quiet:
 * a docstring (the class's or a method's), class attributes (their own finding),
 * a parameter dropped and the line that passed it on (its own finding). */
static void test_replaced_class_body_changed(void **state)
{
    (void)state;
    static const char a[] = "class Experts(nn.Module):\n"
                            "    \"\"\"The experts.\"\"\"\n"
                            "    top_k = 2\n"
                            "\n"
                            "    def __init__(self, config):\n"
                            "        super().__init__()\n"
                            "        self.num_experts = config.num_experts\n"
                            "\n"
                            "    def route(self, x, cache_position=None):\n"
                            "        return self.inner(\n"
                            "            x,\n"
                            "            cache_position=cache_position,\n"
                            "        )\n"
                            "\n"
                            "    def scale(self, x):\n"
                            "        \"\"\"Scales.\"\"\"\n"
                            "        return x * 2\n"
                            "\n"
                            "    def forward(self, hidden, top_k_index):\n"
                            "        \"\"\"Runs the experts.\"\"\"\n"
                            "        mask = one_hot(top_k_index, num_classes=self.num_experts)\n"
                            "        return mask\n";
    static const char b[] =
        "class Experts(nn.Module):\n"
        "    \"\"\"The experts, as 3D tensors.\"\"\"\n"
        "    top_k = 4\n"
        "\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.num_experts = config.num_experts\n"
        "\n"
        "    def route(self, x):\n"
        "        return self.inner(\n"
        "            x,\n"
        "        )\n"
        "\n"
        "    def scale(self, x):\n"
        "        \"\"\"Scales `x` by two.\"\"\"\n"
        "        return x * 2\n"
        "\n"
        "    def forward(self, hidden, top_k_index):\n"
        "        \"\"\"Runs each expert.\"\"\"\n"
        "        mask = one_hot(top_k_index, num_classes=self.num_experts + 1)\n"
        "        return mask\n";
    static const char repl[] =
        "@config.replace_class(\"Experts\")\n"
        "class Fused(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.num_experts = config.num_experts\n"
        "\n"
        "    def forward(self, hidden, top_k_index):\n"
        "        return one_hot(top_k_index, num_classes=self.num_experts)\n";
    pg_object o = cfg_def("Fused", repl);
    o.end_line = 8;
    with_detail = 1;
    char *got = survey_text(a, b, PG_CLASS_REPLACEMENT, "Experts", &o);
    with_detail = 0;
    assert_string_equal(
        got, "warning class-attr-changed: `Experts`: class attribute `top_k` changed: 2 → 4\n"
             "warning param-removed: `Experts.route`: parameter `cache_position` removed (v1.0.0 "
             "→ v1.1.0)\n"
             "v1.0.0: route(self, x, cache_position=None)\n"
             "v1.1.0: route(self, x)\n"
             "warning replaced-body-changed: `Experts` changed under the replacement: `forward` "
             "changed its body (written against v1.0.0); the replacement defines `forward`\n"
             "--- v1.0.0 Experts.forward\n"
             "+++ v1.1.0 Experts.forward\n"
             "@@ -1,4 +1,4 @@\n"
             " def forward(self, hidden, top_k_index):\n"
             "-        \"\"\"Runs the experts.\"\"\"\n"
             "-        mask = one_hot(top_k_index, num_classes=self.num_experts)\n"
             "+        \"\"\"Runs each expert.\"\"\"\n"
             "+        mask = one_hot(top_k_index, num_classes=self.num_experts + 1)\n"
             "         return mask\n");
    free(got);
    /* the class surveyed against itself: nothing */
    got = survey_text(b, b, PG_CLASS_REPLACEMENT, "Experts", &o);
    assert_string_equal(got, "");
    free(got);
    /* two methods, one finding; `route`, which the replacement does not define, is
     * its bases' (what runs is not upstream's any more) */
    static const char b2[] =
        "class Experts(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        super().__init__()\n"
        "        self.num_experts = config.num_local_experts\n"
        "\n"
        "    def route(self, x, cache_position=None):\n"
        "        return self.inner(\n"
        "            x + 1,\n"
        "            cache_position=cache_position,\n"
        "        )\n"
        "\n"
        "    def scale(self, x):\n"
        "        return x * 2\n"
        "\n"
        "    def forward(self, hidden, top_k_index):\n"
        "        mask = one_hot(top_k_index, num_classes=self.num_experts + 1)\n"
        "        return mask\n";
    got = survey_text(a, b2, PG_CLASS_REPLACEMENT, "Experts", &o);
    assert_non_null(strstr(got, "warning replaced-body-changed: `Experts` changed under the "
                                "replacement: `__init__`, `route` and `forward` changed their "
                                "bodies (written against v1.0.0); the replacement defines "
                                "`__init__` and `forward`, not `route`\n"));
    assert_null(strstr(strstr(got, "replaced-body-changed") + 1, "replaced-body-changed"));
    free(got);
    /* without the replacement's source (an import), the methods alone */
    got = survey_text(a, b2, PG_CLASS_REPLACEMENT, "Experts", NULL);
    assert_non_null(strstr(got, "warning replaced-body-changed: `Experts` changed under the "
                                "replacement: `__init__`, `route` and `forward` changed their "
                                "bodies (written against v1.0.0)\n"));
    free(got);
    /* an override of the method is the override's body change, as before */
    got = survey_text(a, b2, PG_METHOD_OVERRIDE, "Experts.forward", NULL);
    assert_string_equal(got, "warning body-changed: `Experts.forward`: the upstream body changed "
                             "under the patch (written against v1.0.0)\n");
    free(got);
}

/* A replaced class gone at B is one fact: the targets check's "patchgen drops the
 * patch" of it goes beside the signatures check's "vanished" (which names the
 * successor). */
static void test_vanished_target_once(void **state)
{
    (void)state;
    static const char a[] = "class NaiveMoe(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Experts(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char repl[] = "@config.replace_class(\"NaiveMoe\")\n"
                               "class Fused(nn.Module):\n"
                               "    def forward(self, x):\n"
                               "        return x * 2\n";
    pg_object o = cfg_def("Fused", repl);
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.source_module = "transformers.models.x";
    pg_patch patch = {
        .type = PG_CLASS_REPLACEMENT, .target = "NaiveMoe", .replacement = &o, .reg_line = 7};
    VEC_PUSH(&cfg.patches, patch);
    index_module *m[2];
    load_text(a, b, m);
    survey_pair p = {.config = "cfg",
                     .config_path = "cfg.py",
                     .cfg = &cfg,
                     .a = m[0],
                     .b = m[1],
                     .tag_a = "v1.0.0",
                     .tag_b = "v1.1.0",
                     .src_a = last_src[0].buf,
                     .src_a_len = last_src[0].len,
                     .src_b = last_src[1].buf,
                     .src_b_len = last_src[1].len};
    findings targets = FINDINGS_INIT, out = FINDINGS_INIT;
    const char *names[] = {"NaiveMoe", "Experts"};
    for (int i = 0; i < 2; i++)
        findings_add(&targets, "targets", SEV_ERROR, "cfg", "cfg.py", 7, 0,
                     json_pack("{s:s, s:s}", "kind", "missing-target", "target", names[i]),
                     "patch target `%s` is not in transformers.models.x", names[i]);
    survey_compare(&out, &p, NULL, &targets);
    size_t vanished = 0, missing = 0;
    for (size_t i = 0; i < out.len; i++) {
        const char *kind = json_string_value(json_object_get(out.items[i]->data, "kind"));
        const char *t = json_string_value(json_object_get(out.items[i]->data, "target"));
        if (t && !strcmp(t, "NaiveMoe")) {
            vanished += !strcmp(kind, "vanished");
            missing += !strcmp(kind, "missing-target");
        }
    }
    assert_int_equal(vanished, 1);
    assert_int_equal(missing, 0);
    /* a target A did not have either is no change of the bump: left to the caller */
    assert_int_equal(targets.len, 1);
    assert_string_equal(json_string_value(json_object_get(targets.items[0]->data, "target")),
                        "Experts");
    findings_free(&out);
    findings_free(&targets);
    VEC_FREE(&cfg.patches);
    index_module_free(m[0]);
    index_module_free(m[1]);
}

static void test_kernel_forward_added_to_overridden_class(void **state)
{
    (void)state;
    static const char a[] = "class Norm(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n\n"
                            "    def extra(self):\n"
                            "        return 1\n";
    static const char b[] = "@use_kernel_forward_from_hub(\"RMSNorm\")\n"
                            "class Norm(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n\n"
                            "    def extra(self):\n"
                            "        return 1\n";
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "Norm.forward", NULL);
    assert_string_equal(got, "warning kernel-forward-added: `Norm`: decorator "
                             "`@use_kernel_forward_from_hub(\"RMSNorm\")` added: with kernels "
                             "enabled (`use_kernels=True`), a hub layer mapped to it replaces "
                             "`Norm.forward`, which the config overrides\n");
    free(got);
    got = survey_text(a, b, PG_METHOD_OVERRIDE, "Norm.extra", NULL);
    assert_string_equal(got, "");
    free(got);
    /* there at both tags: no change */
    got = survey_text(b, b, PG_METHOD_OVERRIDE, "Norm.forward", NULL);
    assert_string_equal(got, "");
    free(got);
}

/* The upstream body's diff under an override: a definition's text ends before
 * its newline, and the diff ran its last line into the next ("-        return
 * router_logits+        scores = router_logits.sigmoid()": 5.12.1 -> 5.14.1's
 * `DeepseekV3TopkRouter.forward`), an unchanged last line shown removed and added. */
static void test_body_diff_last_line(void **state)
{
    (void)state;
    static const char a[] = "class Router(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        logits = self.proj(x)\n"
                            "        return logits";
    static const char b[] = "class Router(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        logits = self.proj(x)\n"
                            "        scores = logits.sigmoid()\n"
                            "        return logits, scores";
    static const char c[] = "class Router(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        logits = self.proj(x).float()\n"
                            "        return logits";
    with_detail = 1;
    char *got = survey_text(a, b, PG_METHOD_OVERRIDE, "Router.forward", NULL);
    assert_non_null(strstr(got, "@@ -2,2 +2,3 @@\n"
                                "         logits = self.proj(x)\n"
                                "-        return logits\n"
                                "+        scores = logits.sigmoid()\n"
                                "+        return logits, scores\n"));
    free(got);
    got = survey_text(a, c, PG_METHOD_OVERRIDE, "Router.forward", NULL);
    assert_non_null(strstr(got, "-        logits = self.proj(x)\n"
                                "+        logits = self.proj(x).float()\n"
                                "         return logits\n"));
    assert_null(strstr(got, "+        return logits"));
    free(got);
    with_detail = 0;
}

static void test_rename_candidates_scored(void **state)
{
    (void)state;
    index_module *a = load("v1.0.0", "qwen3"), *b = load("v1.1.0", "qwen3");
    const char *names[3];
    double scores[3];
    size_t n = signatures_rename_candidates(a, b, "Qwen3MLP", names, scores, 3);
    assert_true(n >= 1);
    assert_string_equal(names[0], "Qwen3FeedForward");
    assert_true(scores[0] > 0.6);
    for (size_t i = 1; i < n; i++)
        assert_true(scores[i] <= scores[i - 1]);
    index_module_free(a);
    index_module_free(b);
}

static void test_render(void **state)
{
    (void)state;
    static const char src[] =
        "def f(a, b: int = 3, /, c=None, *args, d, e: str = 'x', **kw) -> T:\n    pass\n";
    index_module *m;
    assert_int_equal(index_module_from_source(&m, src, sizeof(src) - 1, "m.py", "m"), 0);
    strbuf s = STRBUF_INIT;
    signatures_render(&s, index_find(m, "f"));
    assert_string_equal(s.buf, "f(a, b: int = 3, /, c=None, *args, d, e: str = 'x', **kw) -> T");
    strbuf_free(&s);
    index_module_free(m);
}

/* signatures_object_text() against the byte-by-byte reading it replaced: every
 * range of lines, in texts with and without a last newline, empty lines, a line
 * range past the end; text_len given, or left 0 (strlen). */
static char *lines_slow(const char *text, unsigned from, unsigned to)
{
    const char *p = text;
    unsigned line = 1;
    while (*p && line < from)
        line += *p++ == '\n';
    const char *start = p;
    while (*p && line <= to)
        line += *p++ == '\n';
    return pgci_strndup(start, (size_t)(p - start));
}

static void test_object_text(void **state)
{
    (void)state;
    static const char *const texts[] = {"",
                                        "a",
                                        "a\n",
                                        "a\nb",
                                        "\n\nx = 1\n\ndef f():\n    pass\n",
                                        "@d\ndef f():\n    return 1\n# c\nz"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
        for (unsigned from = 0; from <= 9; from++)
            for (unsigned to = 0; to <= 9; to++)
                for (int known = 0; known < 2; known++) {
                    pg_object o = {.text = texts[i], .start_line = from, .end_line = to};
                    o.text_len = known ? strlen(texts[i]) : 0;
                    char *want = lines_slow(texts[i], from, to), *got = signatures_object_text(&o);
                    assert_string_equal(got, want);
                    free(got);
                    free(want);
                }
}

/* The survey fetches a config's configuration module only for the rope-compat
 * check, which reads it only under a patch of a rotary function or class. */
static void test_rope_reads_configuration(void **state)
{
    (void)state;
    static const struct {
        pg_patch_type type;
        const char *target;
        int reads;
    } cases[] = {
        {PG_METHOD_OVERRIDE, "LlamaMLP.forward", 0},
        {PG_FUNCTION_REPLACEMENT, "apply_rotary_pos_emb", 1},
        {PG_FUNCTION_REPLACEMENT, "rotate_half", 1},
        {PG_CLASS_REPLACEMENT, "LlamaRotaryEmbedding", 1},
        {PG_METHOD_OVERRIDE, "Qwen3VLTextRotaryEmbedding.forward", 1},
        {PG_INIT_MODIFICATION, "LlamaRotaryEmbedding", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        pg_config cfg;
        memset(&cfg, 0, sizeof(cfg));
        pg_patch other = {0}, patch = {0};
        other.type = PG_METHOD_OVERRIDE;
        other.target = "LlamaAttention.forward";
        patch.type = cases[i].type;
        patch.target = cases[i].target;
        VEC_PUSH(&cfg.patches, other);
        assert_int_equal(rope_compat_reads_configuration(&cfg), 0);
        VEC_PUSH(&cfg.patches, patch);
        if (rope_compat_reads_configuration(&cfg) != cases[i].reads)
            fail_msg("%s: want %d", cases[i].target, cases[i].reads);
        VEC_FREE(&cfg.patches);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unchanged_target_reports_nothing),
        cmocka_unit_test(test_body_change_that_is_only_params),
        cmocka_unit_test(test_body_change_that_is_only_a_temporary),
        cmocka_unit_test(test_config_added_target_filtered),
        cmocka_unit_test(test_pep604_is_not_a_change),
        cmocka_unit_test(test_init_attr_rename_needs_evidence),
        cmocka_unit_test(test_param_renamed_and_decorator),
        cmocka_unit_test(test_param_added_and_removed),
        cmocka_unit_test(test_class_renamed_candidate),
        cmocka_unit_test(test_reordered),
        cmocka_unit_test(test_finding_in_registering_file),
        cmocka_unit_test(test_default_changed),
        cmocka_unit_test(test_init_attr_renamed_used_by_patch),
        cmocka_unit_test(test_init_attr_moved_into_submodule),
        cmocka_unit_test(test_body_change_that_is_only_a_rename),
        cmocka_unit_test(test_decorator_dropped_under_a_replacement),
        cmocka_unit_test(test_replaced_class_property_setter),
        cmocka_unit_test(test_class_attr_assigned_twice),
        cmocka_unit_test(test_class_attr_layout),
        cmocka_unit_test(test_auto_docstring_common_args),
        cmocka_unit_test(test_auto_docstring_replaced),
        cmocka_unit_test(test_removed_import_used_by_patch),
        cmocka_unit_test(test_vanished_method_still_called),
        cmocka_unit_test(test_vanished_target_once),
        cmocka_unit_test(test_replaced_class_body_changed),
        cmocka_unit_test(test_kernel_forward_added_to_overridden_class),
        cmocka_unit_test(test_body_diff_last_line),
        cmocka_unit_test(test_rename_candidates_scored),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_object_text),
        cmocka_unit_test(test_rope_reads_configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
