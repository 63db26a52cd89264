/* The survey note's inline text (reports/survey_note.h): titles keep their code
 * spans (they render as code in the HTML), everything outside them is escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "reports/survey_note.h"

static void expect(const char *in, const char *want)
{
    strbuf sb = STRBUF_INIT;
    survey_note_inline(&sb, in);
    assert_string_equal(sb.buf, want);
    strbuf_free(&sb);
}

static void test_inline(void **state)
{
    (void)state;
    expect("`self.act_fn` renamed", "`self.act_fn` renamed");
    expect("`Dict[str, List[int]]` <tmp> a_b *x*",
           "`Dict[str, List[int]]` &lt;tmp&gt; a\\_b \\*x\\*");
    expect("`a | b` | c", "`a | b` \\| c");
    expect("two\nlines", "two lines");
    expect("unbalanced `code", "unbalanced `code`");
}

/* The PR comment of a survey too long for its limit keeps every error section:
 * it drops the other sections, then the folded findings, not the errors. */
static void test_comment_keeps_error_sections(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    strbuf full = STRBUF_INIT, small = STRBUF_INIT;
    report_comment(&full, &d, NULL, 0);
    report_comment(&small, &d, NULL, 3000);
    assert_true(full.len > 10000); /* the limit below really bites */
    assert_true(small.len <= 3000);
    static const char *const errors[] = {
        "### `Optional` is no longer imported by the modeling module upstream",
        "### `Qwen3MLP.forward` became `Qwen3FeedForward.forward`",
        "### `LlamaMLP.__init__`: `self.act_fn` became `self.activation_fn`",
        "**Action:** rename `self.act_fn` to `self.activation_fn` in the patch bodies."};
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        assert_non_null(strstr(full.buf, errors[i]));
        assert_non_null(strstr(small.buf, errors[i]));
    }
    assert_null(strstr(small.buf, "<details>"));
    assert_null(strstr(small.buf, "Truncated"));
    assert_non_null(strstr(small.buf, "Left out to fit GitHub's comment limit: Contract changes"));
    strbuf_free(&full);
    strbuf_free(&small);
    run_doc_free(&d);
}

/* The findings of change id in the run's order, up to max (borrowed); how many. */
static size_t of_change(run_doc *d, const char *id, json_t **out, size_t max)
{
    size_t i, n = 0;
    json_t *f;
    json_array_foreach(json_object_get(d->root, "findings"), i, f)
    {
        const char *c = json_string_value(json_object_get(json_object_get(f, "data"), "change"));
        if (c && !strcmp(c, id) && n < max)
            out[n++] = f;
    }
    return n;
}

/* Sets the detail of every finding of change id to det. */
static void set_details(run_doc *d, const char *id, const char *det)
{
    json_t *fs[64];
    size_t n = of_change(d, id, fs, 64);
    for (size_t i = 0; i < n; i++)
        json_object_set_new(fs[i], "detail", json_string(det));
}

static size_t occurrences(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        k++;
    return k;
}

/* A detail every finding of a change shares is shown once: before the folded
 * list, or only in "What changed" when the section shows it there. */
static void test_shared_detail_once(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    static const char diff[] = "--- a\n+++ b\n@@ -1 +1 @@\n-old_line_of_upstream\n"
                               "+new_line_of_upstream\n";
    set_details(&d, "body-forcausallm-forward", diff);
    set_details(&d, "name-optional", "evidence shared by every finding");
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_int_equal(occurrences(md.buf, "+new_line_of_upstream"), 1);
    const char *sec = strstr(md.buf, "body changed under");
    assert_non_null(sec);
    assert_non_null(strstr(md.buf, "The same for each:"));
    /* the error's "What changed" shows it; the list does not repeat it */
    assert_int_equal(occurrences(md.buf, "evidence shared by every finding"), 1);
    const char *what = strstr(md.buf, "What changed:\n\n```\nevidence shared by every finding");
    assert_non_null(what);
    strbuf_free(&md);
    /* one finding's detail differs: each keeps its own */
    json_t *fs[64];
    size_t n = of_change(&d, "body-forcausallm-forward", fs, 64);
    assert_true(n > 0);
    json_object_set_new(fs[n - 1], "detail", json_string("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"));
    report_markdown(&md, &d);
    /* two findings (`Qwen3ForCausalLM.forward` at both Qwen3 configs): each its own */
    assert_int_equal(occurrences(md.buf, "+new_line_of_upstream"), 1);
    assert_int_equal(occurrences(md.buf, " +y\n"), 1);
    strbuf_free(&md);
    run_doc_free(&d);
}

