/* Unit tests for the protocol checks (checks/protocol_*.c) on hand-built
 * workspaces in temporary directories: settings and their errors, model stems,
 * registration forms (direct imports, module aliases, negated flags, converter
 * loops), comment markers, copied sibling bodies, test tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "py/parse_set.h"
#include "tmp_pkg.h"

/* --- helpers ----------------------------------------------------------------- */

typedef struct tws {
    workspace ws;
    toml_value *doc;
} tws;

/* The def `name` of a config file (its source text), lines first..last. */
static pg_object def_in(const char *name, const char *file, const char *text, unsigned first,
                        unsigned last)
{
    return (pg_object){.name = name,
                       .module = "m",
                       .file = file,
                       .text = text,
                       .start_line = first,
                       .end_line = last,
                       .text_len = strlen(text)};
}

/* A workspace in a fresh temporary directory whose pyproject.toml is `toml`. */
static void tws_open(tws *t, const char *toml)
{
    memset(t, 0, sizeof(*t));
    strbuf d = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&d, "pgci-protocol-test"), 0);
    t->ws.root = strbuf_detach(&d, NULL);
    t->ws.pyproject_name = pgci_strdup("pyproject.toml");
    assert_int_equal(toml_parse(&t->doc, toml, strlen(toml), "pyproject.toml"), 0);
    t->ws.pgci = toml_get_path(t->doc, "tool.pgci");
}

static void tws_close(tws *t)
{
    fs_remove_tree(t->ws.root);
    free(t->ws.root);
    free(t->ws.pyproject_name);
    toml_free(t->doc);
}

static check_input input(const char *module, const char *config_path, const char *py_path)
{
    check_input in;
    memset(&in, 0, sizeof(in));
    in.module = module;
    in.config_path = config_path;
    in.py_path = py_path;
    in.checked_py = "";
    return in;
}

/* The input of m/q's GPU config, the one most cases check. */
static check_input q_gpu_input(void)
{
    return input("m.q.q_gpu_patch_gen_config", "m/q/q_gpu_patch_gen_config.py",
                 "m/q/generated/patched_q_gpu.py");
}

/* The run's parse set the checks get (NULL: none, as most cases run). */
static py_parse_set *run_parses;

static int run_check(const check_def *c, const tws *t, check_input *in, size_t n, findings *fs)
{
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.parses = run_parses;
    ctx.ws = &t->ws;
    ctx.inputs = in;
    ctx.n_inputs = n;
    ctx.tag = "v1.0.0";
    strbuf why = STRBUF_INIT;
    int r = check_run(c, &ctx, fs, &why);
    strbuf_free(&why);
    return r;
}

static const char *rule_of(const finding *f)
{
    return json_string_value(json_object_get(f->data, "rule"));
}

/* --- settings ---------------------------------------------------------------- */

static void test_settings_defaults_and_overrides(void **state)
{
    (void)state;
    proto_settings s;
    assert_int_equal(proto_settings_read(&s, NULL), 0);
    assert_string_equal(s.registry, "MODELING_REGISTRY");
    assert_string_equal(s.device_flag, "IS_NPU_AVAILABLE");
    assert_int_equal(s.retired.len, 3);
    assert_int_equal(s.headers, PROTO_MODE_AUTO);
    assert_null(s.toy_config_dir);
    assert_int_equal(s.python.len, 0);
    assert_int_equal(proto_sev(&s, "siblings.copied-body"), SEV_WARNING);
    assert_int_equal(proto_sev(&s, "registration.import"), SEV_ERROR);
    proto_settings_free(&s);

    tws t;
    tws_open(&t, "[tool.pgci]\npython = [\"uv\", \"run\", \"python\"]\n"
                 "[tool.pgci.protocol.rules]\n\"registration.import\" = \"warning\"\n"
                 "\"comments.header\" = false\n\"retired.file\" = \"off\"\n"
                 "[tool.pgci.protocol.registration]\nregistry = \"MY_REGISTRY\"\n"
                 "[tool.pgci.protocol.retired]\nfiles = [\"legacy_{model}.py\"]\n"
                 "[tool.pgci.protocol.comments]\nheaders = true\n"
                 "[tool.pgci.protocol.import]\ntimeout = 5\npath = [\"a\", \"b/{tag}\"]\n");
    assert_int_equal(proto_settings_read(&s, &t.ws), 0);
    assert_int_equal(s.python.len, 3);
    assert_string_equal(s.python.items[2], "python");
    assert_int_equal(proto_sev(&s, "registration.import"), SEV_WARNING);
    assert_int_equal(proto_sev(&s, "comments.header"), PROTO_OFF);
    assert_int_equal(proto_sev(&s, "retired.file"), PROTO_OFF);
    assert_string_equal(s.registry, "MY_REGISTRY");
    assert_int_equal(s.retired.len, 1);
    assert_string_equal(s.retired.items[0], "legacy_{model}.py");
    assert_int_equal(s.headers, PROTO_MODE_ON);
    assert_int_equal(s.import_timeout_s, 5);
    assert_int_equal(s.python_path.len, 2);
    proto_settings_free(&s);
    tws_close(&t);
}

