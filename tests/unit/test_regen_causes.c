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
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checks/regen_causes.h"
#include "checks/names_origin.h"
#include "checks/regen_finding.h"

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

/* ruff's output cut short, the diagnostics past the cut listed after it (normalize.h):
 * A's whole list is known, so what B adds is told (before, a cut A said nothing) */
static const char listed_a[] =
    RUFF_HEAD "F811 Redefinition of unused `causal_conv1d_update` from line 125\n"
              "   --> <tmp>/patched_q_gpu.py:379:5\n"
              "... (33 more lines of ruff output; the other diagnostics there:)\n"
              "F811 Redefinition of unused `causal_conv1d_fn` from line 124\n"
              "F821 Undefined name `logger`";

static const char listed_b[] =
    RUFF_HEAD "F811 Redefinition of unused `causal_conv1d_update` from line 127\n"
              "   --> <tmp>/patched_q_gpu.py:415:5\n"
              "... (45 more lines of ruff output; the other diagnostics there:)\n"
              "F811 Redefinition of unused `causal_conv1d_fn` from line 126\n"
              "F821 Undefined name `logger`\n"
              "F821 Undefined name `Qwen3_5MoeModelOutputWithPast`";

/* cut, nothing past it the kept lines do not show */
static const char same_past[] = RUFF_HEAD "F821 Undefined name `Optional`\n"
                                          "   --> <tmp>/patched_q_gpu.py:3094:20\n"
                                          "... (49 more lines of ruff output, no other "
                                          "diagnostic among them)";

/* cut, the list itself cut */
static const char unlisted[] = RUFF_HEAD "F821 Undefined name `a`\n"
                                         "... (400 more lines of ruff output; the other "
                                         "diagnostics there:)\n"
                                         "F821 Undefined name `b`\n"
                                         "... (and more)";

static void test_listed_past_the_cut(void **state)
{
    (void)state;
    regen_causes c;
    regen_causes_read(&c, listed_a);
    assert_false(c.cut);
    assert_int_equal(c.keys.len, 3);
    assert_string_equal(c.keys.items[2], "F821 Undefined name `logger`");
    assert_string_equal(c.heads.items[1],
                        "F811 Redefinition of unused `causal_conv1d_fn` from line 124");
    regen_causes_free(&c);
    regen_causes_read(&c, same_past);
    assert_false(c.cut);
    assert_int_equal(c.keys.len, 1);
    regen_causes_free(&c);
    regen_causes_read(&c, unlisted);
    assert_true(c.cut);
    assert_int_equal(c.keys.len, 2);
    regen_causes_free(&c);
    strvec fresh = STRVEC_INIT;
    assert_int_equal(added(listed_a, listed_b, &fresh), 1);
    assert_int_equal(fresh.len, 1);
    assert_string_equal(fresh.items[0], "F821 Undefined name `Qwen3_5MoeModelOutputWithPast`");
    assert_int_equal(added(same_past, listed_b, &fresh), 1);
    assert_int_equal(fresh.len, 4);
    assert_int_equal(added(unlisted, listed_b, &fresh), 0);
    strvec_free(&fresh);
}

/* a failure's title names each distinct cause, short, past the first line's */
static void test_title_names_every_cause(void **state)
{
    (void)state;
    findings fs = FINDINGS_INIT;
    regen_finding(&fs, "m.q", "m/q/q_gpu_patch_gen_config.py", NULL,
                  "fails to regenerate against v2", listed_b);
    regen_finding(&fs, "m.q", "m/q/q_gpu_patch_gen_config.py", NULL, "fails", same_past);
    regen_finding(&fs, "m.q", "m/q/q_gpu_patch_gen_config.py", NULL, "fails", unlisted);
    regen_finding(&fs, "m.q", "m/q/q_gpu_patch_gen_config.py", NULL, "fails", positioned);
    assert_int_equal(fs.len, 4);
    const char *t = fs.items[0]->title;
    assert_non_null(strstr(t, "status 1: F811 Redefinition of unused `causal_conv1d_update` from "
                              "line 127 (and 3 more: F811 `causal_conv1d_fn`, F821 `logger`, "
                              "F821 `Qwen3_5MoeModelOutputWithPast`)"));
    assert_non_null(strstr(fs.items[1]->title, "Undefined name `Optional`"));
    assert_null(strstr(fs.items[1]->title, "more"));
    assert_non_null(strstr(fs.items[2]->title, "`a` (and 1 more: F821 `b`; ruff's output cut "
                                               "short before the rest)"));
    assert_null(strstr(fs.items[3]->title, "more"));
    findings_free(&fs);
    char *sh = regen_cause_short("error: Failed to parse <tmp>/x.py:12:5: Expected an expression");
    assert_string_equal(sh, "error: Failed to parse <tmp>/x.py:12:5: Expected an expression");
    free(sh);
}

