/* Unit tests for the gate checks on hand-built contexts: drift, diff-consistency
 * (with difflib as the source of truth, itself proven against Python), and
 * ruff-equivalence in both modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "checks/checks.h"
#include "checks/near_miss.h"
#include "patchgen/difflib.h"

static const char upstream[] = "import os\n\n\ndef f(x):\n    return x\n";
static const char regen[] = "import os\n\n\ndef f(x):\n    return x + 1\n";

static check_input base_input(strbuf *diff)
{
    difflib_patchgen_diff(diff, upstream, strlen(upstream), regen, strlen(regen), "a/t/m.py",
                          "b/p_m.py");
    check_input in = {0};
    in.module = "demo.m_patch_gen_config";
    in.source_module = "t.m";
    in.py_path = "demo/generated/p_m.py";
    in.diff_path = "demo/generated/p_m.diff";
    in.upstream = upstream;
    in.upstream_len = strlen(upstream);
    in.raw = regen;
    in.raw_len = strlen(regen);
    in.expected_py = regen;
    in.expected_py_len = strlen(regen);
    in.expected_diff = diff->buf;
    in.expected_diff_len = diff->len;
    in.checked_py = regen;
    in.checked_py_len = strlen(regen);
    in.checked_diff = diff->buf;
    in.checked_diff_len = diff->len;
    return in;
}

static int fake_normalize(void *arg, const char *path, const char *src, size_t len, strbuf *out)
{
    (void)arg;
    (void)path;
    /* a stand-in "formatter": turns tabs into four spaces */
    for (size_t i = 0; i < len; i++)
        strbuf_adds(out, src[i] == '\t' ? "    " : (char[]){src[i], 0});
    return 0;
}

static int run(const check_def *c, check_input *in, int with_ruff, findings *fs)
{
    check_ctx ctx = {0};
    ctx.inputs = in;
    ctx.n_inputs = 1;
    if (with_ruff) {
        ctx.ruff = "ruff";
        ctx.normalize = fake_normalize;
    }
    strbuf why = STRBUF_INIT;
    int r = check_run(c, &ctx, fs, &why);
    strbuf_free(&why);
    return r;
}

static void test_clean(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    findings fs = FINDINGS_INIT;
    /* the checks that read only the regeneration (protocol checks need a workspace) */
    const check_def *const core[] = {&check_drift, &check_ruff_equivalence, &check_diff_consistency,
                                     &check_names, &check_targets};
    for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
        assert_int_equal(run(core[i], &in, 1, &fs), CHECK_RAN);
    /* only the note that `import os` is unused */
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->check, "names");
    assert_int_equal(fs.items[0]->sev, SEV_INFO);
    assert_non_null(strstr(fs.items[0]->title, "os"));
    findings_free(&fs);
    strbuf_free(&diff);
}

static void test_drift_hand_edit(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    const char *edited = "import os\n\n\ndef f(x):\n    return x + 2\n";
    in.checked_py = edited;
    in.checked_py_len = strlen(edited);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_drift, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title,
                        "demo/generated/p_m.py differs from a fresh regeneration");
    assert_int_equal(fs.items[0]->line, 5);
    assert_non_null(strstr(fs.items[0]->detail, "-    return x + 2\n+    return x + 1\n"));
    /* the .diff no longer matches the edited .py either */
    assert_int_equal(run(&check_diff_consistency, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 2);
    assert_string_equal(fs.items[1]->check, "diff-consistency");
    /* and structurally it is a real change */
    assert_int_equal(run(&check_ruff_equivalence, &in, 0, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 3);
    assert_non_null(strstr(fs.items[2]->title, "(structural mode)"));
    assert_int_equal(fs.items[2]->line, 5);
    findings_free(&fs);
    strbuf_free(&diff);
}

/* --no-ruff is a choice: drift is not configured, not a check that failed to run */
static void test_drift_without_ruff_not_configured(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_drift, &in, 0, &fs), CHECK_NOT_CONFIGURED);
    findings_free(&fs);
    strbuf_free(&diff);
}

