/* A dataclass a patch body builds by name no longer takes a keyword the body passes
 * (checks/init_fields.h): the fields of the class's chain of bases at A and B, the
 * chain through the config's helper, a module of the workspace, another
 * transformers module and ModelOutput, whose metaclass (transformers 5.24.0 and
 * 5.25.0, the two shapes, written here by hand) turns `past_key_values=` into
 * `cache=`. The upstream modules are small ones written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/changes.h"
#include "checks/init_fields.h"
#include "checks/survey_compare.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "index/index.h"
#include "py/parse_set.h"

#include "survey_case.h"
#include "survey_twice.h"
#include "tmp_pkg.h"

/* ---- the modules ------------------------------------------------------------------- */

#define MODEL "transformers.models.toy.modeling_toy"

/* The model's module: its output class on modeling_outputs' at A, on the new
 * multimodal one at B (rope_deltas left out: transformers 5.24.0's Qwen3.5-MoE). */
static const char model_a[] = "from dataclasses import dataclass\n"
                              "from ...modeling_outputs import CausalLMOutputWithPast\n"
                              "@dataclass\n"
                              "class ToyCausalLMOutputWithPast(CausalLMOutputWithPast):\n"
                              "    r\"\"\"\n"
                              "    rope_deltas (`torch.LongTensor`, *optional*):\n"
                              "        The index difference. The attribute is deprecated and\n"
                              "        will be removed in v2.0, use `model.deltas` instead.\n"
                              "    other (`int`):\n"
                              "        Not deprecated.\n"
                              "    \"\"\"\n"
                              "\n"
                              "    rope_deltas: object = None\n"
                              "class ToyForCausalLM(nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
static const char model_b[] = "from dataclasses import dataclass\n"
                              "from ...modeling_outputs import MultimodalCausalLMOutputWithPast\n"
                              "@auto_docstring\n"
                              "@dataclass\n"
                              "class ToyCausalLMOutputWithPast(MultimodalCausalLMOutputWithPast):\n"
                              "    @property\n"
                              "    def old(self):\n"
                              "        return None\n"
                              "class ToyForCausalLM(nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
/* B's subclass declaring the field itself: removed from the base, added here */
static const char model_b_declares[] =
    "from dataclasses import dataclass\n"
    "from ...modeling_outputs import MultimodalCausalLMOutputWithPast\n"
    "@dataclass\n"
    "class ToyCausalLMOutputWithPast(MultimodalCausalLMOutputWithPast):\n"
    "    rope_deltas: object = None\n"
    "class ToyForCausalLM(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x\n";

static const char outputs_a[] = "from dataclasses import dataclass\n"
                                "from .utils import ModelOutput\n"
                                "@dataclass\n"
                                "class CausalLMOutputWithPast(ModelOutput):\n"
                                "    loss: object = None\n"
                                "    logits: object = None\n"
                                "    past_key_values: object = None\n"
                                "    hidden_states: object = None\n";
/* a base that is no dataclass: its annotation is no field (a chain that counted
 * it would take `rope_deltas=` at B) */
static const char outputs_b[] = "from dataclasses import dataclass\n"
                                "from .utils import ModelOutput\n"
                                "class MultimodalModelOutput(ModelOutput):\n"
                                "    rope_deltas: object = None\n"
                                "@dataclass\n"
                                "class MultimodalCausalLMOutputWithPast(MultimodalModelOutput):\n"
                                "    loss: object = None\n"
                                "    logits: object = None\n"
                                "    cache: object = None\n"
                                "    hidden_states: object = None\n"
                                "@dataclass\n"
                                "class OldStyleOutput(ModelOutput):\n"
                                "    loss: object = None\n"
                                "    past_key_values: object = None\n";

/* ModelOutput without a metaclass (up to 5.22), and the two shapes of its
 * renaming metaclass: every dataclass `__init__` (5.24.0), every one of a class
 * without either old name among its fields (5.25.0). */
static const char generic_plain[] = "class ModelOutput(OrderedDict):\n"
                                    "    def __post_init__(self):\n"
                                    "        pass\n";
#define RENAME                                                                                     \
    "def _rename_kwargs_for_bc(kwargs: dict) -> dict:\n"                                           \
    "    if \"past_key_values\" in kwargs:\n"                                                      \
    "        if \"cache\" not in kwargs:\n"                                                        \
    "            kwargs[\"cache\"] = kwargs.pop(\"past_key_values\")\n"                            \
    "        else:\n"                                                                              \
    "            raise ValueError(\"both\")\n"                                                     \
    "    elif \"cache_params\" in kwargs:\n"                                                       \
    "        if \"cache\" not in kwargs:\n"                                                        \
    "            kwargs[\"cache\"] = kwargs.pop(\"cache_params\")\n"                               \
    "        else:\n"                                                                              \
    "            raise ValueError(\"both\")\n"