static void expect_settings_error(const char *toml, const char *msg)
{
    tws t;
    tws_open(&t, toml);
    proto_settings s;
    assert_true(proto_settings_read(&s, &t.ws) < 0);
    if (!strstr(pgci_error_last(), msg))
        fail_msg("expected '%s' in '%s'", msg, pgci_error_last());
    pgci_error_clear();
    proto_settings_free(&s);
    tws_close(&t);
}

static void test_settings_errors(void **state)
{
    (void)state;
    expect_settings_error("[tool.pgci.protocol.rules]\n\"nope\" = \"error\"\n",
                          "pyproject.toml:2: [tool.pgci.protocol.rules] no rule 'nope'");
    expect_settings_error("[tool.pgci.protocol.rules]\n\"tests.logits\" = \"loud\"\n",
                          "expected error, warning, info or off, not 'loud'");
    expect_settings_error(
        "[tool.pgci.protocol.registration]\nregistry = 1\n",
        "pyproject.toml:2: [tool.pgci.protocol.registration] registry: expected a "
        "string, got integer");
    expect_settings_error("[tool.pgci.protocol.import]\ntimeout = 0\n",
                          "timeout: expected an integer");
    expect_settings_error("[tool.pgci.protocol.import]\njobs = 0\n", "jobs: expected an integer");
    expect_settings_error("[tool.pgci.protocol.comments]\nheaders = \"sometimes\"\n",
                          "headers: expected true, false or \"auto\"");
    expect_settings_error("[tool.pgci.protocol.nonsense]\nx = 1\n",
                          "[tool.pgci.protocol] has no setting 'nonsense'");
    expect_settings_error("[tool.pgci.protocol.tests]\nlogits = \"x\"\n",
                          "[tool.pgci.protocol.tests] has no setting 'logits'");
    expect_settings_error("[tool.pgci]\npython = []\n", "python: expected a command");
}

static void test_names(void **state)
{
    (void)state;
    proto_settings s;
    proto_settings_read(&s, NULL);
    char *m = proto_model_stem("a/qwen3_moe/qwen3_moe_npu_patch_gen_config.py", &s);
    assert_string_equal(m, "qwen3_moe");
    free(m);
    m = proto_model_stem("a/x/qwen2_5_vl_gpu_patch_gen_config.py", &s);
    assert_string_equal(m, "qwen2_5_vl");
    free(m);
    m = proto_model_stem("gemma3_patch_gen_config.py", &s);
    assert_string_equal(m, "gemma3");
    free(m);
    assert_true(proto_is_npu("a/q_npu_patch_gen_config.py", &s));
    assert_false(proto_is_npu("a/q_gpu_patch_gen_config.py", &s));
    assert_false(proto_is_npu("a/npu_patch.py", &s));
    m = proto_subst("x_{model}_{model}.py", "model", "q");
    assert_string_equal(m, "x_q_q.py");
    free(m);
    proto_settings_free(&s);
}

/* --- registration -------------------------------------------------------------- */

static const char pyproject[] = "[tool.pgci]\n";

static size_t registration(tws *t, const char *init, int npu, int converter, findings *fs)
{
    tmp_put(t->ws.root, "m/q/q_gpu_patch_gen_config.py", "\"\"\"patchgen x\"\"\"\n");
    if (npu)
        tmp_put(t->ws.root, "m/q/q_npu_patch_gen_config.py", "\"\"\"patchgen x\"\"\"\n");
    strbuf conv = STRBUF_INIT;
    fs_join(&conv, t->ws.root, "m/q/checkpoint_tensor_converter.py");
    remove(conv.buf);
    strbuf_free(&conv);
    if (converter)
        tmp_put(t->ws.root, "m/q/checkpoint_tensor_converter.py", "def c(m):\n    return m\n");
    tmp_put(t->ws.root, "m/q/__init__.py", init);
    check_input in[2] = {
        q_gpu_input(),
        input("m.q.q_npu_patch_gen_config", "m/q/q_npu_patch_gen_config.py",
              "m/q/generated/patched_q_npu.py"),
    };
    assert_int_equal(run_check(&check_protocol_registration, t, in, npu ? 2 : 1, fs), CHECK_RAN);
    return fs->len;
}