/* A config that fails for an add_helper_after whose target the output lacks is at
 * the add_helper_after that names the first such target (it had no line: 5.24.0's
 * Qwen3.5 configs), in the file that registered it; a target the message does not
 * name leaves the finding at the config's file. */
static void test_positioned_helper_located(void **state)
{
    (void)state;
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    pg_positioned_helper hs[] = {
        {"Kept", NULL, "after", "m/q/q_gpu_patch_gen_config.py", 7, 1},
        {"Qwen3_5CausalLMOutputWithPast", NULL, "after", "m/q/q_gpu_patch_gen_config.py", 1431, 2},
        {"Other", NULL, "after", "m/q/other.py", 12, 1},
    };
    for (size_t i = 0; i < 3; i++)
        VEC_PUSH(&cfg.positioned_helpers, hs[i]);
    findings fs = FINDINGS_INIT;
    const char *path = "m/q/q_gpu_patch_gen_config.py";
    regen_finding(&fs, "m.q", path, &cfg, "fails", positioned);
    regen_finding(&fs, "m.q", path, NULL, "fails", positioned);
    regen_finding(&fs, "m.q", path, &cfg, "fails",
                  "x.py: positioned helper target(s) not found in generated output: Other (...)");
    regen_finding(&fs, "m.q", path, &cfg, "fails",
                  "x.py: positioned helper target(s) not found in generated output: Kep (...)");
    assert_int_equal(fs.len, 4);
    assert_int_equal(fs.items[0]->line, 1431);
    assert_int_equal(fs.items[0]->col, 2);
    assert_string_equal(fs.items[0]->path, path);
    assert_int_equal(fs.items[1]->line, 0);
    /* registered in another file (a PatchConfig another config's file extends):
     * there */
    assert_int_equal(fs.items[2]->line, 12);
    assert_string_equal(fs.items[2]->path, "m/q/other.py");
    assert_int_equal(fs.items[3]->line, 0);
    assert_string_equal(fs.items[3]->path, path);
    findings_free(&fs);
    VEC_FREE(&cfg.positioned_helpers);
}

/* An override of `target` with replacement o, pushed on cfg's patches. */
static void add_override(pg_config *cfg, const char *target, const pg_object *o)
{
    pg_patch p = {0};
    p.type = PG_METHOD_OVERRIDE;
    p.target = target;
    p.replacement = o;
    VEC_PUSH(&cfg->patches, p);
}

/* An object of the config: name, its file, the file's text, its lines there. */
static pg_object object_in(const char *name, const char *file, const char *text, unsigned start,
                           unsigned end)
{
    return (pg_object){.name = name,
                       .file = file,
                       .text = text,
                       .text_len = strlen(text),
                       .start_line = start,
                       .end_line = end};
}

/* ruff refusing the output: the finding is at the line that wrote the line of
 * ruff's first diagnostic, found by its text and neighbours among the config's
 * patch bodies (5.24.0's Qwen3-VL GPU configs: line 1054, column 14), in the file
 * that holds the body; a body outside the workspace, a line no body holds whole,
 * or a line no neighbour confirms, leaves it at the config's file. */