#define WRAP                                                                                       \
    "            init = value\n"                                                                   \
    "            @functools.wraps(init)\n"                                                         \
    "            def __init__(self, *args, **kwargs):\n"                                           \
    "                _rename_kwargs_for_bc(kwargs)\n"                                              \
    "                init(self, *args, **kwargs)\n"                                                \
    "            value = __init__\n"                                                               \
    "        super().__setattr__(name, value)\n"                                                   \
    "class ModelOutput(OrderedDict, metaclass=_BCCacheNameMeta):\n"                                \
    "    pass\n"
static const char generic_always[] = RENAME "class _BCCacheNameMeta(type):\n"
                                            "    def __setattr__(cls, name, value):\n"
                                            "        if name == \"__init__\":\n" WRAP;
static const char generic_unless[] =
    RENAME "class _BCCacheNameMeta(type):\n"
           "    def __setattr__(cls, name, value):\n"
           "        if name == \"__init__\" and all(\n"
           "            deprecated not in getattr(cls, \"__dataclass_fields__\", {})\n"
           "            for deprecated in (\"past_key_values\", \"cache_params\")\n"
           "        ):\n" WRAP;
/* a metaclass of a shape not known: the classes under ModelOutput go unjudged */
static const char generic_other[] = "class _BCCacheNameMeta(type):\n"
                                    "    def __setattr__(cls, name, value):\n"
                                    "        super().__setattr__(name, value)\n"
                                    "class ModelOutput(OrderedDict, metaclass=_BCCacheNameMeta):\n"
                                    "    pass\n";

/* The workspace's mixin, a dataclass of its own (veomni.utils.model_outputs) */
static const char mixin[] = "from dataclasses import dataclass\n"
                            "@dataclass\n"
                            "class AuxMixin:\n"
                            "    aux: object = None\n";

/* The config's helper, after upstream's output class */
static const char helper_text[] = "@config.add_helper_after(\"ToyCausalLMOutputWithPast\")\n"
                                  "@dataclass\n"
                                  "class ToyLogProbs(AuxMixin, ToyCausalLMOutputWithPast):\n"
                                  "    \"\"\"The output with the mixin's field.\"\"\"\n";

/* ---- one survey ------------------------------------------------------------------ */

typedef struct fcase {
    const char *model_a, *model_b; /* the model's module (NULL: model_a, model_b) */
    const char *outputs_a;         /* NULL: outputs_a */
    const char *generic_a, *generic_b;
    const char *outputs_b; /* NULL: outputs_b */
    const char *body;      /* the override of ToyForCausalLM.forward */
    const char *helper;    /* NULL: helper_text */
    int no_mixin_file;     /* the workspace module is not there */
    int show_advice;       /* each finding's data.advice on a line of its own */
    const char *block;     /* a post-import block importing the mixin, for add_import's */
} fcase;

/* A dataclass-field-removed finding, and its advice when the case asks. */
static void field_line(strbuf *out, const finding *f, const void *arg)
{
    const fcase *fc = arg;
    const char *kind = json_string_value(json_object_get(f->data, "kind"));
    const char *advice = json_string_value(json_object_get(f->data, "advice"));
    if (!kind || strcmp(kind, "dataclass-field-removed"))
        return;
    strbuf_addf(out, "%s %s: %s\n", severity_name(f->sev), kind, f->title);
    if (fc->show_advice)
        strbuf_addf(out, "advice: %s\n", advice ? advice : "(none)");
}

static char *ws_root(void)
{
    char *root = tmp_pkg_new("pgci-init-fields-");
    tmp_pkg_put(root, "outputs.py", mixin);
    return root;
}

/* "severity kind: title" lines of the survey of the case's config, the same with a
 * memo and a parse set as without. */