static void test_registration_forms(void **state)
{
    (void)state;
    tws t;
    tws_open(&t, pyproject);
    findings fs = FINDINGS_INIT;
    /* negated flag, module alias, converter in a loop over a list */
    const char *good = "from ..loader import MODELING_REGISTRY\n"
                       "from ..device import IS_NPU_AVAILABLE\n"
                       "\n"
                       "@MODELING_REGISTRY.register(\"q\")\n"
                       "def reg(architecture):\n"
                       "    from .checkpoint_tensor_converter import c\n"
                       "    if not IS_NPU_AVAILABLE:\n"
                       "        from .generated import patched_q_gpu as gen\n"
                       "    else:\n"
                       "        from .generated import patched_q_npu as gen\n"
                       "    QForCausalLM = gen.QForCausalLM\n"
                       "    QModel = gen.QModel\n"
                       "    for cls in [QForCausalLM, QModel]:\n"
                       "        cls._create_checkpoint_tensor_converter = staticmethod(c)\n"
                       "    if 'Causal' in architecture:\n"
                       "        return QForCausalLM\n"
                       "    return QModel\n";
    assert_int_equal(registration(&t, good, 1, 1, &fs), 0);

    /* the alias form without the converter on QModel */
    char *bad = pgci_strdup(good);
    char *loop = strstr(bad, "[QForCausalLM, QModel]");
    memcpy(loop, "[QForCausalLM,       ]", strlen("[QForCausalLM, QModel]"));
    assert_int_equal(registration(&t, bad, 1, 1, &fs), 1);
    assert_string_equal(fs.items[0]->title,
                        "returns QModel without _create_checkpoint_tensor_converter = "
                        "staticmethod(...) although m/q/checkpoint_tensor_converter.py exists");
    assert_int_equal(fs.items[0]->line, 17);
    assert_string_equal(rule_of(fs.items[0]), "registration.converter");
    findings_free(&fs);
    free(bad);

    /* the GPU module under the flag: both imports in the wrong place */
    const char *swapped = "@MODELING_REGISTRY.register(\"q\")\n"
                          "def reg(a):\n"
                          "    if IS_NPU_AVAILABLE:\n"
                          "        from .generated.patched_q_gpu import QModel\n"
                          "    else:\n"
                          "        from .generated.patched_q_npu import QModel\n"
                          "    return QModel\n";
    findings fs2 = FINDINGS_INIT;
    assert_int_equal(registration(&t, swapped, 1, 0, &fs2), 2);
    findings_sort(&fs2);
    assert_int_equal(fs2.items[0]->line, 4);
    assert_string_equal(
        fs2.items[0]->title,
        "imports the GPU module .generated.patched_q_gpu under `if IS_NPU_AVAILABLE:`");
    assert_int_equal(fs2.items[1]->line, 6);
    assert_string_equal(
        fs2.items[1]->title,
        "imports .generated.patched_q_npu in the GPU branch: the NPU module belongs "
        "under `if IS_NPU_AVAILABLE:`");
    findings_free(&fs2);

    /* the NPU module under an `elif IS_NPU_AVAILABLE:` after a CUDA branch (VeOmni's
     * qwen3_5 packages, March-May 2026) is under the flag; the GPU module under the
     * `if` before it is not */
    const char *elif = "@MODELING_REGISTRY.register(\"q\")\n"
                       "def reg(a):\n"
                       "    if IS_CUDA_AVAILABLE:\n"
                       "        from .generated.patched_q_gpu import QModel\n"
                       "    elif IS_NPU_AVAILABLE:\n"
                       "        from .generated.patched_q_npu import QModel\n"
                       "    return QModel\n";
    findings fs_elif = FINDINGS_INIT;
    assert_int_equal(registration(&t, elif, 1, 0, &fs_elif), 0);
    /* ... and the GPU module in an `elif` of the flag's `else` side is not under it */
    const char *elif_swapped = "@MODELING_REGISTRY.register(\"q\")\n"
                               "def reg(a):\n"
                               "    if IS_CUDA_AVAILABLE:\n"
                               "        from .generated.patched_q_npu import QModel\n"
                               "    elif IS_NPU_AVAILABLE:\n"
                               "        from .generated.patched_q_gpu import QModel\n"
                               "    return QModel\n";
    assert_int_equal(registration(&t, elif_swapped, 1, 0, &fs_elif), 2);
    findings_sort(&fs_elif);
    assert_int_equal(fs_elif.items[0]->line, 6);
    assert_string_equal(
        fs_elif.items[0]->title,
        "imports the GPU module .generated.patched_q_gpu under `if IS_NPU_AVAILABLE:`");
    assert_int_equal(fs_elif.items[1]->line, 4);
    assert_string_equal(fs_elif.items[1]->title,
                        "imports .generated.patched_q_npu unconditionally: the NPU module "
                        "belongs under `if IS_NPU_AVAILABLE:`");
    findings_free(&fs_elif);

    /* a wrong model type, and a module no config generates; imports outside the
     * registered function (a config registry) are not the modeling's */
    const char *stray = "@MODEL_CONFIG_REGISTRY.register(\"q\")\n"
                        "def cfg():\n"
                        "    from transformers.models.q.configuration_q import QConfig\n"
                        "    return QConfig\n"
                        "@MODELING_REGISTRY.register(\"other\")\n"
                        "def reg(a):\n"
                        "    from .generated.patched_q_gpu import QModel\n"
                        "    from .generated.patched_old import QOld\n"
                        "    return QModel\n";
    findings fs3 = FINDINGS_INIT;
    assert_int_equal(registration(&t, stray, 0, 0, &fs3), 2);
    findings_sort(&fs3);
    assert_int_equal(fs3.items[0]->line, 5);
    assert_string_equal(fs3.items[0]->title,
                        "registers \"other\", not the model type of q configs (\"q\")");
    assert_int_equal(fs3.items[1]->line, 8);
    assert_string_equal(fs3.items[1]->title,
                        "imports .generated.patched_old, which no config in m/q generates");
    findings_free(&fs3);

    /* the generated module imported once at module level: fine */
    findings fs6 = FINDINGS_INIT;
    assert_int_equal(registration(&t,
                                  "from .generated.patched_q_gpu import QModel\n"
                                  "@MODELING_REGISTRY.register(\"q\")\n"
                                  "def reg(a):\n"
                                  "    return QModel\n",
                                  0, 0, &fs6),
                     0);
    findings_free(&fs6);

    /* upstream imports: a class the source module defines is flagged unless the
     * config excludes it; one it does not define (a base class) is not */
    tmp_put(t.ws.root, "m/q/__init__.py",
            "@MODELING_REGISTRY.register(\"q\")\n"
            "def reg(a):\n"
            "    from transformers.models.q.modeling_q import QTalker, QVision\n"
            "    from transformers.modeling_utils import PreTrainedModel\n"
            "    from .generated.patched_q_gpu import QModel\n"
            "    return QModel\n");
    static const char up[] = "class QTalker(nn.Module):\n    pass\n\n\nclass QVision:\n    pass\n";
    const char *excl[] = {"QTalker"};
    pg_config ec;
    memset(&ec, 0, sizeof(ec));
    ec.exclude.items = excl;
    ec.exclude.len = 1;
    check_input ein = q_gpu_input();
    ein.upstream = up;
    ein.upstream_len = strlen(up);
    ein.cfg = &ec;
    findings fs5 = FINDINGS_INIT;
    assert_int_equal(run_check(&check_protocol_registration, &t, &ein, 1, &fs5), CHECK_RAN);
    assert_int_equal(fs5.len, 1);
    assert_int_equal(fs5.items[0]->line, 3);
    assert_string_equal(fs5.items[0]->title,
                        "imports QVision from transformers.models.q.modeling_q instead of the "
                        "generated module (it is not excluded from the generated file)");
    findings_free(&fs5);

    /* no __init__.py at all */
    strbuf p = STRBUF_INIT;
    fs_join(&p, t.ws.root, "m/q/__init__.py");
    remove(p.buf);
    strbuf_free(&p);
    findings fs4 = FINDINGS_INIT;
    check_input in = q_gpu_input();
    assert_int_equal(run_check(&check_protocol_registration, &t, &in, 1, &fs4), CHECK_RAN);
    assert_int_equal(fs4.len, 1);
    assert_string_equal(fs4.items[0]->title,
                        "m/q has patch configs but no __init__.py registering the model with "
                        "MODELING_REGISTRY");
    findings_free(&fs4);
    tws_close(&t);
}

