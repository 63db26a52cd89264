/* Unit tests for src/patchgen/config_eval*: the static patch-config evaluator on the
 * hand-written configs of fixtures/configs (every construct, with the exact
 * PatchConfig contents expected) and on small inline configs; every error with its
 * exact message; the limits that keep hostile configs bounded.
 * tests/oracle/config_eval.sh checks the same fixtures against the real patchgen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "patchgen/config_dump.h"
#include "patchgen/config_eval.h"

/* --- helpers ----------------------------------------------------------------------- */

static workspace fixture_ws;
static char *fixture_root;

static int setup(void **state)
{
    (void)state;
    fixture_root = realpath("fixtures/configs", NULL);
    assert_non_null(fixture_root);
    fixture_ws.root = fixture_root;
    fixture_ws.search_root = "cfgfix";
    fixture_ws.package_prefix = "cfgfix";
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(fixture_root);
    return 0;
}

static pg_config *eval_fixture(config_eval *ev, const char *rel, const char *var)
{
    pg_config *c = NULL;
    if (config_eval_file(ev, rel, var, &c) != 0)
        fail_msg("%s: %s", rel, pgci_error_last());
    return c;
}

/* The error message config_eval_file gives for a fixture (in a fresh evaluator). */
static void expect_fixture_error(const char *rel, int code, const char *msg)
{
    config_eval *ev;
    config_eval_new(&ev, &fixture_ws);
    pg_config *c = NULL;
    int r = config_eval_file(ev, rel, NULL, &c);
    if (r == 0)
        fail_msg("%s: evaluated, expected: %s", rel, msg);
    assert_null(c);
    assert_int_equal(r, code);
    assert_string_equal(pgci_error_last(), msg);
    config_eval_free(ev);
}

/* Evaluates an inline config (no workspace). */
static int eval_src_len(const char *src, size_t len, const char *var, pg_config **out)
{
    config_eval *ev;
    config_eval_new(&ev, NULL);
    int r = config_eval_buffer(ev, "/cfg/inline_patch_gen_config.py", src, len, var, out);
    config_eval_free(ev); /* the pg_config must outlive its evaluator */
    return r;
}

static int eval_src(const char *src, const char *var, pg_config **out)
{
    return eval_src_len(src, strlen(src), var, out);
}

static pg_config *eval_ok(const char *src)
{
    pg_config *c = NULL;
    if (eval_src(src, NULL, &c) != 0)
        fail_msg("%s", pgci_error_last());
    return c;
}

static void expect_src_error(const char *src, int code, const char *msg)
{
    pg_config *c = NULL;
    int r = eval_src(src, NULL, &c);
    if (r == 0)
        fail_msg("evaluated, expected: %s", msg);
    assert_int_equal(r, code);
    assert_string_equal(pgci_error_last(), msg);
}

#define HEAD                                                                                       \
    "from veomni.patchgen.patch_spec import PatchConfig, create_patch_from_external\n"             \
    "config = PatchConfig(source_module=\"transformers.models.toy.modeling_toy\")\n"

static void check_patch(const pg_patch *p, pg_patch_type type, const char *target, const char *name,
                        unsigned first, unsigned last, const char *desc)
{
    assert_int_equal(p->type, type);
    assert_string_equal(p->target, target);
    assert_string_equal(p->description, desc);
    if (!name) {
        assert_null(p->replacement);
        return;
    }
    assert_non_null(p->replacement);
    assert_string_equal(p->replacement->name, name);
    assert_int_equal(p->replacement->start_line, first);
    assert_int_equal(p->replacement->end_line, last);
}

/* --- the fixture with every construct --------------------------------------------------- */