static void test_ruff_located(void **state)
{
    (void)state;
    static const char msg[] =
        "m/q/q_gpu_patch_gen_config.py: ruff normalisation failed: 'ruff check --fix "
        "<tmp>/patched_q.py' exited with status 1: F821 Undefined name `GoneOutput`\n"
        "    --> <tmp>/patched_q.py:1818:18\n"
        "     |\n"
        "1816 |         self,\n"
        "1817 |         x,\n"
        "1818 |     ) -> tuple | GoneOutput:\n"
        "     |                  ^^^^^^^^^^\n"
        "1819 |         return GoneOutput(x)\n"
        "     |\n"
        "\n"
        "F821 Undefined name `GoneOutput`\n";
    const char *path = "m/q/q_gpu_patch_gen_config.py";
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.file = "/ws/m/q/q_gpu_patch_gen_config.py";
    /* a body holding those lines only inside longer ones (comments): the text is
     * found in it, but no line of it is the line */
    static const char commented[] = "# @config.override_method(\"M.forward\")\n"
                                    "# def forward(\n"
                                    "#     self,\n"
                                    "#     x,\n"
                                    "# ) -> tuple | GoneOutput:\n"
                                    "#     return GoneOutput(x)\n";
    pg_object decoy = object_in("decoy", cfg.file, commented, 1, 6);
    add_override(&cfg, "M.other", &decoy);
    findings none = FINDINGS_INIT;
    regen_finding(&none, "m.q", path, &cfg, "fails", msg);
    assert_int_equal(none.items[0]->line, 0);
    findings_free(&none);
    static const char text[] = "import torch\n"
                               "\n"
                               "@config.override_method(\"M.forward\")\n"
                               "def forward(\n"
                               "    self,\n"
                               "    x,\n"
                               ") -> tuple | GoneOutput:\n"
                               "    return GoneOutput(x)\n";
    pg_object body = object_in("forward", cfg.file, text, 3, 8);
    add_override(&cfg, "M.forward", &body);
    findings fs = FINDINGS_INIT;
    regen_finding(&fs, "m.q", path, &cfg, "fails", msg);
    assert_int_equal(fs.items[0]->line, 7);
    assert_int_equal(fs.items[0]->col, 14);
    body.file = "/ws/m/q/other.py"; /* a body the config imports: there */
    regen_finding(&fs, "m.q", path, &cfg, "fails", msg);
    assert_int_equal(fs.items[1]->line, 7);
    assert_string_equal(fs.items[1]->path, "m/q/other.py");
    body.file = "/elsewhere/other.py"; /* outside the workspace: the config's file */
    regen_finding(&fs, "m.q", path, &cfg, "fails", msg);
    assert_int_equal(fs.items[2]->line, 0);
    assert_string_equal(fs.items[2]->path, path);
    body.file = cfg.file;
    /* the line alone, none of its neighbours in the body: not enough to say */
    static const char lone[] = "m/q/q_gpu_patch_gen_config.py: ruff normalisation failed: "
                               "F821 Undefined name `GoneOutput`\n"
                               "    --> <tmp>/patched_q.py:90:18\n"
                               "   |\n"
                               "89 |     def other(self):\n"
                               "90 |     ) -> tuple | GoneOutput:\n"
                               "   |                  ^^^^^^^^^^\n"
                               "91 |         pass\n";
    regen_finding(&fs, "m.q", path, &cfg, "fails", lone);
    assert_int_equal(fs.items[3]->line, 0);
    /* the output ending in a marker line, no line break after it (read past its
     * end before: fuzz_regen_finding, under ASan) */
    char *cut = strndup(msg, (size_t)(strstr(msg, "^^^^^^^^^^") - msg));
    regen_finding(&fs, "m.q", path, &cfg, "fails", cut);
    assert_int_equal(fs.items[4]->line, 7);
    free(cut);
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
}

/* ruff's first diagnostic at a line no patch body holds (upstream's new function
 * redefining a name the config's post-import block set: the Qwen3.5 configs at
 * 5.16.1): its further place, the previous definition, is the block's line in the
 * file that holds it, found with two neighbours among the lines of the files the
 * config's objects are in, outside them; text alike in a file the config takes
 * patches from and in its directory's file is the latter's; with one neighbour
 * only, nothing. */