static void test_stale_diff(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    /* the .py was re-formatted by hand, the .diff kept: both checks see it */
    const char *reformatted = "import os\n\n\ndef f(x):\n    return (x + 1)\n";
    in.checked_py = reformatted;
    in.checked_py_len = strlen(reformatted);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_diff_consistency, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_non_null(strstr(fs.items[0]->title, "is not the diff of upstream against"));
    /* structurally the same code: no structural finding */
    assert_int_equal(run(&check_ruff_equivalence, &in, 0, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    findings_free(&fs);
    strbuf_free(&diff);
}

static void test_not_a_fixed_point(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    const char *tabbed = "import os\n\n\ndef f(x):\n\treturn x + 1\n";
    in.checked_py = tabbed;
    in.checked_py_len = strlen(tabbed);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_ruff_equivalence, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 2);
    assert_non_null(strstr(fs.items[0]->title, "is not a ruff fixed point"));
    assert_int_equal(fs.items[1]->sev, SEV_INFO);
    assert_non_null(strstr(fs.items[1]->title, "drifted only in formatting"));
    findings_free(&fs);
    strbuf_free(&diff);
}

static void test_missing_files(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    in.checked_py = NULL;
    in.checked_diff = NULL;
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_drift, &in, 1, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 2);
    assert_non_null(strstr(fs.items[0]->title, "is missing"));
    findings_free(&fs);
    strbuf_free(&diff);
}

/* Near misses: one swap, one insertion; names the config adds on purpose are far. */
static void test_near_miss(void **state)
{
    (void)state;
    assert_int_equal(near_miss_distance("fowrard", "forward", 2), 1);
    assert_int_equal(near_miss_distance("apply_rotary_pos_embb", "apply_rotary_pos_emb", 2), 1);
    assert_int_equal(near_miss_distance("forward", "forward", 2), 0);
    assert_int_equal(near_miss_distance("get_parallel_plan", "forward", 2), 3);
    const char *src = "class Qwen3MLP:\n    def forward(self, x):\n        return x\n\n"
                      "    def __init__(self):\n        pass\n\n\ndef apply_rotary_pos_emb(q, k):\n"
                      "    return q, k\n";
    index_module *m = NULL;
    assert_int_equal(index_module_from_source(&m, src, strlen(src), "m.py", "m"), 0);
    assert_string_equal(near_miss_suggest(m, "Qwen3MLP.fowrard"), "forward");
    assert_string_equal(near_miss_suggest(m, "apply_rotary_pos_embb"), "apply_rotary_pos_emb");
    assert_null(near_miss_suggest(m, "Qwen3MLP.get_parallel_plan"));
    assert_null(near_miss_suggest(m, "Qwen3MLP.dummy_forward"));
    assert_null(near_miss_suggest(m, "NoSuchClass.forward"));
    index_module_free(m);
}

/* The targets check's suggestion comes from a names-only index; an upstream module
 * a full index refuses (nested too deeply, here in an expression) still gets none,
 * as when suggestions read full indexes. */