static void test_everything(void **state)
{
    (void)state;
    config_eval *ev;
    config_eval_new(&ev, &fixture_ws);
    pg_config *c = eval_fixture(ev, "cfgfix/basic/everything_patch_gen_config.py", NULL);
    const char *mod = "cfgfix.basic.everything_patch_gen_config";
    assert_string_equal(c->module, mod);
    assert_string_equal(c->var_name, "config");
    assert_string_equal(c->source_module, "transformers.models.toy.modeling_toy");
    assert_string_equal(c->target_file, "patched_modeling_toy_gpu.py");
    assert_string_equal(c->description, "Toy model, every DSL construct (set later)");
    assert_string_equal(c->transformers_version, "1.0.0");
    assert_int_equal(c->line, 39);

    assert_int_equal(c->patches.len, 13);
    const pg_patch *p = c->patches.items;
    check_patch(&p[0], PG_CLASS_REPLACEMENT, "ToyRMSNorm", "FusedToyRMSNorm", 73, 82,
                "Replace the toy norm with a fused one (triple)");
    assert_true(p[0].replacement->is_class);
    assert_string_equal(p[0].source_module, mod);
    assert_string_equal(p[0].reg_file, "cfgfix/basic/everything_patch_gen_config.py");
    assert_int_equal(p[0].reg_line, 73);
    /* stacked decorators register bottom-up */
    check_patch(&p[1], PG_METHOD_OVERRIDE, "ToyMoeMLP.forward", "toy_mlp_forward", 88, 94,
                "Override ToyMoeMLP.forward");
    assert_null(p[1].name_map);
    check_patch(&p[2], PG_METHOD_OVERRIDE, "ToyMLP.forward", "toy_mlp_forward", 88, 94,
                "Override ToyMLP.forward");
    assert_int_equal(p[2].name_map_len, 2);
    assert_string_equal(p[2].name_map[0].from, "Toy");
    assert_string_equal(p[2].name_map[0].to, "ToyMoe");
    assert_string_equal(p[2].name_map[1].from, "toy_");
    assert_string_equal(p[2].name_map[1].to, "toy_moe_");
    /* description="" means the default */
    check_patch(&p[3], PG_FUNCTION_REPLACEMENT, "apply_rotary_pos_emb", "fused_rotary", 97, 99,
                "Replace apply_rotary_pos_emb with fused_rotary");
    check_patch(&p[4], PG_FUNCTION_REPLACEMENT, "rotate_half", "one_liner", 102, 103,
                "Replace rotate_half with one_liner");
    check_patch(&p[5], PG_INIT_MODIFICATION, "ToyAttention", "toy_attention_init", 106, 108,
                "Modify ToyAttention.__init__");
    assert_null(p[5].source_module); /* modify_init's Patch has none */
    check_patch(&p[6], PG_INIT_MODIFICATION, "ToyDecoderLayer", "toy_layer_init", 111, 113,
                "Add a flag");
    /* inspect reports the FIRST class of that name */
    check_patch(&p[7], PG_CLASS_REPLACEMENT, "ToyEmbedding", "Replacement", 149, 150,
                "Replace ToyEmbedding with Replacement");
    check_patch(&p[8], PG_METHOD_OVERRIDE, "ToyModel.forward", "toy_mlp_forward", 88, 94,
                "Override ToyModel.forward");
    assert_null(p[8].name_map); /* name_map={} */
    check_patch(&p[9], PG_FUNCTION_REPLACEMENT, "eager_attention_forward", "fused_rotary", 97, 99,
                "By position");
    assert_string_equal(p[9].name_map[0].to, "query");
    check_patch(&p[10], PG_FUNCTION_REPLACEMENT, "sdpa_attention_forward", "one_liner", 102, 103,
                "Called by hand");
    check_patch(&p[11], PG_CLASS_REPLACEMENT, "ToyNorm", NULL, 0, 0,
                "Replace ToyNorm with LigerRMSNorm from liger_kernel.transformers.rms_norm");
    assert_string_equal(p[11].replacement_module, "liger_kernel.transformers.rms_norm");
    assert_string_equal(p[11].replacement_name, "LigerRMSNorm");
    assert_string_equal(p[11].source_module, "liger_kernel.transformers.rms_norm");
    check_patch(&p[12], PG_METHOD_OVERRIDE, "ToySwiGLU", NULL, 0, 0, "Liger SwiGLU");

    assert_int_equal(c->additional_imports.len, 5);
    const pg_import *im = c->additional_imports.items;
    assert_string_equal(im[0].module, "functools");
    assert_int_equal(im[0].names_len, 1);
    assert_string_equal(im[0].names[0], "partial");
    assert_true(im[0].is_from_import);
    assert_null(im[0].alias);
    assert_string_equal(im[1].module, "os");
    assert_null(im[1].names);
    assert_false(im[1].is_from_import);
    assert_string_equal(im[2].alias, "np");
    assert_int_equal(im[3].names_len, 2);
    assert_string_equal(im[3].names[1], "Optional");
    assert_string_equal(im[4].names[0], "OrderedDict");
    assert_true(im[4].is_from_import);

    assert_int_equal(c->post_import_blocks.len, 2);
    assert_string_equal(c->post_import_blocks.items[0],
                        "\n    try:\n        import fancy_kernels\n    except ImportError:\n"
                        "        fancy_kernels = None\n    ");
    assert_string_equal(c->post_import_blocks.items[1], "TOY_FLAG = True");

    const char *drop[] = {"Unused", "AlsoUnused", "Third", "Fourth", "Fifth"};
    assert_int_equal(c->drop_imported_names.len, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(c->drop_imported_names.items[i], drop[i]);
    /* TYPE_CHECKING bodies do not run; their else branch does */
    const char *excl[] = {"ToyForTokenClassification", "ToyForQuestionAnswering",
                          "ToyPreTrainedModel", "ToyExtra", "RuntimeOnly"};
    assert_int_equal(c->exclude.len, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(c->exclude.items[i], excl[i]);

    assert_int_equal(c->helpers.len, 3);
    assert_string_equal(c->helpers.items[0]->name, "cached_positions");
    assert_int_equal(c->helpers.items[0]->start_line, 116); /* the first decorator */
    assert_int_equal(c->helpers.items[0]->end_line, 119);
    assert_string_equal(c->helpers.items[1]->name, "called_helper");
    assert_string_equal(c->helpers.items[2]->name, "plain_helper");
    assert_int_equal(c->positioned_helpers.len, 4);
    assert_string_equal(c->positioned_helpers.items[0].target, "ToyModelOutput");
    assert_string_equal(c->positioned_helpers.items[0].helper->name, "ToyModelOutputWithExtras");
    assert_true(c->positioned_helpers.items[0].helper->is_class);
    assert_string_equal(c->positioned_helpers.items[1].target, "ToyMLP");
    assert_string_equal(c->positioned_helpers.items[1].placement, "after");
    assert_string_equal(c->positioned_helpers.items[3].helper->name, "after_mlp");
    /* the object carries its file's text */
    const pg_object *o = p[0].replacement;
    assert_int_equal(strlen(o->text), o->text_len);
    assert_non_null(strstr(o->text, "class FusedToyRMSNorm:"));
    assert_true(pgci_ends_with(o->file, "/cfgfix/basic/everything_patch_gen_config.py"));

    /* the other PatchConfig of the file, by name */
    pg_config *other = eval_fixture(ev, "cfgfix/basic/everything_patch_gen_config.py", "other");
    assert_string_equal(other->var_name, "other");
    assert_string_equal(other->target_file, "patched_other.py");
    assert_string_equal(other->description, "");
    assert_int_equal(other->patches.len, 0);
    assert_int_equal(other->additional_imports.len, 1);
    pg_config_free(other);
    config_eval_free(ev);
    /* and it outlives the evaluator */
    assert_string_equal(c->patches.items[1].replacement->name, "toy_mlp_forward");
    pg_config_free(c);
}

/* --- sibling configs ------------------------------------------------------------------ */

static void test_siblings(void **state)
{
    (void)state;
    config_eval *ev;
    config_eval_new(&ev, &fixture_ws);
    pg_config *omni = eval_fixture(ev, "cfgfix/basic/toy_omni_npu_patch_gen_config.py", NULL);
    pg_config *npu = eval_fixture(ev, "cfgfix/basic/toy_npu_patch_gen_config.py", NULL);
    pg_config *moe = eval_fixture(ev, "cfgfix/basic/toy_moe_gpu_patch_gen_config.py", NULL);
    pg_config *gpu = eval_fixture(ev, "cfgfix/basic/toy_gpu_patch_gen_config.py", NULL);
    const char *gpu_mod = "cfgfix.basic.toy_gpu_patch_gen_config";

    /* the importer changed the imported config; the sibling's own stays as written */
    assert_string_equal(omni->target_file, "patched_modeling_toy_omni_npu.py");
    assert_string_equal(omni->description, "Toy omni on NPU");
    assert_int_equal(omni->patches.len, 3);
    assert_string_equal(omni->patches.items[2].target, "apply_rotary_pos_emb");
    assert_string_equal(omni->patches.items[2].source_module,
                        "cfgfix.basic.toy_omni_npu_patch_gen_config");
    assert_int_equal(omni->additional_imports.len, 2);
    assert_string_equal(gpu->target_file, "patched_modeling_toy_gpu.py");
    assert_int_equal(gpu->patches.len, 2);
    assert_int_equal(gpu->additional_imports.len, 1);
    assert_int_equal(gpu->helpers.len, 2);

    /* extend, the __name__ filter, update */
    assert_int_equal(npu->additional_imports.len, 1);
    assert_string_equal(npu->post_import_blocks.items[0], "GPU_ONLY = True");
    assert_int_equal(npu->helpers.len, 1);
    assert_string_equal(npu->helpers.items[0]->name, "shared_helper");
    assert_string_equal(npu->helpers.items[0]->module, gpu_mod);
    assert_int_equal(npu->positioned_helpers.len, 1);
    assert_int_equal(npu->drop_imported_names.len, 1);
    assert_string_equal(npu->exclude.items[0], "ToyForTokenClassification");
    /* an imported function keeps its own module */
    assert_int_equal(npu->patches.len, 2);
    assert_string_equal(npu->patches.items[0].source_module, gpu_mod);
    assert_string_equal(npu->patches.items[0].description, "Fused norm (NPU)");
    assert_int_equal(npu->patches.items[0].replacement->start_line, 35);
    assert_true(pgci_ends_with(npu->patches.items[0].replacement->file,
                               "cfgfix/basic/toy_gpu_patch_gen_config.py"));
    assert_string_equal(npu->patches.items[1].description,
                        "Replace ToyExperts with PatchedToyExperts");

    /* relative imports, patches.extend over a filter, name_map constants */
    assert_int_equal(moe->patches.len, 4);
    assert_string_equal(moe->patches.items[0].target, "ToyRMSNorm.forward");
    assert_string_equal(moe->patches.items[2].target, "ToyMoeRMSNorm.forward");
    assert_string_equal(moe->patches.items[2].name_map[1].to, "toy_moe_");
    assert_string_equal(moe->patches.items[3].description,
                        "Replace ToyMoeExperts with PatchedToyExperts");
    assert_string_equal(moe->description, "");
    assert_string_equal(moe->target_file, "patched_modeling_toy_moe_gpu.py");

    pg_config_free(omni);
    pg_config_free(npu);
    pg_config_free(moe);
    pg_config_free(gpu);
    config_eval_free(ev);
}

/* --- small inline configs ----------------------------------------------------------------- */

/* pg_object.parses_alone: set for a def at column 0 of a file Python accepts, so
 * that codegen need not parse its source again; not for a nested def, a class, a
 * file whose identifiers were NFKC-normalised or one whose indentation CPython
 * rejects where tree-sitter does not. */
static const pg_object *replacement_of(const pg_config *c, const char *target)
{
    for (size_t i = 0; i < c->patches.len; i++)
        if (!strcmp(c->patches.items[i].target, target))
            return c->patches.items[i].replacement;
    fail_msg("no patch on %s", target);
    return NULL;
}

static void test_parses_alone(void **state)
{
    (void)state;
    pg_config *c =
        eval_ok(HEAD "# why\n@config.override_method('A.f')\ndef f(self):\n    return 1\n"
                     "\n\nif TYPE_CHECKING:\n    pass\nelse:\n    @config.override_method('A.g')\n"
                     "    def g(self):\n        return 2\n"
                     "\n\n@config.replace_class('B')\nclass B:\n    def h(self):\n"
                     "        pass\n");
    assert_int_equal(replacement_of(c, "A.f")->parses_alone, 1);
    assert_int_equal(replacement_of(c, "A.g")->parses_alone, 0);
    assert_int_equal(replacement_of(c, "B")->parses_alone, 0);
    pg_config_free(c);

    /* 'ﬁ' (U+FB01) is "fi" once normalised: the tree is of another text */
    c = eval_ok(HEAD "@config.override_method('A.f')\ndef f(self):\n    \xef\xac\x81 = 1\n"
                     "    return fi\n");
    assert_int_equal(replacement_of(c, "A.f")->parses_alone, 0);
    pg_config_free(c);

    /* a dedent to a column no enclosing block uses, in another def: Python refuses
     * the whole file (it once evaluated, with parses_alone 0) */
    expect_src_error(HEAD "@config.override_method('A.f')\ndef f(self):\n    return 1\n\n\n"
                          "def other():\n    if x:\n        y = 1\n      z = 2\n",
                     PGCI_EINVALID,
                     "/cfg/inline_patch_gen_config.py:11:12: syntax error: unindent does not match "
                     "any outer indentation level");
}

static void test_inline(void **state)
{
    (void)state;
    pg_config *c = NULL;
    const char *src =
        "\"\"\"docstring\"\"\"\n"
        "import patchgen.patch_spec as spec\n"
        "T = 'Toy' \"Norm\"\n"
        "cfg = spec.PatchConfig('transformers.x', target_file='x.py', description=\"d\" 'e')\n"
        "N = {'a': 'b', 'a': 'c', 'z': ''}\n"
        "for i in range(3):\n    pass\n"
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
        "print('not touching')\n"
        "# comment above the decorator\n"
        "\n"
        "@cfg.replace_class(T, name_map=N)\n"
        "@dataclass(frozen=True)\n" /* known: returns the class (an unknown one is refused) */
        "class Fused(Base):\n"
        "    x = 1\n"
        "\n"
        "    # indented trailing comment\n"
        "\n"
        "cfg.exclude_from_output(T)\n";
    assert_int_equal(eval_src(src, "cfg", &c), 0);
    assert_string_equal(c->module, "inline_patch_gen_config");
    assert_string_equal(c->description, "de");
    /* the module docstring, decoded, for the protocol checks */
    assert_string_equal(c->docstring, "docstring");
    assert_int_equal(c->docstring_line, 1);
    assert_int_equal(c->patches.len, 1);
    check_patch(&c->patches.items[0], PG_CLASS_REPLACEMENT, "ToyNorm", "Fused", 15, 20,
                "Replace ToyNorm with Fused");
    /* a repeated key keeps its first place and its last value; "" values are kept */
    assert_int_equal(c->patches.items[0].name_map_len, 2);
    assert_string_equal(c->patches.items[0].name_map[0].to, "c");
    assert_string_equal(c->patches.items[0].name_map[1].from, "z");
    assert_string_equal(c->patches.items[0].name_map[1].to, "");
    assert_string_equal(c->exclude.items[0], "ToyNorm");
    pg_config_free(c);

    /* the default variable, and naming a missing one or a non-config */
    c = eval_ok(HEAD "other = 3\n");
    assert_string_equal(c->target_file, "patched_modeling.py");
    assert_string_equal(c->description, "");
    assert_null(c->transformers_version);
    pg_config_free(c);
    assert_int_equal(eval_src(HEAD, "gpu", &c), PGCI_ENOTFOUND);
    assert_string_equal(pgci_error_last(), "/cfg/inline_patch_gen_config.py: no PatchConfig named "
                                           "'gpu' (PatchConfigs here: config)");
    assert_int_equal(eval_src(HEAD "other = 3\n", "other", &c), PGCI_ENOTFOUND);
    assert_string_equal(pgci_error_last(),
                        "/cfg/inline_patch_gen_config.py: 'other' is not a PatchConfig");

    /* annotated module-level assignment; `config` as a parameter, a class attribute
     * and inside function bodies is not the PatchConfig */
    c = eval_ok("from veomni.patchgen.patch_spec import PatchConfig\n"
                "config: PatchConfig = PatchConfig('m.n')\n"
                "def f(config, x: int = 1, *a, k: 'T' = None, **kw) -> None:\n"
                "    config.add_import('os')\n"
                "class A(Base):\n    config: 'Cfg'\n    config = None\n"
                "    def __init__(self, config):\n        config.x = 1\n"
                "config.exclude_from_output('A')\n");
    assert_string_equal(c->source_module, "m.n");
    assert_int_equal(c->additional_imports.len, 0);
    assert_int_equal(c->exclude.len, 1);
    pg_config_free(c);

    /* placeholder rebinding: the def is shadowed, as in Python */
    c = eval_ok(HEAD "def rotate_half(x):\n    return x\nrotate_half = None\n"
                     "@config.add_helper\ndef h():\n    pass\n");
    assert_int_equal(c->helpers.len, 1);
    pg_config_free(c);
    /* add_helper(None) returns the method and registers nothing, as patchgen's does */
    c = eval_ok(HEAD "def f():\n    pass\nf = None\nconfig.add_helper(f)\n");
    assert_int_equal(c->helpers.len, 0);
    pg_config_free(c);
    expect_src_error(HEAD "def f():\n    pass\nf = 3\nconfig.add_helper(f)\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:6:19: unsupported construct in patch config: "
                     "f (the helper must be a def or class defined in a patch config)");
}

/* --- errors ------------------------------------------------------------------------------ */

static void test_error_fixtures(void **state)
{
    (void)state;
    expect_fixture_error("cfgfix/errors/no_source_patch_gen_config.py", PGCI_EINVALID,
                         "cfgfix/errors/no_source_patch_gen_config.py:5:10: PatchConfig() is "
                         "missing source_module (the upstream module to patch)");
    expect_fixture_error("cfgfix/errors/syntax_error_patch_gen_config.py", PGCI_EINVALID,
                         "cfgfix/errors/syntax_error_patch_gen_config.py:8:15: syntax error: "
                         "invalid syntax");
    expect_fixture_error("cfgfix/errors/cycle_a_patch_gen_config.py", PGCI_EINVALID,
                         "cfgfix/errors/cycle_b_patch_gen_config.py:2:1: import cycle between "
                         "patch configs: cfgfix.errors.cycle_a_patch_gen_config -> "
                         "cfgfix.errors.cycle_b_patch_gen_config -> "
                         "cfgfix.errors.cycle_a_patch_gen_config (imported from "
                         "cfgfix/errors/cycle_a_patch_gen_config.py:2:1)");
    expect_fixture_error("cfgfix/errors/self_import_patch_gen_config.py", PGCI_EINVALID,
                         "cfgfix/errors/self_import_patch_gen_config.py:2:1: config "
                         "'cfgfix.errors.self_import_patch_gen_config' imports itself");
    expect_fixture_error("cfgfix/errors/missing_sibling_patch_gen_config.py", PGCI_ENOTFOUND,
                         "cfgfix/errors/missing_sibling_patch_gen_config.py:2:1: cannot find "
                         "sibling config 'cfgfix.errors.nowhere_patch_gen_config': "
                         "cfgfix/errors/nowhere_patch_gen_config.py does not exist");
    expect_fixture_error("cfgfix/errors/missing_name_patch_gen_config.py", PGCI_ENOTFOUND,
                         "cfgfix/errors/missing_name_patch_gen_config.py:2:51: cannot import name "
                         "'no_such_function' from 'cfgfix.basic.toy_gpu_patch_gen_config'");
    expect_fixture_error("cfgfix/errors/undefined_name_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         "cfgfix/errors/undefined_name_patch_gen_config.py:6:54: name "
                         "'never_defined' is not defined");
    expect_fixture_error("cfgfix/errors/broken_sibling_patch_gen_config.py", PGCI_EINVALID,
                         "cfgfix/errors/syntax_error_patch_gen_config.py:8:15: syntax error: "
                         "invalid syntax (imported from "
                         "cfgfix/errors/broken_sibling_patch_gen_config.py:2:1)");
    /* a file that is not there */
    config_eval *ev;
    config_eval_new(&ev, &fixture_ws);
    pg_config *c = NULL;
    assert_true(config_eval_file(ev, "cfgfix/errors/nowhere_patch_gen_config.py", NULL, &c) < 0);
    assert_non_null(strstr(pgci_error_last(), "nowhere_patch_gen_config.py"));
    config_eval_free(ev);
}

static void test_unsupported_fixtures(void **state)
{
    (void)state;
#define H "cfgfix/hostile/"
    expect_fixture_error(H "loop_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "loop_patch_gen_config.py:6:1: unsupported construct in patch config: "
                           "for name in [\"A\", \"B\"]:...");
    expect_fixture_error(H "conditional_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "conditional_patch_gen_config.py:7:1: unsupported construct in patch "
                           "config: if USE_FUSED:...");
    expect_fixture_error(H "computed_target_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "computed_target_patch_gen_config.py:8:23: unsupported construct in "
                           "patch config: PREFIX + \"RMSNorm\" (patch target must be a constant "
                           "string)");
    expect_fixture_error(H "fstring_target_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "fstring_target_patch_gen_config.py:8:25: unsupported construct in "
                           "patch config: f\"{PREFIX}MLP.forward\" (patch target must be a "
                           "constant string)");
    expect_fixture_error(H "unknown_method_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "unknown_method_patch_gen_config.py:5:1: unsupported construct in "
                           "patch config: config.replace_everything (not an attribute of "
                           "PatchConfig that pgci models)");
    expect_fixture_error(H "copied_config_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "copied_config_patch_gen_config.py:7:7: unsupported construct in "
                           "patch config: copy.deepcopy(config)");
    expect_fixture_error(H "class_body_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "class_body_patch_gen_config.py:14:5: unsupported construct in patch "
                           "config: @config.override_method(\"ToyMLP.forward\") (a patch "
                           "decorator inside a class body)");
    expect_fixture_error(H "call_at_import_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "call_at_import_patch_gen_config.py:15:1: unsupported construct in "
                           "patch config: setup() (the def it calls uses a PatchConfig when it "
                           "runs)");
    expect_fixture_error(H "opaque_replacement_patch_gen_config.py", PGCI_EUNSUPPORTED,
                         H "opaque_replacement_patch_gen_config.py:7:61: unsupported construct "
                           "in patch config: partial (the replacement must be a def or class "
                           "defined in a patch config)");
}

static void test_hostile_fixtures(void **state)
{
    (void)state;
    expect_fixture_error(H "newline_target_patch_gen_config.py", PGCI_EINVALID,
                         H "newline_target_patch_gen_config.py:7:26: invalid patch target "
                           "\"apply_rotary_pos_emb\\nimport os\": not a dotted Python name");
    expect_fixture_error(H "shell_target_patch_gen_config.py", PGCI_EINVALID,
                         H "shell_target_patch_gen_config.py:5:28: invalid name \"Toy; rm -rf / "
                           "#\": not a Python name");
    expect_fixture_error(H "empty_key_name_map_patch_gen_config.py", PGCI_EINVALID,
                         H "empty_key_name_map_patch_gen_config.py:7:52: name_map has an empty "
                           "key: it would rewrite every position of the replacement's source");
    expect_fixture_error(H "escaping_target_file_patch_gen_config.py", PGCI_EINVALID,
                         H "escaping_target_file_patch_gen_config.py:6:17: target_file "
                           "'../../../etc/passwd' escapes its root with '..'");
    expect_fixture_error(H "bad_source_module_patch_gen_config.py", PGCI_EINVALID,
                         H "bad_source_module_patch_gen_config.py:4:36: invalid source_module "
                           "\"transformers/../../secrets\": not a dotted Python name");
    /* mapping to "" is legal: carried for codegen, which deletes the text */
    config_eval *ev;
    config_eval_new(&ev, &fixture_ws);
    pg_config *c = eval_fixture(ev, H "empty_value_name_map_patch_gen_config.py", NULL);
    assert_int_equal(c->patches.items[0].name_map_len, 1);
    assert_string_equal(c->patches.items[0].name_map[0].from, "Fused");
    assert_string_equal(c->patches.items[0].name_map[0].to, "");
    pg_config_free(c);
    config_eval_free(ev);
#undef H
}

static void test_inline_errors(void **state)
{
    (void)state;
    const char *F = "/cfg/inline_patch_gen_config.py";
    char msg[512];
    snprintf(msg, sizeof(msg),
             "%s:3:1: unsupported construct in patch config: config.exclude += "
             "[\"A\"]",
             F);
    expect_src_error(HEAD "config.exclude += [\"A\"]\n", PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:3:1: unsupported construct in patch config: "
             "@config.replace_class (this patch decorator needs its arguments)",
             F);
    expect_src_error(HEAD "@config.replace_class\nclass A:\n    pass\n", PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:3:35: unsupported construct in patch config: "
             "frobnicate=1 (not a parameter of this patchgen call)",
             F);
    expect_src_error(HEAD "config.add_import(\"os\", names=[], frobnicate=1)\n", PGCI_EUNSUPPORTED,
                     msg);
    snprintf(msg, sizeof(msg),
             "%s:3:34: unsupported construct in patch config: {\"b\", \"a\"} "
             "(a set has no defined order)",
             F);
    expect_src_error(HEAD "config.post_import_blocks.extend({\"b\", \"a\"})\n", PGCI_EUNSUPPORTED,
                     msg);
    expect_src_error(HEAD "config.exclude.extend(config.helpers)\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:23: unsupported construct in patch "
                     "config: config.helpers (config.exclude cannot take the items of helpers)");
    expect_src_error(HEAD "config.replace_function(\"f\", description=3)\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:42: unsupported construct in patch "
                     "config: 3 (description must be a constant string)");
    expect_src_error(HEAD "config.add_import(\"os\", \"path\")\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:25: unsupported construct in patch "
                     "config: \"path\" (names must be a constant list of strings)");
    expect_src_error(HEAD "config.drop_import_names(\"a\\x00b\")\n", PGCI_EINVALID,
                     "/cfg/inline_patch_gen_config.py:3:26: name contains a NUL character");
    expect_src_error(HEAD "@config.add_helper\ndef g():\n    pass\n"
                          "x = [h for h in config.helpers if h.__name__ > 'a']\n",
                     PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:6:32: unsupported construct in patch "
                     "config: if h.__name__ > 'a' (a filter condition pgci cannot evaluate)");
    expect_src_error(HEAD "config.patches.append(create_patch_from_external(target=\"A\", "
                          "replacement_module=\"m\"))\n",
                     PGCI_EINVALID,
                     "/cfg/inline_patch_gen_config.py:3:23: create_patch_from_external() is "
                     "missing replacement_name");
    expect_src_error(HEAD "import a.b.c_patch_gen_config\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:1: unsupported construct in patch "
                     "config: import a.b.c_patch_gen_config (write `import ... as NAME` or "
                     "`from ... import NAME`)");
    expect_src_error(HEAD "from x.y_patch_gen_config import z\n", PGCI_ENOTFOUND,
                     "/cfg/inline_patch_gen_config.py:3:1: cannot resolve sibling config "
                     "'x.y_patch_gen_config': it is not under the workspace's package_prefix "
                     "'(none)'");
    expect_src_error("from veomni.patchgen.patch_spec import PatchConfig\n"
                     "config = PatchConfig(\"a b\")\n",
                     PGCI_EINVALID,
                     "/cfg/inline_patch_gen_config.py:2:22: invalid source_module \"a b\": not a "
                     "dotted Python name");
    /* what runs at def/class time: class bodies, defaults, annotations */
    expect_src_error(HEAD "def f(x=config.add_import('os')):\n    pass\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:9: unsupported construct in patch "
                     "config: config.add_import('os')");
    expect_src_error(HEAD "def f(x) -> config.target_file:\n    pass\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:13: unsupported construct in patch "
                     "config: config.target_file");
    expect_src_error(HEAD "class A(config.helpers):\n    pass\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:8: unsupported construct in patch "
                     "config: (config.helpers)");
    expect_src_error(HEAD "class A:\n    class B:\n        x = config.exclude_from_output('A')\n",
                     PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:5:9: unsupported construct in patch "
                     "config: x = config.exclude_from_output('A')");
    expect_src_error(HEAD "def reg(f):\n    return config.add_helper(f)\n"
                          "@reg\ndef g():\n    pass\n",
                     PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:5:1: unsupported construct in patch "
                     "config: @reg (the decorator uses a PatchConfig when it runs)");
    /* a PatchConfig kept in a container is still one; dynamic code is refused */
    expect_src_error(HEAD "CONFIGS = [config]\nCONFIGS[0].add_import('os')\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:4:1: unsupported construct in patch "
                     "config: CONFIGS[0]");
    expect_src_error(HEAD "exec(\"config.add_import('os')\")\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:1: unsupported construct in patch "
                     "config: exec(\"config.add_import('os')\")");
    expect_src_error(HEAD "def f():\n    globals()['config'].add_import('os')\nf()\n",
                     PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:5:1: unsupported construct in patch "
                     "config: f() (the def it calls uses a PatchConfig when it runs)");
    /* ...but getattr on something else, and `import *` from patchgen, are fine */
    pg_config *star = eval_ok("from veomni.patchgen.patch_spec import *\n"
                              "config = PatchConfig('m')\nX = getattr(object, 'x', None)\n"
                              "config.patches.append(create_patch_from_external('A', 'm', 'B', "
                              "PatchType.FUNCTION_REPLACEMENT))\n");
    assert_int_equal(star->patches.items[0].type, PG_FUNCTION_REPLACEMENT);
    pg_config_free(star);
    /* calling a def that keeps away from every PatchConfig is fine */
    pg_config *ok = eval_ok(HEAD "def two():\n    return 2\nX = two()\n");
    pg_config_free(ok);
    expect_src_error(HEAD "with open('x') as f:\n    config.add_helper(f)\n", PGCI_EUNSUPPORTED,
                     "/cfg/inline_patch_gen_config.py:3:1: unsupported construct in patch "
                     "config: with open('x') as f:...");
}

/* --- limits ------------------------------------------------------------------------------ */

static void test_limits(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    pg_config *c = NULL;

    /* nesting far past Python's own limits: refused before any recursive walk */
    strbuf_adds(&sb, HEAD "x = ");
    for (int i = 0; i < 100000; i++)
        strbuf_addc(&sb, '(');
    strbuf_addc(&sb, '1');
    for (int i = 0; i < 100000; i++)
        strbuf_addc(&sb, ')');
    strbuf_addc(&sb, '\n');
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(strstr(pgci_error_last(), "code nested more than 1000 levels deep"));

    /* nested expressions a PatchConfig needs: bounded by the evaluator */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "config.add_post_import_block(");
    for (int i = 0; i < 150; i++)
        strbuf_addc(&sb, '(');
    strbuf_adds(&sb, "'x'");
    for (int i = 0; i < 150; i++)
        strbuf_addc(&sb, ')');
    strbuf_adds(&sb, ")\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(strstr(pgci_error_last(), "expression nested too deeply (limit 100)"));

    /* a huge literal within the file limit is carried... */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "config.add_post_import_block('");
    strbuf_addrep(&sb, "x", 4u << 20);
    strbuf_adds(&sb, "')\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), 0);
    assert_int_equal(strlen(c->post_import_blocks.items[0]), 4u << 20);
    pg_config_free(c);
    /* ...a file past it is refused */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "x = '");
    strbuf_addrep(&sb, "x", 9u << 20);
    strbuf_adds(&sb, "'\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(strstr(pgci_error_last(), "larger than a patch config may be"));

    /* doubling a list every line would reach 2^40 entries */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "@config.add_helper\ndef h():\n    pass\n");
    for (int i = 0; i < 40; i++)
        strbuf_adds(&sb, "config.helpers.extend(config.helpers)\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(
        strstr(pgci_error_last(), "too many helpers in one PatchConfig (limit 100000)"));

    /* sharing one big block many times is bounded in what a config may carry */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "B = '");
    strbuf_addrep(&sb, "y", 1u << 20);
    strbuf_adds(&sb, "'\n");
    for (int i = 0; i < 70; i++)
        strbuf_adds(&sb, "config.add_post_import_block(B)\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(strstr(pgci_error_last(), "bytes of text (limit 67108864)"));

    /* quadratic work (65,536 helpers, each looked up in a 1,000-name tuple) runs
     * into the step budget instead of running for minutes */
    strbuf_reset(&sb);
    strbuf_adds(&sb, HEAD "@config.add_helper\ndef h():\n    pass\n");
    for (int i = 0; i < 16; i++)
        strbuf_adds(&sb, "config.helpers.extend(config.helpers)\n");
    strbuf_adds(&sb, "T = (");
    for (int i = 0; i < 1000; i++)
        strbuf_addf(&sb, "'n%d', ", i);
    strbuf_adds(&sb, ")\nconfig.helpers.extend(h for h in config.helpers if h.__name__ in T)\n");
    assert_int_equal(eval_src(sb.buf, NULL, &c), PGCI_ELIMIT);
    assert_non_null(
        strstr(pgci_error_last(), "evaluating this config takes more than 50000000 steps"));
    strbuf_free(&sb);
}

/* 40 sibling configs, each importing the next: bounded by the import-depth limit. */
static void test_import_chain(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, path = STRBUF_INIT, src = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-chain"), 0);
    strbuf_addf(&path, "%s/chain", dir.buf);
    assert_int_equal(fs_mkdirs(path.buf), 0);
    for (int i = 0; i < 40; i++) {
        strbuf_reset(&src);
        if (i < 39)
            strbuf_addf(&src, "from chain.c%d_patch_gen_config import f%d\n", i + 1, i + 1);
        strbuf_addf(&src, "def f%d():\n    pass\n", i);
        strbuf_adds(&src, "from patchgen import PatchConfig\nconfig = PatchConfig('m')\n");
        strbuf_reset(&path);
        strbuf_addf(&path, "%s/chain/c%d_patch_gen_config.py", dir.buf, i);
        assert_int_equal(fs_write_atomic(path.buf, src.buf, src.len), 0);
    }
    workspace ws = {0};
    ws.root = dir.buf;
    ws.search_root = "chain";
    ws.package_prefix = "chain";
    config_eval *ev;
    config_eval_new(&ev, &ws);
    pg_config *c = NULL;
    /* 40 deep is refused, with the place of each import on the way... */
    assert_int_equal(config_eval_file(ev, "chain/c0_patch_gen_config.py", NULL, &c), PGCI_ELIMIT);
    assert_non_null(
        strstr(pgci_error_last(), "sibling configs import each other more than 32 deep"));
    assert_non_null(strstr(pgci_error_last(), "(imported from chain/c0_patch_gen_config.py:1:1)"));
    /* ...8 deep is fine */
    assert_int_equal(config_eval_file(ev, "chain/c32_patch_gen_config.py", NULL, &c), 0);
    assert_string_equal(c->module, "chain.c32_patch_gen_config");
    pg_config_free(c);
    config_eval_free(ev);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&path);
    strbuf_free(&src);
}