/* --- version gates ------------------------------------------------------------- */

/* The version-gated registrations below: m/q's __init__.py is GATED_HEAD, an `if`
 * whose branch imports the generated classes (GATED_NEW), a branch that takes the
 * legacy path (GATED_LEGACY), GATED_TAIL; the legacy path's files modeling_q.py and
 * gpu_patch.py are in the workspace (gated_open). */
#define GATED_HEAD                                                                                 \
    "from ..loader import MODELING_REGISTRY\n"                                                     \
    "from ..utils import is_transformers_version_greater_or_equal_to\n"                            \
    "\n"                                                                                           \
    "@MODELING_REGISTRY.register(\"q\")\n"                                                         \
    "def reg(architecture):\n"
#define GATED_NEW "        from .generated.patched_q_gpu import QForCausalLM, QModel\n"
#define GATED_LEGACY                                                                               \
    "        from transformers import QForCausalLM, QModel\n"                                      \
    "\n"                                                                                           \
    "        from .modeling_q import apply_legacy_patch\n"                                         \
    "\n"                                                                                           \
    "        apply_legacy_patch()\n"
#define GATED_TAIL                                                                                 \
    "    if 'Causal' in architecture:\n"                                                           \
    "        return QForCausalLM\n"                                                                \
    "    return QModel\n"

static void gated_open(tws *t)
{
    tws_open(t, pyproject);
    tmp_put(t->ws.root, "m/q/modeling_q.py", "from .gpu_patch import apply_legacy_patch\n");
    tmp_put(t->ws.root, "m/q/gpu_patch.py", "def apply_legacy_patch():\n    pass\n");
}

/* How many files the retired check finds in t for m/q's GPU config. */
static size_t gated_retired(tws *t, findings *fs)
{
    check_input in = q_gpu_input();
    assert_int_equal(run_check(&check_protocol_retired, t, &in, 1, fs), CHECK_RAN);
    size_t n = fs->len;
    findings_free(fs);
    return n;
}