static char *survey_case(const fcase *fc)
{
    char *root = ws_root();
    if (fc->no_mixin_file) {
        char *f = pgci_asprintf("%s/pkg/outputs.py", root);
        unlink(f);
        free(f);
    }
    const char *ma = fc->model_a ? fc->model_a : model_a;
    const char *mb = fc->model_b ? fc->model_b : model_b;
    const char *oa_src = fc->outputs_a ? fc->outputs_a : outputs_a;
    const char *ob = fc->outputs_b ? fc->outputs_b : outputs_b;
    index_module *a = index_named(ma, MODEL), *b = index_named(mb, MODEL);
    index_module *oa = index_named(oa_src, "transformers.modeling_outputs");
    index_module *ob_ = index_named(ob, "transformers.modeling_outputs");
    index_module *ga = index_named(fc->generic_a, "transformers.utils.generic");
    index_module *gb = index_named(fc->generic_b, "transformers.utils.generic");
    survey_ext ext[2] = {
        {"transformers.modeling_outputs", oa, ob_, oa_src, ob, strlen(oa_src), strlen(ob)},
        {"transformers.utils.generic", ga, gb, fc->generic_a, fc->generic_b, strlen(fc->generic_a),
         strlen(fc->generic_b)},
    };
    char *cfg_file = pgci_asprintf("%s/pkg/cfg.py", root);
    pg_config cfg;
    config_of(&cfg, MODEL, cfg_file, "pkg.cfg");
    const char *names[] = {"AuxMixin"};
    pg_import im = {.module = "pkg.outputs", .names = names, .names_len = 1, .is_from_import = 1};
    if (fc->block)
        VEC_PUSH(&cfg.post_import_blocks, fc->block);
    else
        VEC_PUSH(&cfg.additional_imports, im);
    const char *ht = fc->helper ? fc->helper : helper_text;
    pg_object helper = {.name = "ToyLogProbs",
                        .module = "pkg.cfg",
                        .file = cfg_file,
                        .text = ht,
                        .start_line = 1,
                        .end_line = count_lines(ht),
                        .text_len = strlen(ht),
                        .is_class = 1};
    pg_positioned_helper h = {"ToyCausalLMOutputWithPast", &helper, "after", NULL, 0, 0};
    VEC_PUSH(&cfg.positioned_helpers, h);
    pg_object body = body_of("forward", "pkg.cfg", cfg_file, fc->body);
    override_with(&cfg, "ToyForCausalLM.forward", &body);
    survey_pair sp = pair_of(&cfg, "cfg.py", a, ma, b, mb);
    sp.ext = ext;
    sp.n_ext = 2;
    char *got = survey_twice(&sp, field_line, fc);
    VEC_FREE(&cfg.patches);
    VEC_FREE(&cfg.additional_imports);
    VEC_FREE(&cfg.post_import_blocks);
    VEC_FREE(&cfg.positioned_helpers);
    index_module_free(a);
    index_module_free(b);
    index_module_free(oa);
    index_module_free(ob_);
    index_module_free(ga);
    index_module_free(gb);
    free(cfg_file);
    tmp_pkg_rm(root);
    return got;
}

static void expect(const char *got, const char *want)
{
    if (strcmp(got, want))
        fprintf(stderr, "--- got\n%s--- want\n%s", got, want);
    assert_string_equal(got, want);
}

/* The body the VeOmni Qwen3.5-MoE config's `forward` is cut down from */
static const char body_rope[] = "def forward(self, x):\n"
                                "    return ToyLogProbs(\n"
                                "        loss=None,\n"
                                "        logits=x,\n"
                                "        past_key_values=self.cache,\n"
                                "        hidden_states=None,\n"
                                "        rope_deltas=self.rope_deltas,\n"
                                "        aux=None,\n"
                                "    )\n";

static const char want_rope[] =
    "error dataclass-field-removed: `ToyForCausalLM.forward` builds `ToyLogProbs(...)`, whose "
    "fields changed at v2.0: it passes `rope_deltas=`, which no field of `ToyLogProbs` takes "
    "now\n";

/* transformers 5.24.0 moved the Qwen3.5-MoE output's base to a multimodal one
 * without `rope_deltas`: a TypeError on every call, through the config's helper
 * subclass and the workspace's mixin. `past_key_values=` is no error: the
 * metaclass turns it into `cache=`, a field of the new base; nor is the mixin's
 * `aux=`. Before, nothing was said (a body change at most). */
static void test_field_removed_from_base(void **state)
{
    (void)state;
    fcase fc = {.generic_a = generic_plain, .generic_b = generic_always, .body = body_rope};
    char *got = survey_case(&fc);
    expect(got, want_rope);
    free(got);
    /* the field's entry in A's docstring announced its removal: the finding quotes it
     * (5.16.1's "The attribute is deprecated and will be removed in v5.20, use
     * `model.base_model.rope_deltas` instead.") */
    fc.show_advice = 1;
    got = survey_case(&fc);
    expect(got,
           "error dataclass-field-removed: `ToyForCausalLM.forward` builds `ToyLogProbs(...)`, "
           "whose fields changed at v2.0: it passes `rope_deltas=`, which no field of "
           "`ToyLogProbs` takes now\n"
           "advice: The attribute is deprecated and will be removed in v2.0, use "
           "`model.deltas` instead.\n");
    free(got);
    fc.show_advice = 0;
    /* 5.25.0's metaclass: the class has neither old name, so it renames too */
    fc.generic_b = generic_unless;
    got = survey_case(&fc);
    expect(got, want_rope);
    free(got);
}