/* config_eval_all: the configs of a package go to one worker (an NPU config
 * imports its GPU sibling), and whatever the jobs, each config evaluates to what
 * it does in an evaluator of its own; a failure stays in its slot. */
static void test_eval_all(void **state)
{
    (void)state;
    /* two packages, configs that fail, in an order that mixes them; configs that
     * import another package's (missing_name reads basic's toy_gpu): the
     * scheduler puts those in one batch, which changes no result */
    static const char *const rel[] = {
        "cfgfix/basic/toy_npu_patch_gen_config.py",
        "cfgfix/basic/everything_patch_gen_config.py",
        "cfgfix/errors/syntax_error_patch_gen_config.py",
        "cfgfix/basic/toy_omni_npu_patch_gen_config.py",
        "cfgfix/errors/missing_name_patch_gen_config.py",
        "cfgfix/basic/toy_gpu_patch_gen_config.py",
        "cfgfix/errors/broken_sibling_patch_gen_config.py",
        "cfgfix/basic/toy_moe_gpu_patch_gen_config.py",
    };
    enum { N = sizeof(rel) / sizeof(rel[0]) };
    ws_config wc[N];
    const ws_config *sel[N];
    char *want[N];
    for (size_t i = 0; i < N; i++) {
        memset(&wc[i], 0, sizeof(wc[i]));
        wc[i].path = (char *)rel[i];
        wc[i].abs_path = (char *)rel[i];
        wc[i].dir = fs_dirname(rel[i]);
        const char *base = strrchr(rel[i], '/') + 1;
        wc[i].name = pgci_strndup(base, strlen(base) - 3);
        sel[i] = &wc[i];
        /* alone */
        config_eval *ev;
        config_eval_new(&ev, &fixture_ws);
        pg_config *c = NULL;
        strbuf d = STRBUF_INIT;
        if (config_eval_file(ev, rel[i], NULL, &c) == 0)
            config_dump_json(&d, c, fixture_root);
        else
            strbuf_addf(&d, "error: %s", pgci_error_last());
        pgci_error_clear();
        want[i] = strbuf_detach(&d, NULL);
        pg_config_free(c);
        config_eval_free(ev);
    }
    assert_non_null(strstr(want[2], "error: "));
    assert_non_null(strstr(want[4], "error: "));
    assert_non_null(strstr(want[6], "error: "));
    for (int jobs = 1; jobs <= 8; jobs++) {
        pg_config *cfgs[N];
        int rcs[N];
        char *whys[N] = {0};
        double ms[N];
        config_eval_all(&fixture_ws, sel, N, NULL, jobs, cfgs, rcs, whys, ms);
        for (size_t i = 0; i < N; i++) {
            strbuf d = STRBUF_INIT;
            if (cfgs[i]) {
                assert_int_equal(rcs[i], 0);
                config_dump_json(&d, cfgs[i], fixture_root);
            } else {
                assert_true(rcs[i] < 0);
                strbuf_addf(&d, "error: %s", whys[i]);
            }
            assert_string_equal(d.buf, want[i]);
            assert_true(ms[i] >= 0);
            strbuf_free(&d);
            pg_config_free(cfgs[i]);
            free(whys[i]);
        }
    }
    for (size_t i = 0; i < N; i++) {
        free(want[i]);
        free(wc[i].dir);
        free(wc[i].name);
    }
}