/* The findings of a change equal but for their config and place are one bullet
 * naming each config at its place, their detail once: a GPU config and its NPU
 * sibling overriding one upstream method, or a workspace file every config
 * imports (a real survey's note listed one import chain 29 times). */
static void test_same_finding_once(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    static const char uses[] = ": `Qwen3ForCausalLM.forward` uses `Optional`, which upstream";
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_int_equal(occurrences(md.buf, uses), 1);
    assert_non_null(strstr(md.buf,
                           "- **error** `qwen3_gpu` "
                           "(`demo/models/qwen3/qwen3_gpu_patch_gen_config.py:132`); "
                           "`qwen3_npu` (`demo/models/qwen3/qwen3_npu_patch_gen_config.py:48`)"
                           ": `Qwen3ForCausalLM.forward` uses"));
    strbuf_free(&md);
    /* one place: the configs, then the place once */
    json_t *npu = NULL, *gpu = NULL;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(d.root, "findings"), i, f)
    {
        const char *t = json_string_value(json_object_get(f, "title"));
        if (!strstr(t, "`Qwen3ForCausalLM.forward` uses `Optional`"))
            continue;
        if (strstr(json_string_value(json_object_get(f, "config")), "npu"))
            npu = f;
        else
            gpu = f;
    }
    assert_non_null(npu);
    assert_non_null(gpu);
    json_object_set(npu, "path", json_object_get(gpu, "path"));
    json_object_set(npu, "line", json_object_get(gpu, "line"));
    /* longer than "What changed" shows */
    static const char chain[] = "the chain that reaches it\na\nb\nc\nd\n";
    json_object_set_new(npu, "detail", json_string(chain));
    json_object_set_new(gpu, "detail", json_string(chain));
    report_markdown(&md, &d);
    assert_non_null(strstr(md.buf, "- **error** `qwen3_gpu`, `qwen3_npu` "
                                   "(`demo/models/qwen3/qwen3_gpu_patch_gen_config.py:132`): "
                                   "`Qwen3ForCausalLM.forward` uses"));
    assert_int_equal(occurrences(md.buf, "the chain that reaches it"), 1);
    strbuf_free(&md);
    /* another detail: another bullet, each with its own */
    json_object_set_new(npu, "detail", json_string("another chain\na\nb\nc\nd\n"));
    report_markdown(&md, &d);
    assert_int_equal(occurrences(md.buf, uses), 2);
    assert_int_equal(occurrences(md.buf, "the chain that reaches it"), 1);
    assert_int_equal(occurrences(md.buf, "another chain"), 1);
    strbuf_free(&md);
    run_doc_free(&d);
}

/* A change whose findings name different successors of a dropped name (what
 * upstream writes in its place differs by the method that used it: Qwen3.5's
 * `Qwen3_5Model.forward` builds `MultimodalBaseModelOutputWithPast` at 5.24.0, its
 * `Qwen3_5TextModel.forward` `BaseModelOutputWithPast`) shows each method with its
 * own, not the first finding's detail alone. */