static void test_ruff_located_block(void **state)
{
    (void)state;
    static const char msg[] =
        "m/q/q_npu_patch_gen_config.py: ruff normalisation failed: 'ruff check --fix "
        "<tmp>/patched_q.py' exited with status 1: F811 Redefinition of unused `conv_update` "
        "from line 12\n"
        "   --> <tmp>/patched_q.py:40:5\n"
        "    |\n"
        "39 | @kernel(\"conv_update\")\n"
        "40 | def conv_update(\n"
        "    |     ^^^^^^^^^^^ `conv_update` redefined here\n"
        "41 |     hidden_states,\n"
        "    |\n"
        "   ::: <tmp>/patched_q.py:12:1\n"
        "    |\n"
        "11 | conv_fn = None\n"
        "12 | conv_update = None\n"
        "    | ----------- previous definition of `conv_update` here\n"
        "13 | delta_rule = None\n"
        "    |\n"
        "help: Remove definition: `conv_update`\n"
        "\n"
        "F821 Undefined name `logger`\n"
        "  --> <tmp>/patched_q.py:90:5\n"
        "   |\n"
        "88 |     conv_fn = None\n"
        "89 |     conv_update = None\n"
        "90 |     delta_rule = None\n";
    const char *path = "m/q/q_npu_patch_gen_config.py";
    /* the block in the config's GPU sibling (its directory) and, alike, in another
     * model's config it takes a patch from */
    static const char sibling[] = "config.add_post_import_block(\n"
                                  "    \"\"\"\n"
                                  "    conv_fn = None\n"
                                  "    conv_update = None\n"
                                  "    delta_rule = None\n"
                                  "    \"\"\"\n"
                                  ")\n"
                                  "\n"
                                  "def forward(self):\n"
                                  "    return 1\n";
    static const char other[] = "import torch\n"
                                "config.add_post_import_block(\n"
                                "    \"\"\"\n"
                                "    conv_fn = None\n"
                                "    conv_update = None\n"
                                "    delta_rule = None\n"
                                "    \"\"\"\n"
                                ")\n"
                                "def helper():\n"
                                "    return 2\n";
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.file = "/ws/m/q/q_npu_patch_gen_config.py";
    pg_object from_other = object_in("helper", "/ws/m/r/r_gpu_patch_gen_config.py", other, 9, 10);
    pg_object from_sibling =
        object_in("forward", "/ws/m/q/q_gpu_patch_gen_config.py", sibling, 9, 10);
    findings fs = FINDINGS_INIT;
    add_override(&cfg, "R.helper", &from_other);
    regen_finding(&fs, "m.q_npu", path, &cfg, "fails", msg);
    assert_string_equal(fs.items[0]->path, "m/r/r_gpu_patch_gen_config.py");
    assert_int_equal(fs.items[0]->line, 5);
    assert_int_equal(fs.items[0]->col, 5);
    add_override(&cfg, "Q.forward", &from_sibling);
    regen_finding(&fs, "m.q_npu", path, &cfg, "fails", msg);
    assert_string_equal(fs.items[1]->path, "m/q/q_gpu_patch_gen_config.py");
    assert_int_equal(fs.items[1]->line, 4);
    assert_int_equal(fs.items[1]->col, 5);
    /* the previous definition's frame without its line after: one neighbour */
    char *cut = strdup(msg);
    char *after = strstr(cut, "13 | delta_rule = None\n");
    memmove(after, after + strlen("13 | delta_rule = None\n"),
            strlen(after) + 1 - strlen("13 | delta_rule = None\n"));
    regen_finding(&fs, "m.q_npu", path, &cfg, "fails", cut);
    assert_int_equal(fs.items[2]->line, 0);
    assert_string_equal(fs.items[2]->path, path);
    free(cut);
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
}

/* A body a config takes from another model's config with a name_map (VeOmni's
 * Qwen3.5-MoE NPU config: Qwen3_5TextModel's forward with {"Qwen3_5":
 * "Qwen3_5Moe"}): its lines in the generated file read with the names replaced,
 * so it is searched as codegen writes it; the finding is at the body's line, at
 * the config's column of the name that was replaced. Before, the gate left such
 * an undefined name in the generated file, or put it on a line of another
 * function that reads the same once replaced, and then at the line's first
 * character. */