/* The JSON dump of a config with empty lists (the fuzzer found memcpy from NULL
 * there and in extend() of an empty list; UBSan in make asan guards both). */
static void test_dump_empty(void **state)
{
    (void)state;
    pg_config *c = eval_ok(HEAD "other = PatchConfig('m')\nconfig.helpers.extend(other.helpers)\n"
                                "config.drop_imported_names.update(other.drop_imported_names)\n");
    strbuf sb = STRBUF_INIT;
    assert_int_equal(config_dump_json(&sb, c, NULL), 0);
    assert_string_equal(
        sb.buf, "{\"additional_imports\":[],\"description\":\"\",\"drop_imported_names\":[],"
                "\"exclude\":[],\"helpers\":[],\"patches\":[],\"positioned_helpers\":[],"
                "\"post_import_blocks\":[],\"source_module\":"
                "\"transformers.models.toy.modeling_toy\",\"target_file\":"
                "\"patched_modeling.py\",\"transformers_version\":null}");
    strbuf_free(&sb);
    pg_config_free(c);
}

/* --- reading a config as Python does (issue 16) --------------------------------------------- */

static void test_python_reading(void **state)
{
    (void)state;
    pg_config *c = NULL;
    /* "\r" alone and "\r\n" are line breaks, in comments too: f ends on line 7 */
    assert_int_equal(eval_src(HEAD "\r@config.override_method(\"A.f\")\r\ndef f(self):\r"
                                   "    # a comment\r    x = 1\n    return x\r",
                              NULL, &c),
                     0);
    check_patch(&c->patches.items[0], PG_METHOD_OVERRIDE, "A.f", "f", 4, 8, "Override A.f");
    pg_config_free(c);
    /* NFKC identifiers: Python's __name__ is normalised, and so are the names bound */
    assert_int_equal(eval_src(HEAD
                              "ＤＥＳＣ = \"d\"\n@ｃｏｎｆｉｇ.replace_function(\"rotate_half\")\n"
                              "def ｒｏｔａｔｅ_half(x):\n    return x\n"
                              "config.exclude_from_output(ＤＥＳＣ)\n",
                              NULL, &c),
                     0);
    check_patch(&c->patches.items[0], PG_FUNCTION_REPLACEMENT, "rotate_half", "rotate_half", 4, 6,
                "Replace rotate_half with rotate_half");
    assert_int_equal(c->exclude.len, 1);
    assert_string_equal(c->exclude.items[0], "d");
    pg_config_free(c);
    /* not in, with any blanks between the two words, and a known decorator */
    assert_int_equal(eval_src(HEAD "o = PatchConfig(\"m\")\n@o.add_helper\ndef h1():\n    pass\n"
                                   "@o.add_helper\n@lru_cache(maxsize=2)\ndef h2():\n    pass\n"
                                   "config.helpers.extend(h for h in o.helpers if h.__name__ not  "
                                   "in (\"h1\",))\n",
                              NULL, &c),
                     0);
    assert_int_equal(c->helpers.len, 1);
    assert_string_equal(c->helpers.items[0]->name, "h2");
    pg_config_free(c);
    /* pure ASCII under a latin-1 coding line reads the same */
    assert_int_equal(eval_src("# -*- coding: latin-1 -*-\n" HEAD, NULL, &c), 0);
    /* no module docstring: the first statement is an import */
    assert_null(c->docstring);
    assert_int_equal(c->docstring_line, 0);
    pg_config_free(c);
    /* a docstring after comments, with an escape and a second line */
    assert_int_equal(eval_src("# c\n\n'''a\\tb\nsecond'''\n" HEAD, NULL, &c), 0);
    assert_string_equal(c->docstring, "a\tb\nsecond");
    assert_int_equal(c->docstring_line, 3);
    pg_config_free(c);
}