/* `if is_transformers_version_greater_or_equal_to("X"): <generated> else: <legacy>`
 * (VeOmni's packages while its pins spanned 4.57 and 5.x): at a tag the test holds,
 * the legacy branch is dead, and neither its transformers imports nor the retired
 * files only it imports (directly or through each other) are errors; at a tag it
 * does not hold, the legacy path is what runs. */
static void test_version_gated_legacy(void **state)
{
    (void)state;
    tws t;
    gated_open(&t);
    findings fs = FINDINGS_INIT;
    const char *init =
        GATED_HEAD "    if is_transformers_version_greater_or_equal_to(\"%s\"):\n" GATED_NEW
                   "    else:\n" GATED_LEGACY GATED_TAIL;
    char src[1024];
    /* run at v1.0.0: the test holds for 0.9 and 1.0.0, not for 2.0 */
    static const char *const gates[] = {"0.9", "1.0.0", "2.0"};
    for (int g = 0; g < 3; g++) {
        snprintf(src, sizeof(src), init, gates[g]);
        size_t errs = registration(&t, src, 0, 0, &fs);
        if (g < 2) {
            assert_int_equal(errs, 0);
        } else {
            assert_true(errs >= 1);
            assert_string_equal(fs.items[0]->title,
                                "the registered classes do not come from .generated.patched_q_gpu "
                                "(what m/q/q_gpu_patch_gen_config.py generates)");
        }
        findings_free(&fs);
        /* modeling_q.py and gpu_patch.py: kept for the older pin, or retired when
         * the legacy path is the one that runs */
        assert_int_equal(gated_retired(&t, &fs), g < 2 ? 0 : 2);
    }
    tws_close(&t);
}

/* The registration and retired-module rules read a package's __init__.py through
 * the run's parse set: one parse for both, the same findings as without a set. */
static void test_init_parsed_once(void **state)
{
    (void)state;
    tws t;
    gated_open(&t);
    char src[1024];
    snprintf(src, sizeof(src),
             GATED_HEAD "    if is_transformers_version_greater_or_equal_to(\"%s\"):\n" GATED_NEW
                        "    else:\n" GATED_LEGACY GATED_TAIL,
             "2.0");
    findings fs = FINDINGS_INIT;
    size_t alone[2] = {registration(&t, src, 0, 0, &fs), 0};
    findings_free(&fs);
    alone[1] = gated_retired(&t, &fs);
    run_parses = py_parse_set_new();
    assert_int_equal(registration(&t, src, 0, 0, &fs), alone[0]);
    findings_free(&fs);
    assert_int_equal(gated_retired(&t, &fs), alone[1]);
    assert_true(alone[0] >= 1 && alone[1] == 2);
    size_t parses, reused;
    py_parse_set_counts(run_parses, &parses, &reused);
    assert_int_equal(parses, 1);
    assert_int_equal(reused, 1);
    py_parse_set_free(run_parses);
    run_parses = NULL;
    tws_close(&t);
}

/* The same test with an `elif`: the clauses are weighed in order at the tag, the
 * first that holds runs and the rest are dead; a clause before it whose test the
 * tag does not decide leaves the statement as it was (every branch read). */
static void test_version_gated_elif(void **state)
{
    (void)state;
    tws t;
    gated_open(&t);
    findings fs = FINDINGS_INIT;
    const char *init =
        GATED_HEAD "    if %s(\"%s\"):\n" GATED_NEW
                   "    elif is_transformers_version_greater_or_equal_to(\"0.5\"):\n" GATED_LEGACY
                   "    else:\n"
                   "        raise ImportError(\"too old\")\n" GATED_TAIL;
    char src[1024];
    /* at v1.0.0: the first test holds for 1.0.0 (the elif is dead), not for 2.0
     * (the elif's legacy path runs); an undecided first test (a flag) decides
     * nothing: every branch is read, as before, the legacy files in use */
    static const char *const fn[] = {"is_transformers_version_greater_or_equal_to",
                                     "is_transformers_version_greater_or_equal_to", "some_flag"};
    static const char *const gates[] = {"1.0.0", "2.0", "1.0.0"};
    for (int g = 0; g < 3; g++) {
        snprintf(src, sizeof(src), init, fn[g], gates[g]);
        size_t errs = registration(&t, src, 0, 0, &fs);
        assert_int_equal(errs > 0, g == 1);
        findings_free(&fs);
        assert_int_equal(gated_retired(&t, &fs), g == 0 ? 0 : 2);
    }
    tws_close(&t);
}

/* --- comments ------------------------------------------------------------------ */

/* Writes src as m/q's GPU config in t, its absolute path into abs; c: a config of
 * that file with docstring at line 1, no patches yet. Returns its check input. */