static void test_name_mapped_origin(void **state)
{
    (void)state;
    static const char body[] = "import torch\n"
                               "\n"
                               "def text_forward(\n"
                               "    self,\n"
                               "    x,\n"
                               ") -> Qwen3_5ModelOutputWithPast:\n"
                               "    h = self.norm(x)\n"
                               "    return Qwen3_5ModelOutputWithPast(\n"
                               "        last_hidden_state=h,\n"
                               "    )\n";
    /* another function, in the config itself, holding the replaced line alone */
    static const char own[] = "def causal_forward(self, out):\n"
                              "    return Qwen3_5MoeModelOutputWithPast(\n"
                              "        **out,\n"
                              "    )\n";
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.file = "/ws/m/q_moe/q_moe_npu_patch_gen_config.py";
    pg_object mapped = object_in("text_forward", "/ws/m/q/q_npu_patch_gen_config.py", body, 3, 10);
    pg_object mine = object_in("causal_forward", cfg.file, own, 1, 4);
    pg_name_map_entry map[] = {{"Qwen3_5", "Qwen3_5Moe"}};
    add_override(&cfg, "QMoeForCausalLM.forward", &mine);
    add_override(&cfg, "QMoeTextModel.forward", &mapped);
    cfg.patches.items[1].name_map = map;
    cfg.patches.items[1].name_map_len = 1;
    static const char gen[] = "class QMoeTextModel:\n"
                              "    def forward(\n"
                              "        self,\n"
                              "        x,\n"
                              "    ) -> Qwen3_5MoeModelOutputWithPast:\n"
                              "        h = self.norm(x)\n"
                              "        return Qwen3_5MoeModelOutputWithPast(\n"
                              "            last_hidden_state=h,\n"
                              "        )\n"
                              "        y = self.norm(x)\n";
    unsigned line, col;
    const pg_object *o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 5, 10, 2, &line, &col);
    assert_ptr_equal(o, &mapped);
    assert_int_equal(line, 6);
    assert_int_equal(col, 6); /* ") -> Qwen3_5ModelOutputWithPast:" */
    o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 7, 16, 2, &line, &col);
    assert_ptr_equal(o, &mapped);
    assert_int_equal(line, 8);
    assert_int_equal(col, 12); /* "    return Qwen3_5ModelOutputWithPast(" */
    /* the text after the renamed name: the same character there */
    o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 5, 39, 2, &line, &col);
    assert_ptr_equal(o, &mapped);
    assert_int_equal(col, 32); /* the ':' */
    /* a column between the text both begin with ("... Qwen3_5Mo") and the text
     * both end with ("delOutputWithPast:"): where the config's line parts */
    o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 5, 19, 2, &line, &col);
    assert_int_equal(col, 15);
    /* no column asked: none given, on a renamed line too */
    o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 5, 0, 2, &line, &col);
    assert_ptr_equal(o, &mapped);
    assert_int_equal(col, 0);
    /* a line the map leaves alone: its column, as without a map */
    o = names_origin_find(&cfg, gen, sizeof(gen) - 1, 6, 13, 2, &line, &col);
    assert_ptr_equal(o, &mapped);
    assert_int_equal(line, 7);
    assert_int_equal(col, 9);
    /* the gate's names findings, through names_to_config */
    check_input in;
    memset(&in, 0, sizeof(in));
    in.cfg = &cfg;
    in.py_path = "m/q_moe/generated/patched_q_moe_npu.py";
    findings fs = FINDINGS_INIT;
    findings_add(&fs, "names", SEV_ERROR, "m.q_moe", in.py_path, 5, 10, NULL,
                 "undefined name 'Qwen3_5MoeModelOutputWithPast'");
    findings_add(&fs, "names", SEV_ERROR, "m.q_moe", in.py_path, 7, 16, NULL,
                 "undefined name 'Qwen3_5MoeModelOutputWithPast'");
    names_to_config(&fs, 0, &in, gen, sizeof(gen) - 1, "/ws");
    assert_string_equal(fs.items[0]->path, "m/q/q_npu_patch_gen_config.py");
    assert_int_equal(fs.items[0]->line, 6);
    assert_int_equal(fs.items[0]->col, 6);
    assert_string_equal(fs.items[1]->path, "m/q/q_npu_patch_gen_config.py");
    assert_int_equal(fs.items[1]->line, 8);
    assert_int_equal(fs.items[1]->col, 12);
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_new),
        cmocka_unit_test(test_listed_past_the_cut),
        cmocka_unit_test(test_title_names_every_cause),
        cmocka_unit_test(test_positioned_helper_located),
        cmocka_unit_test(test_ruff_located),
        cmocka_unit_test(test_ruff_located_block),
        cmocka_unit_test(test_name_mapped_origin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