/* Without the metaclass at B, `past_key_values=` reaches a chain whose field is
 * `cache`: an error too, said apart from the plain one. */
static void test_old_name_without_metaclass(void **state)
{
    (void)state;
    fcase fc = {.generic_a = generic_plain, .generic_b = generic_plain, .body = body_rope};
    char *got = survey_case(&fc);
    expect(got, "error dataclass-field-removed: `ToyForCausalLM.forward` builds "
                "`ToyLogProbs(...)`, whose fields changed at v2.0: it passes `past_key_values=`, "
                "`rope_deltas=`, which no field of `ToyLogProbs` takes now\n");
    free(got);
}

/* A class that still declares `past_key_values`: 5.24.0's metaclass turns the
 * keyword into `cache=` all the same (a TypeError: no field `cache`), 5.25.0's
 * leaves such a class alone. */
static void test_old_name_field(void **state)
{
    (void)state;
    static const char model[] = "from ...modeling_outputs import OldStyleOutput\n"
                                "class ToyCausalLMOutputWithPast:\n"
                                "    pass\n"
                                "class ToyForCausalLM(nn.Module):\n"
                                "    def forward(self, x):\n"
                                "        return x\n";
    static const char body[] = "def forward(self, x):\n"
                               "    return OldStyleOutput(loss=None, past_key_values=x)\n";
    fcase fc = {.model_a = model,
                .model_b = model,
                .outputs_a = outputs_b,
                .generic_a = generic_plain,
                .generic_b = generic_always,
                .body = body};
    char *got = survey_case(&fc);
    expect(got, "error dataclass-field-removed: `ToyForCausalLM.forward` builds "
                "`OldStyleOutput(...)`, whose fields changed at v2.0: it passes "
                "`past_key_values=`, which `ModelOutput`'s metaclass now turns into `cache=`, "
                "which no field takes\n");
    free(got);
    fc.generic_b = generic_unless;
    got = survey_case(&fc);
    expect(got, "");
    free(got);
}

/* A field that left the base at B and came into the class itself: no finding. */
static void test_field_moved_into_subclass(void **state)
{
    (void)state;
    fcase fc = {.model_b = model_b_declares,
                .generic_a = generic_plain,
                .generic_b = generic_always,
                .body = body_rope};
    char *got = survey_case(&fc);
    expect(got, "");
    free(got);
}

/* What leaves a call unjudged (precision first): a base whose module cannot be
 * read (the workspace's file missing), a class that is no dataclass, a
 * metaclass of a shape not known, the same tag on both sides. A `**kwargs` of the
 * call does not hide an explicit keyword. */
static void test_unjudged(void **state)
{
    (void)state;
    fcase fc = {.generic_a = generic_plain,
                .generic_b = generic_always,
                .body = body_rope,
                .no_mixin_file = 1};
    char *got = survey_case(&fc);
    expect(got, "");
    free(got);
    static const char not_dc[] = "@config.add_helper_after(\"ToyCausalLMOutputWithPast\")\n"
                                 "class ToyLogProbs(AuxMixin, ToyCausalLMOutputWithPast):\n"
                                 "    pass\n";
    fcase fc2 = {.generic_a = generic_plain,
                 .generic_b = generic_always,
                 .body = body_rope,
                 .helper = not_dc};
    got = survey_case(&fc2);
    expect(got, "");
    free(got);
    fcase fc3 = {.generic_a = generic_plain, .generic_b = generic_other, .body = body_rope};
    got = survey_case(&fc3);
    expect(got, "");
    free(got);
    static const char splat[] = "def forward(self, x, **kw):\n"
                                "    return ToyLogProbs(**kw, rope_deltas=None)\n";
    fcase fc4 = {.generic_a = generic_plain, .generic_b = generic_always, .body = splat};
    got = survey_case(&fc4);
    expect(got, want_rope);
    free(got);
}

/* The mixin imported by a post-import block (the Qwen3-VL configs' way): followed
 * when the block binds it by that import alone; a block that binds it twice, or
 * does not parse, leaves the call unjudged. */