static check_input q_config_of(tws *t, const char *src, const char *docstring, strbuf *abs,
                               pg_config *c)
{
    tmp_put(t->ws.root, "m/q/q_gpu_patch_gen_config.py", src);
    fs_join(abs, t->ws.root, "m/q/q_gpu_patch_gen_config.py");
    memset(c, 0, sizeof(*c));
    c->file = abs->buf;
    c->docstring = docstring;
    c->docstring_line = 1;
    check_input in = q_gpu_input();
    in.cfg = c;
    return in;
}

static void test_comment_markers(void **state)
{
    (void)state;
    tws t;
    tws_open(&t, pyproject);
    const char *src = "\"\"\"Regen: patchgen m.q.q_gpu_patch_gen_config\"\"\"\n" /* 1 */
                      "# ====\n"                                                 /* 2 */
                      "# Patch: Q.forward (extended)\n"                          /* 3 */
                      "# 1. first\n"                                             /* 4 */
                      "# 2. second\n"                                            /* 5 */
                      "# 3. never marked\n"                                      /* 6 */
                      "# ====\n"                                                 /* 7 */
                      "@config.override_method(\"Q.forward\")\n"                 /* 8 */
                      "def f(self):\n"                                           /* 9 */
                      "    # --- Patch.1: opening with a title ---\n"            /* 10 */
                      "    x = 1\n"                                              /* 11 */
                      "    # --- Patch.1 ---\n"                                  /* 12 */
                      "    # --- Patch.2 ---\n"                                  /* 13 */
                      "    # --- Patch.4 ---\n"                                  /* 14 */
                      "    # --- Patch.4 ---\n"                                  /* 15 */
                      "    return x\n";                                          /* 16 */
    strbuf abs = STRBUF_INIT;
    pg_config c;
    /* the module docstring, as the evaluator records it */
    check_input in = q_config_of(&t, src, "Regen: patchgen m.q.q_gpu_patch_gen_config", &abs, &c);
    pg_object o;
    memset(&o, 0, sizeof(o));
    o.name = "f";
    o.file = abs.buf;
    o.text = src;
    o.text_len = strlen(src);
    o.start_line = 8;
    o.end_line = 16;
    pg_patch p;
    memset(&p, 0, sizeof(p));
    p.type = PG_METHOD_OVERRIDE;
    p.target = "Q.forward";
    p.replacement = &o;
    VEC_PUSH(&c.patches, p);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run_check(&check_protocol_comments, &t, &in, 1, &fs), CHECK_RAN);
    findings_sort(&fs);
    assert_int_equal(fs.len, 3);
    assert_int_equal(fs.items[0]->line, 6);
    assert_string_equal(fs.items[0]->title,
                        "header item 3 of Q.forward has no Patch.3 marker in the patch body");
    assert_int_equal(fs.items[1]->line, 13);
    assert_string_equal(fs.items[1]->title, "marker Patch.2 opens here and is never closed");
    assert_int_equal(fs.items[2]->line, 14);
    assert_string_equal(fs.items[2]->title,
                        "marker Patch.4 is not an item of the '# Patch: Q.forward' header");
    findings_free(&fs);

    /* the regeneration command for another module; a header naming another target */
    char *src2 = pgci_strdup(src);
    memcpy(strstr(src2, "m.q.q_gpu"), "m.x.q_gpu", 9);
    memcpy(strstr(src2, "Patch: Q.forward"), "Patch: R.forward", 16);
    tmp_put(t.ws.root, "m/q/q_gpu_patch_gen_config.py", src2);
    o.text = src2;
    c.docstring = "Regen: patchgen m.x.q_gpu_patch_gen_config";
    assert_int_equal(run_check(&check_protocol_comments, &t, &in, 1, &fs), CHECK_RAN);
    findings_sort(&fs);
    assert_int_equal(fs.len, 5);
    assert_int_equal(fs.items[0]->line, 1);
    assert_string_equal(fs.items[0]->title, "the docstring does not carry the regeneration command "
                                            "'patchgen m.q.q_gpu_patch_gen_config'");
    assert_int_equal(fs.items[1]->line, 3);
    assert_string_equal(fs.items[1]->title, "the header '# Patch: R.forward (extended)' does not "
                                            "name the patch below it: write '# Patch: Q.forward'");
    findings_free(&fs);

    /* {dir}: the whole command, output directory included */
    tws t2;
    tws_open(&t2, "[tool.pgci.protocol.comments]\n"
                  "regen_command = \"patchgen {module} -o {dir}/generated --diff\"\n");
    tmp_put(t2.ws.root, "m/q/q_gpu_patch_gen_config.py",
            "\"\"\"patchgen m.q.q_gpu_patch_gen_config -o m/q/generated --diff\"\"\"\n");
    check_input in2 = q_gpu_input();
    assert_int_equal(run_check(&check_protocol_comments, &t2, &in2, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 0);
    tmp_put(t2.ws.root, "m/q/q_gpu_patch_gen_config.py",
            "\"\"\"patchgen m.q.q_gpu_patch_gen_config -o m/x/generated --diff\"\"\"\n");
    assert_int_equal(run_check(&check_protocol_comments, &t2, &in2, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title,
                        "the docstring does not carry the regeneration command 'patchgen "
                        "m.q.q_gpu_patch_gen_config -o m/q/generated --diff'");
    findings_free(&fs);
    tws_close(&t2);
    free(src2);
    VEC_FREE(&c.patches);
    strbuf_free(&abs);
    tws_close(&t);
}

/* A shared header: "Model.{a,b}" covers two patches; a header above a helper class
 * covers the patch below the helper; another patch without one is reported
 * (three of four have a header: required). */
static void test_shared_headers(void **state)
{
    (void)state;
    tws t;
    tws_open(&t, pyproject);
    const char *src = "\"\"\"patchgen m.q.q_gpu_patch_gen_config\"\"\"\n" /* 1 */
                      "# Patch: M.{get_a, get_b}\n"                       /* 2 */
                      "@config.override_method(\"M.get_a\")\n"            /* 3 */
                      "def a(self):\n"                                    /* 4 */
                      "    return 1\n"                                    /* 5 */
                      "@config.override_method(\"M.get_b\")\n"            /* 6 */
                      "def b(self):\n"                                    /* 7 */
                      "    return 2\n"                                    /* 8 */
                      "# Patch: M.forward (new)\n"                        /* 9 */
                      "class _Helper:\n"                                  /* 10 */
                      "    pass\n"                                        /* 11 */
                      "@config.override_method(\"M.forward\")\n"          /* 12 */
                      "def f(self):\n"                                    /* 13 */
                      "    return 3\n"                                    /* 14 */
                      "@config.override_method(\"M.get_c\")\n"            /* 15 */
                      "def c(self):\n"                                    /* 16 */
                      "    return 4\n";                                   /* 17 */
    strbuf abs = STRBUF_INIT;
    pg_config c;
    check_input in = q_config_of(&t, src, "patchgen m.q.q_gpu_patch_gen_config", &abs, &c);
    pg_object objs[4] = {
        def_in("a", abs.buf, src, 3, 5),
        def_in("b", abs.buf, src, 6, 8),
        def_in("f", abs.buf, src, 12, 14),
        def_in("c", abs.buf, src, 15, 17),
    };
    const char *targets[4] = {"M.get_a", "M.get_b", "M.forward", "M.get_c"};
    for (int i = 0; i < 4; i++) {
        pg_patch p;
        memset(&p, 0, sizeof(p));
        p.target = targets[i];
        p.replacement = &objs[i];
        VEC_PUSH(&c.patches, p);
    }
    findings fs = FINDINGS_INIT;
    assert_int_equal(run_check(&check_protocol_comments, &t, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_int_equal(fs.items[0]->line, 15);
    assert_string_equal(fs.items[0]->title,
                        "the patch for M.get_c has no '# Patch: M.get_c' header "
                        "with numbered items above it");
    findings_free(&fs);
    VEC_FREE(&c.patches);
    strbuf_free(&abs);
    tws_close(&t);
}

/* --- siblings -------------------------------------------------------------------- */

static void test_copied_body(void **state)
{
    (void)state;
    tws t;
    tws_open(&t, pyproject);
    const char *gpu = "@config.override_method(\"Q.forward\")\n"
                      "def q_forward_patched(self, x):\n"
                      "    return self.q_forward_patched(x) + 1\n";
    const char *npu = "\n"
                      "@config.override_method(\"Q.forward\", description=\"NPU\")\n"
                      "def q_npu_forward_patched(self, x):\n"
                      "    return self.q_forward_patched(x) + 1\n";
    tmp_put(t.ws.root, "m/q/q_gpu_patch_gen_config.py", gpu);
    tmp_put(t.ws.root, "m/q/q_npu_patch_gen_config.py", npu);
    strbuf ga = STRBUF_INIT, na = STRBUF_INIT;
    fs_join(&ga, t.ws.root, "m/q/q_gpu_patch_gen_config.py");
    fs_join(&na, t.ws.root, "m/q/q_npu_patch_gen_config.py");
    pg_object go = def_in("q_forward_patched", ga.buf, gpu, 1, 3);
    pg_object no = def_in("q_npu_forward_patched", na.buf, npu, 2, 4);
    pg_config gc, nc;
    memset(&gc, 0, sizeof(gc));
    memset(&nc, 0, sizeof(nc));
    gc.file = ga.buf;
    nc.file = na.buf;
    pg_patch p;
    memset(&p, 0, sizeof(p));
    p.target = "Q.forward";
    p.replacement = &go;
    VEC_PUSH(&gc.patches, p);
    p.replacement = &no;
    VEC_PUSH(&nc.patches, p);
    check_input in[2] = {
        input("m.q.q_gpu_patch_gen_config", "m/q/q_gpu_patch_gen_config.py",
              "m/q/generated/p_gpu.py"),
        input("m.q.q_npu_patch_gen_config", "m/q/q_npu_patch_gen_config.py",
              "m/q/generated/p_npu.py"),
    };
    in[0].cfg = &gc;
    in[1].cfg = &nc;
    findings fs = FINDINGS_INIT;
    assert_int_equal(run_check(&check_protocol_siblings, &t, in, 2, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_int_equal(fs.items[0]->sev, SEV_WARNING);
    assert_int_equal(fs.items[0]->line, 2);
    assert_string_equal(fs.items[0]->title,
                        "q_npu_forward_patched copies the GPU patch q_forward_patched "
                        "(q_gpu_patch_gen_config.py:1) verbatim: import it from the GPU config "
                        "instead");
    findings_free(&fs);

    /* a body that differs is not a copy; the NPU generated file missing is */
    no.text = "\n@config.override_method(\"Q.forward\")\ndef q_npu_forward_patched(self, x):\n"
              "    return x + 2\n";
    in[1].checked_py = NULL;
    assert_int_equal(run_check(&check_protocol_siblings, &t, in, 2, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_string_equal(rule_of(fs.items[0]), "siblings.pair");
    assert_string_equal(fs.items[0]->title,
                        "m/q/generated/p_npu.py is not checked in while its sibling's "
                        "m/q/generated/p_gpu.py is");
    findings_free(&fs);

    /* an NPU config alone */
    strbuf gp = STRBUF_INIT;
    fs_join(&gp, t.ws.root, "m/q/q_gpu_patch_gen_config.py");
    remove(gp.buf);
    strbuf_free(&gp);
    assert_int_equal(run_check(&check_protocol_siblings, &t, &in[1], 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title,
                        "NPU config without its GPU sibling q_gpu_patch_gen_config.py");
    findings_free(&fs);
    VEC_FREE(&gc.patches);
    VEC_FREE(&nc.patches);
    strbuf_free(&ga);
    strbuf_free(&na);
    tws_close(&t);
}

/* --- tests tables ------------------------------------------------------------------ */

static void test_tables(void **state)
{
    (void)state;
    tws t;
    tws_open(&t, "[tool.pgci.protocol.tests]\ntoy_config_dir = \"tests/toy\"\n"
                 "registry_test = \"tests/t.py\"\nregistry_marker = \"cases = [\"\n");
    tmp_put(t.ws.root, "tests/toy/Qwen3Moe_toy/config.json", "{}");
    tmp_put(t.ws.root, "tests/t.py",
            "other = ['qwen3']\n"
            "cases = [\n"
            "    './tests/toy/Qwen3Moe_toy',\n"
            "]\n"
            "later = ['qwen3']\n");
    check_input in[2] = {
        input("m.qwen3.a", "m/qwen3/qwen3_gpu_patch_gen_config.py", "m/qwen3/generated/p.py"),
        input("m.qwen3_moe.a", "m/qwen3_moe/qwen3_moe_gpu_patch_gen_config.py",
              "m/qwen3_moe/generated/p.py"),
    };
    findings fs = FINDINGS_INIT;
    assert_int_equal(run_check(&check_protocol_tests, &t, in, 2, &fs), CHECK_RAN);
    findings_sort(&fs);
    /* qwen3: no toy dir, and not in the table (the other lists do not count, nor
     * does the Qwen3Moe_toy entry); qwen3_moe: found through its toy directory */
    assert_int_equal(fs.len, 2);
    assert_string_equal(fs.items[0]->title, "qwen3 is not in the registry test table (cases = [)");
    assert_int_equal(fs.items[0]->line, 2);
    assert_string_equal(fs.items[1]->title,
                        "no toy config directory tests/toy/qwen3_toy for qwen3");
    findings_free(&fs);
    tws_close(&t);

    /* nothing configured: nothing checked */
    tws_open(&t, pyproject);
    assert_int_equal(run_check(&check_protocol_tests, &t, in, 2, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 0);
    tws_close(&t);
}

static void test_no_workspace(void **state)
{
    (void)state;
    const check_def *all[] = {&check_protocol_registration, &check_protocol_retired,
                              &check_protocol_comments,     &check_protocol_siblings,
                              &check_protocol_tests,        &check_protocol_import};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        check_ctx ctx;
        memset(&ctx, 0, sizeof(ctx));
        findings fs = FINDINGS_INIT;
        strbuf why = STRBUF_INIT;
        assert_int_equal(check_run(all[i], &ctx, &fs, &why), CHECK_RAN);
        assert_int_equal(fs.len, 0);
        strbuf_free(&why);
        assert_non_null(check_find(all[i]->id));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings_defaults_and_overrides),
        cmocka_unit_test(test_settings_errors),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_registration_forms),
        cmocka_unit_test(test_version_gated_legacy),
        cmocka_unit_test(test_version_gated_elif),
        cmocka_unit_test(test_init_parsed_once),
        cmocka_unit_test(test_comment_markers),
        cmocka_unit_test(test_shared_headers),
        cmocka_unit_test(test_copied_body),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_no_workspace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