static void test_python_refusals(void **state)
{
    (void)state;
    const char *F = "/cfg/inline_patch_gen_config.py";
    char msg[600];
    snprintf(msg, sizeof(msg),
             "%s:4:9: non-UTF-8 byte 0xE9 (patchgen reads config files as UTF-8 and fails on it)",
             F);
    expect_src_error("# coding: latin-1\n" HEAD "X = 'caf\xe9'\n", PGCI_EINVALID, msg);
    snprintf(msg, sizeof(msg),
             "%s:4:6: non-ASCII text under the coding line 'latin-1' (Python decodes it as "
             "latin-1, patchgen's comment reader as UTF-8; pgci does not model the mix)",
             F);
    expect_src_error("# coding: latin-1\n" HEAD "X = 'é'\n", PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:1:11: unsupported coding line 'utf-16' (pgci reads UTF-8, and ASCII under "
             "latin-1, iso-8859, cp125x or ascii coding lines)",
             F);
    expect_src_error("# coding: utf-16\n" HEAD, PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:1:1: a UTF-8 byte order mark (unsupported: Python drops it, patchgen's comment "
             "reader keeps it on line 1)",
             F);
    expect_src_error("\xEF\xBB\xBF" HEAD, PGCI_EUNSUPPORTED, msg);
    /* a NUL byte: Python refuses the file ("source code string cannot contain null
     * bytes"), tree-sitter reads past it */
    static const char nul[] = HEAD "X = 1\n\0\nY = 2\n";
    pg_config *c = NULL;
    assert_int_equal(eval_src_len(nul, sizeof(nul) - 1, NULL, &c), PGCI_EINVALID);
    snprintf(msg, sizeof(msg),
             "%s:4:1: syntax error: a NUL byte (Python refuses it: \"source code string cannot "
             "contain null bytes\")",
             F);
    assert_string_equal(pgci_error_last(), msg);
    char deep[700];
    snprintf(deep, sizeof(deep), HEAD "def h():\n    return %.*s1%.*s\n", 201,
             "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
             "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
             "((((((((((((((((((((((((((((((((((((((((",
             201,
             ")))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
             "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
             "))))))))))))))))))))))))))))))))))))))))");
    snprintf(msg, sizeof(msg),
             "%s:4:212: brackets nested more than 200 deep (CPython refuses to compile it: too "
             "many nested parentheses)",
             F);
    expect_src_error(deep, PGCI_ELIMIT, msg);
    snprintf(msg, sizeof(msg),
             "%s:4:1: unsupported construct in patch config: @property (a decorator pgci does "
             "not know, under a patch decorator: it may return another object, whose source or "
             "__name__ patchgen reads instead)",
             F);
    expect_src_error(HEAD "@config.override_method(\"A.g\")\n@property\ndef g(self):\n    pass\n",
                     PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:6:19: unsupported construct in patch config: f (f is wrapped by @w (line 3), a "
             "decorator pgci does not know: it may return another object, whose source or "
             "__name__ patchgen reads instead)",
             F);
    expect_src_error(HEAD "@w\ndef f():\n    pass\nconfig.add_helper(f)\n", PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:5:1: unsupported construct in patch config: A.__name__ = \"B\" (patchgen reads "
             "__name__, __qualname__, __module__ and __wrapped__ of the objects it copies; pgci "
             "does not model changing them)",
             F);
    expect_src_error(HEAD "class A:\n    pass\nA.__name__ = \"B\"\n", PGCI_EUNSUPPORTED, msg);
    snprintf(msg, sizeof(msg),
             "%s:3:40: unsupported construct in patch config: Patch (Patch(...) objects are not "
             "supported: register patches with the PatchConfig methods or "
             "create_patch_from_external)",
             F);
    expect_src_error(HEAD "from veomni.patchgen.patch_spec import Patch\n", PGCI_EUNSUPPORTED, msg);
}

/* A config Python cannot compile is refused at Python's line (CPython 3.11's
 * compile() gave each line here, and the indentation errors' columns and
 * messages; tests/e2e/config_errors.sh asks python3 itself):
 * tree-sitter-python accepts the indentation errors and `x = 1 +` running on into
 * the next line, and put the others' errors far from Python's line. */
static void test_syntax_like_python(void **state)
{
    (void)state;
    static const struct {
        const char *src, *msg;
    } cases[] = {
        {"  y = 3\n", "3:2: syntax error: unexpected indent"},
        {"if True:\n\tx = 1\n        y = 2\n",
         "5:1: syntax error: inconsistent use of tabs and spaces in indentation"},
        {"if True:\n    if True:\n        x = 1\n  y = 2\n",
         "6:8: syntax error: unindent does not match any outer indentation level"},
        {"def f(x):\n    if x is None:\n\tx = 1\n    return x\n",
         "5:1: syntax error: inconsistent use of tabs and spaces in indentation"},
        {"def f():\n    a = 1\n      zz = 1\n    return a\n",
         "5:6: syntax error: unexpected indent"},
        {"if True:\nx = 1\n",
         "4:1: syntax error: expected an indented block after 'if' statement on line 3"},
        {"x = (1, 2\n\ny = 3\n", "3:5: syntax error: '(' was never closed"},
        {"x = \"\"\"abc\ny = 1\n",
         "3:5: syntax error: unterminated triple-quoted string literal (detected at line 4)"},
        {"x = f(\n    a=1,\ndef g(:\n    b=2,\n)\n", "3:6: syntax error: '(' was never closed"},
        {"x = f(\n    a=1,\na b c\n)\n", "5:5: syntax error: invalid syntax near 'c'"},
        {"x = 08\n", "3:5: syntax error: leading zeros in decimal integer literals are not "
                     "permitted; use an 0o prefix for octal integers"},
        {"def broken(:\nx = 1\n", "3:12: syntax error: invalid syntax (expected ')')"},
        {"x = 1 +\n\nconfig.add_import('os')\n",
         "3:8: syntax error: invalid syntax (the statement is cut off at the end of the line)"},
        {"print 'x'\n",
         "3:1: syntax error: invalid syntax (a Python 2 statement: missing parentheses)"},
        {"x = 'abc\n", "3:5: syntax error: unterminated string literal (detected at line 3)"},
        {"x = [1, 2)\n",
         "3:10: syntax error: closing parenthesis ')' does not match opening parenthesis '['"},
        {"x = 0x\n", "3:5: syntax error: invalid hexadecimal literal"},
        /* a Python 2 statement on a line the tokenizer refuses: CPython's TabError */
        {"if True:\n        x = 1\n\tprint 'x'\n",
         "5:1: syntax error: inconsistent use of tabs and spaces in indentation"},
        /* what CPython's compiler refuses in a tree that parsed (config_compile.c) */
        {"def f():\n    await g()\n", "4:5: syntax error: 'await' outside async function"},
        {"async def f():\n    g = lambda: await h()\n",
         "4:17: syntax error: 'await' outside async function"},
        {"class C:\n    return 2\n", "4:5: syntax error: 'return' outside function"},
        {"def f():\n    for i in x:\n        def g():\n            break\n",
         "6:13: syntax error: 'break' outside loop"},
        {"f(**d, 2)\n",
         "3:9: syntax error: positional argument follows keyword argument unpacking"},
        {"def f(a, *args: int, b, **a: int):\n    pass\n",
         "3:27: syntax error: duplicate argument 'a' in function definition"},
        {"x = [1]\n[x] += [2]\n",
         "4:1: syntax error: 'list' is an illegal expression for augmented assignment"},
        {"nonlocal x\n", "3:1: syntax error: nonlocal declaration not allowed at module level"},
        /* what its symbol table refuses (config_symtab.c) */
        {"def f():\n    nonlocal x\n", "4:5: syntax error: no binding for nonlocal 'x' found"},
        {"def f():\n    x = 1\n    def g():\n        global x\n        nonlocal x\n",
         "6:9: syntax error: name 'x' is nonlocal and global"},
        {"def f():\n    print(x)\n    global x\n",
         "5:5: syntax error: name 'x' is used prior to global declaration"},
        {"x = 1\nglobal x\n",
         "4:1: syntax error: name 'x' is assigned to before global declaration"},
        {"def f(x):\n    global x\n", "4:5: syntax error: name 'x' is parameter and global"},
        {"def f():\n    global x\n    x: int\n",
         "5:5: syntax error: annotated name 'x' can't be global"},
        {"[y := 1 for y in z]\n", "3:2: syntax error: assignment expression cannot rebind "
                                  "comprehension iteration variable 'y'"},
        {"class C:\n    [y := 1 for x in z]\n", "4:6: syntax error: assignment expression within a "
                                                "comprehension cannot be used in a class body"},
        {"[x for x in (y := z)]\n", "3:14: syntax error: assignment expression cannot be used in a "
                                    "comprehension iterable expression"},
        {"def f():\n    [(yield) for x in y]\n",
         "4:7: syntax error: 'yield' inside list comprehension"},
        /* its compiler and the parser's rules on targets (config_target.c) */
        {"def f():\n    [await x for x in y]\n",
         "4:5: syntax error: asynchronous comprehension outside of an asynchronous function"},
        {"*a = *b\n", "3:6: syntax error: can't use starred expression here"},
        {"a, *b, *c = d\n", "3:1: syntax error: multiple starred expressions in assignment"},
        {"for *a in b:\n    pass\n",
         "3:5: syntax error: starred assignment target must be in a list or tuple"},
        {"del (a, f())\n", "3:9: syntax error: cannot delete function call"},
        {"with a as (b, f()):\n    pass\n", "3:15: syntax error: cannot assign to function call"},
        {"f() = 1\n",
         "3:1: syntax error: cannot assign to function call here. Maybe you meant '==' "
         "instead of '='?"},
        {"x = f() = 1\n", "3:5: syntax error: cannot assign to function call"},
        {"x + 1 += 2\n", "3:1: syntax error: 'expression' is an illegal expression for augmented "
                         "assignment"},
        {"def f():\n    for g() in y:\n        pass\n    return 1\n",
         "4:9: syntax error: cannot assign to function call"},
        /* the stages in CPython's order: the symbol table's before the compiler's */
        {"return 1\ndef f(a, a):\n    pass\n",
         "4:10: syntax error: duplicate argument 'a' in function definition"},
        /* a logical line that continues the one before, deep in a def */
        {"def f():\n    if True:\n        y = g(1) +\n        z = 2\n",
         "5:19: syntax error: invalid syntax"},
    };
    char msg[300];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        strbuf sb = STRBUF_INIT;
        strbuf_adds(&sb, HEAD);
        strbuf_adds(&sb, cases[i].src);
        snprintf(msg, sizeof(msg), "/cfg/inline_patch_gen_config.py:%s", cases[i].msg);
        expect_src_error(sb.buf, PGCI_EINVALID, msg);
        strbuf_free(&sb);
    }
    /* ...and what Python compiles is not refused */
    static const char *const good[] = {
        "x = (1,\n  2)\ny = 1 + \\\n      2\nif x:  # c\n    pass\n",
        "x = 0x1F + 0o7 + 0b1 + 1e-5 + 1E+5 + 1_000 + 0.08 + .5 + 1j + 00 + 0_0\n",
        "y = [1 if x else 2]\ns = rb'\\'' + f\"{x!r:>{w}}\" + '''a\n  b''' + Rb\"x\"\n",
        "class A:\n\tdef f(self):\n\t\treturn 1\n",
        "x = 1e5 + 2", /* a number at the very end: nothing read past it (ASan, valgrind) */
        /* what the compile-stage rules must let through */
        "def f(a, *args: int, b, **kw: int):\n    pass\ndef g(x=1, *, y):\n    pass\n"
        "def h(x=1, /, y=2):\n    pass\n",
        "for i in x:\n    if i:\n        break\n    else:\n        continue\n"
        "while x:\n    try:\n        continue\n    finally:\n        pass\n",
        "async def f():\n    await g()\n    x = [await h() for h in y]\ng = lambda: (yield)\n",
        "f(*a, b=1, *c)\nf(a, *b, c=1, **d)\nf(**d, c=1)\nf(x for x in y)\n"
        "x += 1\nx.y += 1\nx[0] += 1\n",
        "class C:\n    for i in x:\n        break\n",
        /* ...and the symbol table's and the targets' rules */
        "def f():\n    def g():\n        nonlocal x\n    x = 1\n",
        "def f():\n    import os\n    global os\n",
        "def f():\n    (x): int\n    global x\n",
        "def f():\n    [y := 1 for x in z]\n    return y\n",
        "[i for i in z if [(j := 0) for q in r] for j in u]\n",
        "def f():\n    (await x for x in y)\n",
        "def f(x=1, **kw: int):\n    pass\n",
        "f(a=1,\\\n  b=2)\n(a) += 1\n(a.b) += 1\n",
        "*a, = b\na[*b] = 1\nx = *a, b\ndel (a), [b]\ntype(a).b = 1\n",
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        strbuf sb = STRBUF_INIT;
        strbuf_adds(&sb, HEAD);
        strbuf_adds(&sb, good[i]);
        pg_config_free(eval_ok(sb.buf));
        strbuf_free(&sb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_everything),
        cmocka_unit_test(test_siblings),
        cmocka_unit_test(test_eval_all),
        cmocka_unit_test(test_inline),
        cmocka_unit_test(test_parses_alone),
        cmocka_unit_test(test_error_fixtures),
        cmocka_unit_test(test_unsupported_fixtures),
        cmocka_unit_test(test_hostile_fixtures),
        cmocka_unit_test(test_inline_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_dump_empty),
        cmocka_unit_test(test_import_chain),
        cmocka_unit_test(test_python_reading),
        cmocka_unit_test(test_python_refusals),
        cmocka_unit_test(test_syntax_like_python),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