static void test_near_miss_refused_upstream(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT, deep = STRBUF_INIT;
    check_input in = base_input(&diff);
    const char *shallow = "class Qwen3MLP:\n    def forward(self, x):\n        return x\n";
    cg_note note = {.kind = CG_NOTE_METHOD_ADDED, .patch = -1, .target = "Qwen3MLP.fowrard"};
    in.notes = &note;
    in.n_notes = 1;
    in.upstream = shallow;
    in.upstream_len = strlen(shallow);
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_targets, &in, 0, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_int_equal(fs.items[0]->sev, SEV_WARNING);
    assert_non_null(strstr(fs.items[0]->title, "did you mean `forward`?"));
    strbuf_adds(&deep, shallow);
    strbuf_adds(&deep, "\n\nY = ");
    for (int i = 0; i < INDEX_MAX_DEPTH + 10; i++)
        strbuf_adds(&deep, "-");
    strbuf_adds(&deep, "1\n");
    in.upstream = deep.buf;
    in.upstream_len = deep.len;
    assert_int_equal(run(&check_targets, &in, 0, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 2);
    assert_int_equal(fs.items[1]->sev, SEV_INFO);
    assert_string_equal(fs.items[1]->title,
                        "`Qwen3MLP.fowrard` is not defined upstream; the config adds it");
    findings_free(&fs);
    strbuf_free(&deep);
    strbuf_free(&diff);
}

/* A patch decorator on a config not named `config` is a warning at its line and
 * column, in each replacement's own text, whatever order the patches come in. */
static void test_foreign_decorators(void **state)
{
    (void)state;
    strbuf diff = STRBUF_INIT;
    check_input in = base_input(&diff);
    const char *a = "import x\n\n@gpu_config.override_method(\"A.f\")\ndef f(self):\n    pass\n\n"
                    "@config.override_method(\"A.g\")\ndef g(self):\n    pass\n\n"
                    "    @other.replace_function(\"h\")\n    def h():\n        pass\n"
                    "@gpu_config.override_methods\n";
    const char *b = "@cfg2.add_helper\ndef k():\n    pass";
    const pg_object objs[] = {
        {.text = a, .start_line = 7, .end_line = 9},   /* `@config.`: nothing */
        {.text = a, .start_line = 3, .end_line = 5},   /* before the last one */
        {.text = a, .start_line = 11, .end_line = 14}, /* indented; a longer name after */
        {.text = b, .start_line = 1, .end_line = 3},   /* another text */
        {.text = a, .start_line = 50, .end_line = 60}, /* past the end */
        {.text = a, .start_line = 3, .end_line = 3},   /* again */
    };
    pg_config cfg = {0};
    for (size_t i = 0; i < sizeof(objs) / sizeof(*objs); i++) {
        pg_patch p = {.type = PG_METHOD_OVERRIDE, .target = "A.f", .replacement = &objs[i]};
        VEC_PUSH(&cfg.patches, p);
    }
    in.cfg = &cfg;
    findings fs = FINDINGS_INIT;
    assert_int_equal(run(&check_targets, &in, 0, &fs), CHECK_RAN);
    const unsigned want[][2] = {{3, 1}, {11, 5}, {1, 1}, {3, 1}};
    assert_int_equal(fs.len, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(fs.items[i]->sev, SEV_WARNING);
        assert_int_equal(fs.items[i]->line, want[i][0]);
        assert_int_equal(fs.items[i]->col, want[i][1]);
    }
    assert_string_equal(fs.items[0]->title,
                        "patch decorator `@gpu_config.override_method` is on a config not named "
                        "`config`: patchgen will not strip it from the output");
    assert_non_null(strstr(fs.items[1]->title, "`@other.replace_function`"));
    assert_non_null(strstr(fs.items[2]->title, "`@cfg2.add_helper`"));
    VEC_FREE(&cfg.patches);
    findings_free(&fs);
    /* a replacement of another file of the workspace (an NPU config extending the
     * GPU config's patches): at its line in that file, not under the config's path
     * (that line is not the config's); one outside the workspace: none */
    in.config_path = "m/npu_patch_gen_config.py";
    cfg.file = "/ws/m/npu_patch_gen_config.py";
    const pg_object other[] = {
        {.text = a, .start_line = 3, .end_line = 5, .file = "/ws/m/gpu_patch_gen_config.py"},
        {.text = a, .start_line = 3, .end_line = 5, .file = "/elsewhere/gpu.py"},
    };
    for (size_t i = 0; i < 2; i++) {
        pg_patch p = {.type = PG_METHOD_OVERRIDE, .target = "A.f", .replacement = &other[i]};
        VEC_PUSH(&cfg.patches, p);
    }
    assert_int_equal(run(&check_targets, &in, 0, &fs), CHECK_RAN);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->path, "m/gpu_patch_gen_config.py");
    assert_int_equal(fs.items[0]->line, 3);
    VEC_FREE(&cfg.patches);
    findings_free(&fs);
    strbuf_free(&diff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_near_miss),
        cmocka_unit_test(test_near_miss_refused_upstream),
        cmocka_unit_test(test_foreign_decorators),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_drift_hand_edit),
        cmocka_unit_test(test_drift_without_ruff_not_configured),
        cmocka_unit_test(test_stale_diff),
        cmocka_unit_test(test_not_a_fixed_point),
        cmocka_unit_test(test_missing_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