static void test_mixin_through_block(void **state)
{
    (void)state;
    const char *blocks[] = {
        "\n    import os\n    from pkg.outputs import (  # noqa\n        AuxMixin,\n    )\n",
        "\n    from pkg.outputs import AuxMixin\n    AuxMixin = dict\n",
        "\n    from pkg.outputs import AuxMixin\n    def (\n",
    };
    const char *want[] = {want_rope, "", ""};
    for (int i = 0; i < 3; i++) {
        fcase fc = {.generic_a = generic_plain,
                    .generic_b = generic_always,
                    .body = body_rope,
                    .block = blocks[i]};
        char *got = survey_case(&fc);
        expect(got, want[i]);
        free(got);
    }
}

/* What the survey fetches for the chains: modeling_outputs and generic.py when a
 * class a body builds leaves the model's module for another transformers module
 * or reaches ModelOutput at A; nothing for a body that builds no such class. */
static void test_modules(void **state)
{
    (void)state;
    static const char builds_nothing[] = "def forward(self, x):\n"
                                         "    return helper(x), Local(x)\n";
    static const char model_local[] = "class Local:\n"
                                      "    pass\n"
                                      "class ToyForCausalLM(nn.Module):\n"
                                      "    def forward(self, x):\n"
                                      "        return x\n";
    const char *bodies[] = {body_rope, builds_nothing};
    const char *models[] = {model_a, model_local};
    size_t want[] = {2, 0};
    for (int i = 0; i < 2; i++) {
        index_module *a = index_named(models[i], MODEL);
        pg_config cfg;
        config_of(&cfg, MODEL, NULL, NULL);
        pg_object body = body_of("forward", "pkg.cfg", "/x/pkg/cfg.py", bodies[i]);
        override_with(&cfg, "ToyForCausalLM.forward", &body);
        pg_object helper = {.name = "ToyLogProbs",
                            .module = "pkg.cfg",
                            .file = "/x/pkg/cfg.py",
                            .text = helper_text,
                            .start_line = 1,
                            .end_line = count_lines(helper_text),
                            .text_len = strlen(helper_text),
                            .is_class = 1};
        pg_positioned_helper h = {"ToyCausalLMOutputWithPast", &helper, "after", NULL, 0, 0};
        VEC_PUSH(&cfg.positioned_helpers, h);
        survey_pair sp = {.config = "cfg", .cfg = &cfg, .a = a, .b = a};
        strvec mods = STRVEC_INIT;
        init_fields_modules(&mods, &sp);
        assert_int_equal(mods.len, want[i]);
        if (want[i]) {
            assert_string_equal(mods.items[0], "transformers.modeling_outputs");
            assert_string_equal(mods.items[1], "transformers.utils.generic");
        }
        strvec_free(&mods);
        VEC_FREE(&cfg.patches);
        VEC_FREE(&cfg.positioned_helpers);
        index_module_free(a);
    }
}

/* The findings of one field on two models' classes are one change, named by the
 * field and the class of A's chain that had it. */
static void test_changes_title(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *mods[] = {"transformers.models.qwen3_5_moe.modeling_qwen3_5_moe",
                          "transformers.models.qwen3_vl_moe.modeling_qwen3_vl_moe"};
    const char *targets[] = {"Qwen3_5MoeCausalLMOutputWithPast",
                             "Qwen3VLMoeCausalLMOutputWithPast"};
    for (int i = 0; i < 2; i++) {
        json_t *f = json_object();
        json_object_set_new(f, "check", json_string("callees"));
        json_object_set_new(f, "severity", json_string("error"));
        json_object_set_new(f, "config", json_string(i ? "c.vl" : "c.q35"));
        json_object_set_new(f, "title", json_string("t"));
        json_object_set_new(f, "data",
                            json_pack("{s:s, s:s, s:s, s:s}", "kind", "dataclass-field-removed",
                                      "target", targets[i], "module", mods[i], "field",
                                      "rope_deltas"));
        json_array_append_new(fs, f);
    }
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "how")), "breaks-at-run-time");
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "`*CausalLMOutputWithPast` lost the field `rope_deltas`, which patch "
                        "bodies still pass to a dataclass built on it");
    json_decref(cs);
    json_decref(fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_removed_from_base),
        cmocka_unit_test(test_old_name_without_metaclass),
        cmocka_unit_test(test_old_name_field),
        cmocka_unit_test(test_field_moved_into_subclass),
        cmocka_unit_test(test_unjudged),
        cmocka_unit_test(test_mixin_through_block),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_changes_title),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