static void test_successors_by_use(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    json_t *fs[64];
    size_t n = of_change(&d, "name-optional", fs, 64), k = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *data = json_object_get(fs[i], "data");
        if (!strcmp(json_string_value(json_object_get(fs[i], "check")), "regen"))
            continue;
        const char *by = k++ ? "Qwen3ForCausalLM.forward" : "Qwen3DecoderLayer.forward";
        json_object_set_new(data, "used_by", json_string(by));
        json_object_set_new(data, "written_instead", json_string(k == 1 ? "OptA" : "OptB"));
    }
    assert_int_equal(k, 3);
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_non_null(strstr(md.buf, "What upstream writes in its place, by the method that uses "
                                   "it:\n\n```\n`Qwen3DecoderLayer.forward`: `OptA`\n"
                                   "`Qwen3ForCausalLM.forward`: `OptB`\n```\n"));
    strbuf_free(&md);
    /* one successor for all: the section's usual "What changed" */
    for (size_t i = 0; i < n; i++) {
        json_t *data = json_object_get(fs[i], "data");
        if (json_object_get(data, "written_instead"))
            json_object_set_new(data, "written_instead", json_string("OptA"));
    }
    report_markdown(&md, &d);
    assert_null(strstr(md.buf, "by the method that uses it"));
    strbuf_free(&md);
    run_doc_free(&d);
}

/* A survey's Configs table is folded; a fitted comment that has no room for it
 * shows its brief, one line counting how the configs fare at the new tag, instead
 * of leaving the section out. */
static void test_configs_brief(void **state)
{
    (void)state;
    run_doc d;
    assert_int_equal(run_doc_load(&d, "tests/e2e/expected/golden/survey/run.json"), 0);
    long n[3] = {0, 0, 0};
    static const char *const st[] = {"ok", "drift", "failed"};
    size_t i;
    json_t *c;
    json_array_foreach(run_doc_configs(&d), i, c)
    {
        for (int k = 0; k < 3; k++)
            n[k] += !strcmp(json_string_value(json_object_get(c, "status")), st[k]);
    }
    assert_true(n[0] == 1 && n[1] == 1 && n[2] == 2); /* each wording below is reached */
    char *want = pgci_asprintf("## Configs\n\n%zu configs at v1.1.0: %ld regenerates with no "
                               "error, %ld regenerates with errors, %ld fail to regenerate.\n\n",
                               json_array_size(run_doc_configs(&d)), n[0], n[1], n[2]);
    md_doc m = {0};
    report_markdown_sections(&m, &d);
    const md_section *cs = NULL;
    for (size_t k = 0; k < m.len; k++)
        if (!strcmp(m.items[k].id, "configs"))
            cs = &m.items[k];
    assert_non_null(cs);
    assert_non_null(strstr(cs->text, "<table>"));
    assert_non_null(cs->brief);
    assert_string_equal(cs->brief, want);
    md_doc_free(&m);
    /* fitted: where the comment shows Configs without its details, the brief is there */
    int folded = 0;
    for (size_t limit = 3000; limit <= 12000; limit += 250) {
        strbuf out = STRBUF_INIT;
        report_comment(&out, &d, NULL, limit);
        const char *note = strstr(out.buf, "shown without their details");
        if (!note)
            note = strstr(out.buf, "Shown without their details");
        if (note && strstr(note, "Configs")) {
            folded++;
            assert_non_null(strstr(out.buf, want));
            assert_null(strstr(out.buf, "<tr><td><code>demo.models.llama"));
        }
        strbuf_free(&out);
    }
    assert_true(folded > 0);
    /* a config failing at the old tag too is counted as the summary counts it */
    json_object_set_new(json_array_get(run_doc_configs(&d), 1), "standing", json_true());
    m = (md_doc){0};
    report_markdown_sections(&m, &d);
    for (size_t k = 0; k < m.len; k++)
        if (!strcmp(m.items[k].id, "configs"))
            assert_non_null(strstr(m.items[k].brief, "2 fail to regenerate (1 of them at v1.0.0 "
                                                     "too).\n"));
    md_doc_free(&m);
    free(want);
    run_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inline),
                                       cmocka_unit_test(test_comment_keeps_error_sections),
                                       cmocka_unit_test(test_shared_detail_once),
                                       cmocka_unit_test(test_same_finding_once),
                                       cmocka_unit_test(test_successors_by_use),
                                       cmocka_unit_test(test_configs_brief)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
