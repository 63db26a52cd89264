/* Unit tests for reports/: run.json building, loading, validation and merging, and
 * every renderer on a hand-built run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "pipeline/run_shard.h"
#include "reports/render.h"
#include "verify/verify.h"

static void build_run(run_doc *d, int nfindings)
{
    run_doc_init(d, "check", 0);
    run_doc_set_input(d, "workspace", "fixtures/workspace");
    run_doc_set_input(d, "tag", "v1.0.0");
    run_doc_set_config(d, "demo.models.llama.llama_gpu_patch_gen_config", "demo/models/llama",
                       "drift", NULL);
    run_doc_set_config(d, "demo.models.qwen3.qwen3_gpu_patch_gen_config", "demo/models/qwen3", "ok",
                       NULL);
    run_doc_set_check(d, "drift", "ran", NULL);
    run_doc_set_check(d, "names", "ran", NULL);
    run_doc_set_check(d, "ruff-equivalence", "not-run", "ruff not found");
    findings fs = FINDINGS_INIT;
    for (int i = 0; i < nfindings; i++) {
        finding *f = findings_add(&fs, i % 2 ? "names" : "drift", i % 3 ? SEV_ERROR : SEV_WARNING,
                                  "demo.models.llama.llama_gpu_patch_gen_config",
                                  "demo/models/llama/generated/patched_modeling_llama_gpu.py",
                                  (unsigned)(i + 1), 5, NULL, "finding %d: name 'Optional' | x", i);
        if (i % 2 == 0)
            finding_set_detail(f, "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n");
    }
    run_doc_set_findings(d, &fs);
    findings_free(&fs);
}

static void test_roundtrip_and_validation(void **state)
{
    (void)state;
    run_doc d, back;
    build_run(&d, 3);
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    run_doc_dump(&d, &a);
    assert_int_equal(run_doc_parse(&back, a.buf, a.len, "run.json"), 0);
    run_doc_dump(&back, &b);
    assert_string_equal(a.buf, b.buf);
    json_t *sum = json_object_get(back.root, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "errors")), 2);
    assert_int_equal(json_integer_value(json_object_get(sum, "warnings")), 1);
    run_doc_free(&back);

    /* truncated */
    assert_int_equal(run_doc_parse(&back, a.buf, a.len / 2, "run.json"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "run.json:"));
    /* another schema version */
    const char *v2 = "{\"schema\":\"pgci-run\",\"schema_version\":2}";
    assert_int_equal(run_doc_parse(&back, v2, strlen(v2), "old.json"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "schema version 2 is not supported"));
    const char *other = "{\"version\":\"2.1.0\",\"runs\":[]}";
    assert_int_equal(run_doc_parse(&back, other, strlen(other), "x.sarif"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "not a pgci run"));
    strbuf_free(&a);
    strbuf_free(&b);
    run_doc_free(&d);
}

static void test_merge_sorted(void **state)
{
    (void)state;
    run_doc shards[2], merged, whole;
    run_doc_init(&shards[0], "check", 0);
    run_doc_init(&shards[1], "check", 0);
    findings f0 = FINDINGS_INIT, f1 = FINDINGS_INIT, all = FINDINGS_INIT;
    findings_add(&f0, "drift", SEV_ERROR, "b", "b.py", 1, 1, NULL, "x");
    findings_add(&f1, "drift", SEV_ERROR, "a", "a.py", 1, 1, NULL, "y");
    findings_add(&all, "drift", SEV_ERROR, "b", "b.py", 1, 1, NULL, "x");
    findings_add(&all, "drift", SEV_ERROR, "a", "a.py", 1, 1, NULL, "y");
    run_doc_set_findings(&shards[0], &f0);
    run_doc_set_findings(&shards[1], &f1);
    assert_int_equal(run_doc_merge(&merged, shards, NULL, 2), 0);
    run_doc_init(&whole, "check", 0);
    run_doc_set_findings(&whole, &all);
    strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    run_doc_dump(&merged, &a);
    run_doc_dump(&whole, &b);
    assert_string_equal(a.buf, b.buf);
    json_t *first = json_array_get(run_doc_findings(&merged), 0);
    assert_string_equal(json_string_value(json_object_get(first, "config")), "a");
    strbuf_free(&a);
    strbuf_free(&b);
    findings_free(&f0);
    findings_free(&f1);
    findings_free(&all);
    run_doc_free(&shards[0]);
    run_doc_free(&shards[1]);
    run_doc_free(&merged);
    run_doc_free(&whole);
}

/* A part of a run for the merge tests: command check at tag, configs mods[0..n). */
static void part_run(run_doc *d, const char *tag, const char *const *mods, size_t n)
{
    run_doc_init(d, "check", 0);
    run_doc_set_input(d, "workspace", "/ws/a");
    run_doc_set_input(d, "tag", tag);
    run_doc_set_input(d, "upstream", "directory /ws/a/../upstream/{tag}");
    for (size_t i = 0; i < n; i++)
        run_doc_set_config(d, mods[i], NULL, "ok", NULL);
}

/* A failed shard's error survives the merge whichever file it was. */
static void test_merge_errors(void **state)
{
    (void)state;
    const char *a[] = {"a"}, *b[] = {"b"}, *names[] = {"s1.json", "s2.json"};
    run_doc parts[2], m;
    part_run(&parts[0], "v1", a, 1);
    part_run(&parts[1], "v1", b, 1);
    run_doc_set_error(&parts[1], "cannot fetch x: HTTP 404");
    assert_int_equal(run_doc_merge(&m, parts, names, 2), 0);
    assert_string_equal(run_doc_error(&m), "cannot fetch x: HTTP 404");
    run_doc_free(&m);
    run_doc_set_error(&parts[0], "no network\nat all");
    assert_int_equal(run_doc_merge(&m, parts, names, 2), 0);
    assert_string_equal(run_doc_error(&m),
                        "s1.json: no network at all; s2.json: cannot fetch x: HTTP 404");
    run_doc_free(&m);
    run_doc_free(&parts[0]);
    run_doc_free(&parts[1]);
}

/* Runs that are not parts of one run are refused with one line. */
static void test_merge_refuses(void **state)
{
    (void)state;
    const char *a[] = {"a"}, *b[] = {"b"}, *names[] = {"x.json", "y.json"};
    run_doc p[2], m;
    part_run(&p[0], "v1", a, 1);
    part_run(&p[1], "v2", b, 1);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "different inputs.tag (v1, v2)"));
    assert_null(m.root);
    run_doc_free(&p[1]);
    /* the same config in both: the same run twice */
    part_run(&p[1], "v1", a, 1);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "both ran config a"));
    run_doc_free(&p[1]);
    /* another checkout of the same tree is the same input */
    part_run(&p[1], "v1", b, 1);
    run_doc_set_input(&p[1], "workspace", "/other/checkout");
    run_doc_set_input(&p[1], "upstream", "directory /other/checkout/../upstream/{tag}");
    assert_int_equal(run_doc_merge(&m, p, names, 2), 0);
    run_doc_free(&m);
    /* another pgci */
    json_object_set_new(json_object_get(p[1].root, "tool"), "version", json_string("0.0.1"));
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "different pgci versions"));
    run_doc_free(&p[1]);
    /* two hashes of one file */
    part_run(&p[1], "v1", b, 1);
    run_doc_add_input_file(&p[0], "pyproject.toml", "aa");
    run_doc_add_input_file(&p[1], "pyproject.toml", "bb");
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "different bytes of pyproject.toml"));
    assert_null(m.root);
    run_doc_free(&p[0]);
    run_doc_free(&p[1]);
}

static const char *str_at(json_t *arr, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(arr, i), key));
}

/* A pgci verify run for the merge tests: suites[0..n) passed at tag on tree
 * ("scratch": every config regenerated, b failing). */
static void verify_run(run_doc *d, const char *tag, const char *tree, const char *const *suites,
                       size_t n)
{
    run_doc_init(d, "verify", 0);
    run_doc_set_input(d, "workspace", "/ws/a");
    run_doc_set_input(d, "pin", "1.0.0");
    run_doc_set_input(d, "tag", tag);
    if (!strcmp(tree, "scratch")) {
        run_doc_set_config(d, "a", NULL, "ok", NULL);
        run_doc_set_config(d, "b", NULL, "failed", "b: cannot regenerate");
    }
    json_t *v = json_pack("{s:s, s:s, s:[]}", "tag", tag, "tree", tree, "suites");
    for (size_t i = 0; i < n; i++)
        json_array_append_new(json_object_get(v, "suites"),
                              json_pack("{s:s, s:s, s:n, s:[], s:i, s:i, s:i, s:i, s:i}", "name",
                                        suites[i], "status", "passed", "reason", "cases", "tests",
                                        1, "passed", 1, "failed", 0, "errors", 0, "skipped", 0));
    verify_doc_set(d->root, v);
}

/* Verify runs are split by suite: their configs are every config or none, so two
 * runs of one suite, at two tags or on two trees, are not parts of one run. */
static void test_merge_verify_parts(void **state)
{
    (void)state;
    const char *ab[] = {"pass", "based-on"}, *c[] = {"gpu"}, *names[] = {"x.json", "y.json"};
    run_doc p[2], m;
    /* two parts at one tag: merged, the suites of both */
    verify_run(&p[0], "v1.1.0", "scratch", ab, 2);
    verify_run(&p[1], "v1.1.0", "scratch", c, 1);
    assert_int_equal(run_doc_merge(&m, p, names, 2), 0);
    json_t *suites = json_object_get(verify_doc_get(m.root), "suites");
    assert_int_equal(json_array_size(suites), 3);
    assert_string_equal(str_at(suites, 2, "name"), "gpu");
    assert_int_equal(json_array_size(run_doc_configs(&m)), 2);
    run_doc_free(&m);
    /* the same run twice (no config on the checked-in tree to tell) */
    run_doc_free(&p[0]);
    run_doc_free(&p[1]);
    verify_run(&p[0], "v1.0.0", "checked-in", ab, 2);
    verify_run(&p[1], "v1.0.0", "checked-in", ab, 2);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(), "cannot merge x.json and y.json: both ran suite pass "
                                           "(the same run twice, or overlapping runs)");
    assert_null(m.root);
    /* another tag */
    run_doc_free(&p[1]);
    verify_run(&p[1], "v1.1.0", "scratch", c, 1);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "different inputs.tag (v1.0.0, v1.1.0)"));
    /* another tree at the same tag */
    run_doc_free(&p[1]);
    verify_run(&p[1], "v1.0.0", "scratch", c, 1);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "different verification.tree (checked-in, scratch)"));
    /* scratch copies that regenerated differently */
    run_doc_free(&p[0]);
    verify_run(&p[0], "v1.0.0", "scratch", ab, 2);
    run_doc_set_config(&p[1], "b", NULL, "ok", NULL);
    assert_int_equal(run_doc_merge(&m, p, names, 2), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "regenerated config b differently (failed, ok)"));
    run_doc_free(&p[0]);
    run_doc_free(&p[1]);
}

/* A survey's shards each run every suite (--verify): a suite whose runs ended
 * otherwise (a flaky one) keeps the failure, whatever the shards' order, and says
 * what the other run did; runs that agree merge as one. */
static void test_merge_suite_runs_disagree(void **state)
{
    (void)state;
    const char *one[] = {"pass"};
    for (int order = 0; order < 2; order++) {
        run_doc a, b;
        verify_run(&a, "v1.1.0", "scratch", one, 1);
        verify_run(&b, "v1.1.0", "scratch", one, 1);
        json_t *bad =
            json_array_get(json_object_get(verify_doc_get(order ? a.root : b.root), "suites"), 0);
        json_object_set_new(bad, "status", json_string("failed"));
        json_object_set_new(bad, "passed", json_integer(0));
        json_object_set_new(bad, "failed", json_integer(1));
        verify_doc_merge(a.root, b.root);
        json_t *suites = json_object_get(verify_doc_get(a.root), "suites");
        assert_int_equal(json_array_size(suites), 1);
        assert_string_equal(str_at(suites, 0, "status"), "failed");
        assert_string_equal(str_at(suites, 0, "reason"),
                            "the shards' runs disagree: another run passed (1 of 1 passed, 0 "
                            "failed, 0 errors)");
        run_doc_free(&a);
        run_doc_free(&b);
    }
    run_doc a, b;
    verify_run(&a, "v1.1.0", "scratch", one, 1);
    verify_run(&b, "v1.1.0", "scratch", one, 1);
    verify_doc_merge(a.root, b.root);
    json_t *suites = json_object_get(verify_doc_get(a.root), "suites");
    assert_int_equal(json_array_size(suites), 1);
    assert_string_equal(str_at(suites, 0, "status"), "passed");
    assert_true(json_is_null(json_object_get(json_array_get(suites, 0), "reason")));
    run_doc_free(&a);
    run_doc_free(&b);
}

/* The merge lists configs in the workspace's order and each input file once,
 * sorted, as the unsharded run does. */
static void test_merge_order(void **state)
{
    (void)state;
    strvec all = STRVEC_INIT, c1 = STRVEC_INIT, c2 = STRVEC_INIT;
    const char *mods[] = {"z.first", "a.second", "m.third"};
    for (int i = 0; i < 3; i++)
        strvec_push(&all, mods[i]);
    strvec_push(&c1, mods[0]);
    strvec_push(&c1, mods[2]);
    strvec_push(&c2, mods[1]);
    const char *m1[] = {"z.first", "m.third"}, *m2[] = {"a.second"};
    run_doc p[2], m;
    part_run(&p[0], "v1", m1, 2);
    part_run(&p[1], "v1", m2, 1);
    run_doc_set_shard(&p[0], 1, 2, &c1, &all);
    run_doc_set_shard(&p[1], 2, 2, &c2, &all);
    run_doc_add_input_file(&p[0], "upstream:x@v1", "11");
    run_doc_add_input_file(&p[0], "b.py", "22");
    run_doc_add_input_file(&p[0], "upstream:x@v1", "11");
    json_t *f0 = json_object_get(json_object_get(p[0].root, "inputs"), "files");
    assert_int_equal(json_array_size(f0), 2);
    assert_string_equal(str_at(f0, 0, "path"), "b.py");
    run_doc_add_input_file(&p[1], "upstream:x@v1", "11");
    run_doc_add_input_file(&p[1], "a.py", "33");
    assert_int_equal(run_doc_merge(&m, p, NULL, 2), 0);
    json_t *cs = run_doc_configs(&m);
    assert_int_equal(json_array_size(cs), 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(str_at(cs, i, "module"), mods[i]);
    json_t *fs = json_object_get(json_object_get(m.root, "inputs"), "files");
    assert_int_equal(json_array_size(fs), 3);
    assert_string_equal(str_at(fs, 0, "path"), "a.py");
    assert_string_equal(str_at(fs, 1, "path"), "b.py");
    assert_string_equal(str_at(fs, 2, "path"), "upstream:x@v1");
    assert_null(json_object_get(m.root, "shard"));
    run_doc_free(&m);
    run_doc_free(&p[0]);
    run_doc_free(&p[1]);
    strvec_free(&all);
    strvec_free(&c1);
    strvec_free(&c2);
}

/* Two configs of different shards writing one file: each shard passed, the merge
 * fails with the unsharded gate's line, naming the pair the gate names (the first
 * in the workspace's order); a shard's own error is kept beside it. */
static void test_merge_shared_output(void **state)
{
    (void)state;
    strvec all = STRVEC_INIT, c1 = STRVEC_INIT, c2 = STRVEC_INIT;
    const char *mods[] = {"m.a", "m.a_b", "m.b"};
    for (int i = 0; i < 3; i++)
        strvec_push(&all, mods[i]);
    strvec_push(&c1, mods[1]);
    strvec_push(&c1, mods[2]);
    strvec_push(&c2, mods[0]);
    const char *m1[] = {"m.a_b", "m.b"}, *m2[] = {"m.a"}, *names[] = {"s1.json", "s2.json"};
    /* m/a/x.py (shard 2) comes before m/a-b/x.py (shard 1): discovery compares
     * paths part by part, where strcmp would put "a-b/" first */
    const char *cfg1[] = {"m/a-b/x.py", "m/b/x.py"}, *cfg2[] = {"m/a/x.py"};
    const char *out1[] = {"gen/two.py", "gen/one.py"}, *out2[] = {"gen/two.py"};
    run_doc p[2], m;
    part_run(&p[0], "v1", m1, 2);
    part_run(&p[1], "v1", m2, 1);
    run_doc_set_shard(&p[0], 1, 2, &c1, &all);
    run_doc_set_shard(&p[1], 2, 2, &c2, &all);
    run_doc_set_outputs(&p[0], cfg1, out1, 2);
    assert_int_equal(run_doc_merge(&m, p, names, 2), 0); /* shard 2 recorded none */
    run_doc_free(&m);
    run_doc_set_outputs(&p[1], cfg2, out2, 1);
    const char *want = "m/a/x.py and m/a-b/x.py both write gen/two.py, so each regeneration "
                       "overwrites the other's: give one of them another target_file";
    assert_int_equal(run_doc_merge(&m, p, names, 2), 1);
    assert_string_equal(pgci_error_last(), want);
    assert_string_equal(run_doc_error(&m), want);
    assert_null(json_object_get(m.root, "shard"));
    assert_int_equal(json_array_size(run_doc_configs(&m)), 3);
    run_doc_free(&m);
    run_doc_set_error(&p[1], "cannot fetch x: HTTP 404");
    assert_int_equal(run_doc_merge(&m, p, names, 2), 1);
    assert_non_null(strstr(run_doc_error(&m), "give one of them another target_file; s2.json: "
                                              "cannot fetch x: HTTP 404"));
    run_doc_free(&m);
    run_doc_free(&p[0]);
    run_doc_free(&p[1]);
    /* the same two parts as runs over named configs (`pgci check CONFIG...`, no
     * shard): the same line; a merge of clean parts writes what they all write */
    run_doc q[3];
    part_run(&q[0], "v1", m1, 2);
    part_run(&q[1], "v1", m2, 1);
    run_doc_set_outputs(&q[0], cfg1, out1, 2);
    run_doc_set_outputs(&q[1], cfg2, out2, 1);
    assert_null(json_object_get(q[0].root, "shard"));
    assert_int_equal(run_doc_merge(&m, q, names, 2), 1);
    assert_string_equal(run_doc_error(&m), want);
    run_doc_free(&m);
    const char *out3[] = {"gen/three.py"};
    run_doc_free(&q[1]);
    part_run(&q[1], "v1", m2, 1);
    run_doc_set_outputs(&q[1], cfg2, out3, 1);
    assert_int_equal(run_doc_merge(&m, q, names, 2), 0);
    json_t *o = json_object_get(m.root, "outputs");
    assert_int_equal(json_object_size(o), 3);
    assert_string_equal(json_string_value(json_object_get(o, "m/a/x.py")), "gen/three.py");
    assert_string_equal(json_string_value(json_object_get(o, "m/b/x.py")), "gen/one.py");
    run_doc_free(&m);
    run_doc_free(&q[0]);
    run_doc_free(&q[1]);
    strvec_free(&all);
    strvec_free(&c1);
    strvec_free(&c2);
}

static void test_markdown(void **state)
{
    (void)state;
    run_doc d;
    build_run(&d, 4);
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_true(pgci_starts_with(md.buf, "# Patchgen drift report\n"));
    assert_non_null(strstr(md.buf, "pgci checked 2 configs against transformers v1.0.0: 0 failed "
                                   "to regenerate, 1 drifted from its checked-in files."));
    assert_non_null(strstr(md.buf, "2 errors, 2 warnings, 0 notes."));
    assert_non_null(strstr(md.buf, "**1 check did not run**"));
    assert_non_null(strstr(md.buf, "## Drift from the checked-in files"));
    assert_non_null(strstr(md.buf, "## Undefined and redefined names"));
    /* the drift section comes before the names section */
    assert_true(strstr(md.buf, "## Drift") < strstr(md.buf, "## Undefined"));
    /* table cell text is escaped, the pipe in the title too */
    assert_non_null(strstr(md.buf, "name 'Optional' \\| x"));
    assert_non_null(strstr(md.buf, "```diff\n"));
    assert_non_null(strstr(md.buf, "Check `ruff-equivalence` did not run: ruff not found"));
    strbuf html = STRBUF_INIT;
    assert_int_equal(report_html(&html, &d), 0);
    assert_non_null(strstr(html.buf, "<h1>Patchgen drift report</h1>"));
    assert_non_null(strstr(html.buf, "<table>"));
    assert_non_null(strstr(html.buf, "<details>"));
    assert_null(strstr(html.buf, "http://"));
    strbuf_free(&md);
    strbuf_free(&html);
    run_doc_free(&d);
}

static void test_comment_limit(void **state)
{
    (void)state;
    run_doc d;
    build_run(&d, 3000);
    strbuf full = STRBUF_INIT, c = STRBUF_INIT;
    report_markdown(&full, &d);
    assert_true(full.len > 65536);
    report_comment(&c, &d, "https://example.invalid/run/1", 0);
    assert_true(pgci_starts_with(c.buf, REPORT_COMMENT_MARKER "\n"));
    assert_true(c.len <= 65536);
    assert_non_null(strstr(c.buf, "Left out to fit GitHub's comment limit"));
    assert_non_null(strstr(c.buf, "https://example.invalid/run/1"));
    /* the summary is always kept */
    assert_non_null(strstr(c.buf, "# Patchgen drift report"));
    /* fences are balanced: whole sections only */
    size_t fences = 0;
    for (const char *p = c.buf; (p = strstr(p, "```")); p += 3)
        fences++;
    assert_int_equal(fences % 2, 0);
    strbuf small = STRBUF_INIT;
    run_doc d2;
    build_run(&d2, 2);
    report_comment(&small, &d2, NULL, 0);
    assert_null(strstr(small.buf, "Left out"));
    strbuf_free(&full);
    strbuf_free(&c);
    strbuf_free(&small);
    run_doc_free(&d);
    run_doc_free(&d2);
}

/* A run with one huge section (drift on 1500 lines, each its own finding) before
 * small ones: the comment leaves out the huge one, not every section after it. */
static void build_run_one_huge(run_doc *d)
{
    run_doc_init(d, "check", 0);
    run_doc_set_config(d, "demo.cfg", "demo", "drift", NULL);
    run_doc_set_check(d, "drift", "ran", NULL);
    run_doc_set_check(d, "names", "ran", NULL);
    findings fs = FINDINGS_INIT;
    for (int i = 0; i < 1500; i++)
        findings_add(&fs, "drift", SEV_ERROR, "demo.cfg", "demo/generated/patched_modeling_demo.py",
                     (unsigned)(i + 1), 1, NULL, "line %d differs from the regenerated file", i);
    finding *f = findings_add(&fs, "names", SEV_ERROR, "demo.cfg", "demo/x.py", 3, 1, NULL,
                              "undefined name `Optional`");
    finding_set_detail(f, "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n");
    run_doc_set_findings(d, &fs);
    findings_free(&fs);
}

static void test_comment_drops_largest(void **state)
{
    (void)state;
    run_doc d;
    build_run_one_huge(&d);
    strbuf full = STRBUF_INIT, c = STRBUF_INIT;
    report_markdown(&full, &d);
    assert_true(full.len > 65536);
    report_comment(&c, &d, NULL, 0);
    assert_true(c.len <= 65536);
    assert_null(strstr(c.buf, "## Drift"));
    /* every other section is kept whole, in document order */
    const char *names = strstr(c.buf, "## Undefined"), *configs = strstr(c.buf, "## Configs");
    assert_non_null(names);
    assert_non_null(strstr(names, "```diff\n"));
    assert_true(names < configs);
    assert_true(configs < strstr(c.buf, "## Verification"));
    assert_non_null(strstr(c.buf, "## Follow-ups"));
    assert_non_null(strstr(c.buf, "\n> Left out to fit GitHub's comment limit: Drift from the "
                                  "checked-in files. The full report is in the run's artifacts"));
    assert_null(strstr(c.buf, "Truncated"));
    strbuf_free(&full);
    strbuf_free(&c);
    run_doc_free(&d);
}

/* A check section with huge diffs keeps its list of findings in the comment,
 * without the diffs, rather than going whole. */
static void test_comment_folds_check_details(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    run_doc_set_check(&d, "drift", "ran", NULL);
    run_doc_set_check(&d, "names", "ran", NULL);
    findings fs = FINDINGS_INIT;
    strbuf diff = STRBUF_INIT;
    strbuf_adds(&diff, "--- a/x.py\n+++ b/x.py\n@@ -1,2000 +1,2000 @@\n");
    for (int i = 0; i < 2000; i++)
        strbuf_addf(&diff, "-old line %d\n+new line %d\n", i, i);
    for (int i = 0; i < 10; i++) {
        finding *f = findings_add(&fs, "drift", SEV_ERROR, "demo.cfg", NULL, 0, 0, NULL,
                                  "demo/generated/patched_%d.py differs", i);
        finding_set_detail(f, diff.buf);
    }
    finding *f = findings_add(&fs, "names", SEV_ERROR, "demo.cfg", "demo/x.py", 3, 1, NULL,
                              "undefined name `Optional`");
    finding_set_detail(f, "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n");
    run_doc_set_findings(&d, &fs);
    strbuf c = STRBUF_INIT;
    report_comment(&c, &d, NULL, 0);
    assert_true(c.len <= 65536);
    const char *drift = strstr(c.buf, "## Drift"), *names = strstr(c.buf, "## Undefined");
    assert_non_null(drift);
    assert_non_null(names);
    assert_non_null(strstr(drift, "- **error** demo/generated/patched_0.py differs — `demo.cfg`\n"
                                  "- **error** demo/generated/patched_1.py differs"));
    assert_non_null(strstr(drift, "patched_9.py differs"));
    assert_true(strstr(drift, "```diff") > names); /* only the small section's diff */
    assert_non_null(strstr(c.buf, "\n> Shown without their details to fit GitHub's comment "
                                  "limit: Drift from the checked-in files. The full report"));
    assert_null(strstr(c.buf, "Left out"));
    strbuf_free(&diff);
    strbuf_free(&c);
    findings_free(&fs);
    run_doc_free(&d);
}

static void test_github_escaping(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    findings fs = FINDINGS_INIT;
    findings_add(&fs, "names", SEV_ERROR, "cfg", "a,b:c.py", 3, 7, NULL, "100%% bad\nline");
    findings_add(&fs, "targets", SEV_INFO, NULL, NULL, 0, 0, NULL, "note");
    run_doc_set_findings(&d, &fs);
    strbuf out = STRBUF_INIT;
    report_github(&out, &d);
    /* errors first, then warnings, then notes */
    assert_string_equal(out.buf,
                        "::error file=a%2Cb%3Ac.py,line=3,col=7,title=pgci names (cfg)::100%25 "
                        "bad%0Aline\n"
                        "::notice title=pgci targets::note\n");
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

/* A gate that could not run says so in one annotation, before any finding, so the
 * failure shows in the PR's checks. */
static void test_github_gate_error(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    findings fs = FINDINGS_INIT;
    findings_add(&fs, "names", SEV_WARNING, NULL, "x.py", 1, 0, NULL, "t");
    run_doc_set_findings(&d, &fs);
    run_doc_set_error(&d, "cannot fetch a:b, 100% gone\nHTTP 404");
    strbuf out = STRBUF_INIT;
    report_github(&out, &d);
    assert_string_equal(out.buf, "::error title=pgci::cannot fetch a:b, 100%25 gone%0AHTTP 404\n"
                                 "::warning file=x.py,line=1,title=pgci names::t\n");
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

/* A survey's run with one fact under two configs (ws/out.py line 39), the same
 * title at another line, and, when warning, at the same place as a warning. */
static void grouped_run(run_doc *d, findings *fs, int warning)
{
    run_doc_init(d, "survey", 0);
    findings_add(fs, "callees", SEV_ERROR, "a_cfg", "ws/out.py", 39, 0, NULL, "imports X");
    findings_add(fs, "callees", SEV_ERROR, "b_cfg", "ws/out.py", 39, 0, NULL, "imports X");
    findings_add(fs, "callees", SEV_ERROR, "b_cfg", "ws/out.py", 40, 0, NULL, "imports X");
    if (warning)
        findings_add(fs, "callees", SEV_WARNING, "c_cfg", "ws/out.py", 39, 0, NULL, "imports X");
    run_doc_set_findings(d, fs);
}

/* One fact under several configs (a workspace file every config imports) is one
 * annotation naming its configs, not one per config: GitHub shows ten of a kind,
 * and 145 of 181 errors of a real survey were five such facts. */
static void test_github_groups(void **state)
{
    (void)state;
    run_doc d;
    findings fs = FINDINGS_INIT;
    grouped_run(&d, &fs, 1);
    strbuf out = STRBUF_INIT;
    report_github(&out, &d);
    assert_string_equal(out.buf,
                        "::error file=ws/out.py,line=39,title=pgci callees (2 configs)::imports "
                        "X%0A%0Aconfigs: a_cfg, b_cfg\n"
                        "::error file=ws/out.py,line=40,title=pgci callees (b_cfg)::imports X\n"
                        "::warning file=ws/out.py,line=39,title=pgci callees (c_cfg)::imports X\n");
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

/* The facts of a kind at one line are one annotation, a line of it each (the
 * checks named when several; the configs after each fact when they differ, once
 * at the end when not; the column only when they share it), and a kind's
 * annotations go broadest first, then one for each file before a second for any:
 * a survey's 41 errors were 33 places, and its first ten were five lines of one
 * file before. */
static void test_github_places(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "survey", 0);
    const char *all[] = {"a_cfg", "b_cfg", "c_cfg", "d_cfg"};
    for (size_t i = 0; i < 4; i++)
        run_doc_set_config(&d, all[i], "x.py", "ok", NULL);
    findings fs = FINDINGS_INIT;
    findings_add(&fs, "signatures", SEV_ERROR, "a_cfg", "a.py", 9, 1, NULL, "renamed");
    findings_add(&fs, "signatures", SEV_ERROR, "a_cfg", "a.py", 12, 0, NULL, "vanished");
    findings_add(&fs, "regen", SEV_ERROR, "a_cfg", "a.py", 12, 3, NULL, "fails");
    findings_add(&fs, "callees", SEV_ERROR, "a_cfg", "a.py", 12, 0, NULL, "uses X");
    findings_add(&fs, "regen", SEV_ERROR, "b_cfg", "b.py", 5, 2, NULL, "fails here");
    findings_add(&fs, "regen", SEV_ERROR, "c_cfg", "b.py", 5, 2, NULL, "fails there");
    findings_add(&fs, "signatures", SEV_WARNING, "a_cfg", "a.py", 12, 0, NULL, "body changed");
    findings_add(&fs, "signatures", SEV_WARNING, "b_cfg", "a.py", 12, 0, NULL, "body changed");
    for (size_t i = 0; i < 4; i++) {
        findings_add(&fs, "callees", SEV_ERROR, all[i], "ws/out.py", 39, 0, NULL, "imports Y");
        findings_add(&fs, "callees", SEV_ERROR, all[i], "ws/out.py", 39, 0, NULL, "imports Z");
    }
    run_doc_set_findings(&d, &fs);
    strbuf out = STRBUF_INIT;
    report_github(&out, &d);
    assert_string_equal(out.buf,
                        /* every config's fact first, named so */
                        "::error file=ws/out.py,line=39,title=pgci callees (4 configs)::- imports "
                        "Y%0A- imports Z%0A%0Aconfigs: every config of the run (4)\n"
                        /* then the first place of each file */
                        "::error file=b.py,line=5,col=2,title=pgci regen (2 configs)::- fails "
                        "here (b_cfg)%0A- fails there (c_cfg)\n"
                        "::error file=a.py,line=9,col=1,title=pgci signatures (a_cfg)::renamed\n"
                        /* in the run's order (findings sort by column) */
                        "::error file=a.py,line=12,title=pgci callees%2C signatures%2C regen "
                        "(a_cfg)::- callees: uses X%0A- signatures: vanished%0A- regen: fails\n"
                        "::warning file=a.py,line=12,title=pgci signatures (2 configs)::body "
                        "changed%0A%0Aconfigs: a_cfg, b_cfg\n");
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

/* More of a kind than GitHub shows (ten a step, first come first shown): the kind
 * opens with one annotation saying how many there are and where the rest are; ten
 * of a kind need none. The gate's own error counts among the errors shown. */
static void test_github_limit(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    findings fs = FINDINGS_INIT;
    char t[32];
    for (int i = 0; i < 12; i++) {
        snprintf(t, sizeof t, "e%d", i);
        findings_add(&fs, "names", SEV_ERROR, "cfg", "x.py", i + 1, 0, NULL, t);
        findings_add(&fs, "names", SEV_ERROR, "cfg2", "x.py", i + 1, 0, NULL, t);
    }
    for (int i = 0; i < 10; i++) {
        snprintf(t, sizeof t, "w%d", i);
        findings_add(&fs, "names", SEV_WARNING, "cfg", "x.py", i + 1, 0, NULL, t);
    }
    for (int i = 0; i < 11; i++) {
        snprintf(t, sizeof t, "n%d", i);
        findings_add(&fs, "names", SEV_INFO, "cfg", "x.py", i + 1, 0, NULL, t);
    }
    run_doc_set_findings(&d, &fs);
    run_doc_set_error(&d, "gone");
    strbuf out = STRBUF_INIT;
    report_github(&out, &d);
    const char *want =
        "::error title=pgci::gone\n"
        "::error title=pgci::12 errors (24 findings: one under several configs is one "
        "annotation). GitHub shows 10 annotations of each kind a step, this one and the first "
        "8; every one is in this step's log and the job summary.\n"
        "::notice title=pgci::11 notes. GitHub shows 10 annotations of each kind a step, this "
        "one and the first 9; every one is in this step's log and the job summary.\n"
        "::";
    assert_int_equal(strncmp(out.buf, want, strlen(want)), 0);
    /* 2 + 1 announcements, then one line per distinct finding */
    size_t lines = 0;
    for (const char *p = out.buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3 + 12 + 10 + 11);
    assert_null(strstr(out.buf, "warnings."));
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

static void test_sarif(void **state)
{
    (void)state;
    run_doc d;
    build_run(&d, 3);
    strbuf out = STRBUF_INIT;
    report_sarif(&out, &d);
    json_error_t e;
    json_t *s = json_loads(out.buf, 0, &e);
    assert_non_null(s);
    assert_string_equal(json_string_value(json_object_get(s, "version")), "2.1.0");
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    json_t *rules =
        json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
    assert_int_equal(json_array_size(rules), 2);
    json_t *res = json_object_get(run, "results");
    assert_int_equal(json_array_size(res), 3);
    json_t *r0 = json_array_get(res, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "level")), "warning");
    json_decref(s);
    strbuf_free(&out);
    run_doc_free(&d);
}

/* Code scanning gets one result per distinct finding too, its configs in the
 * message and as a property. */
static void test_sarif_groups(void **state)
{
    (void)state;
    run_doc d;
    findings fs = FINDINGS_INIT;
    grouped_run(&d, &fs, 0);
    strbuf out = STRBUF_INIT;
    report_sarif(&out, &d);
    json_error_t e;
    json_t *s = json_loads(out.buf, 0, &e);
    assert_non_null(s);
    json_t *res = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "results");
    assert_int_equal(json_array_size(res), 2);
    json_t *r0 = json_array_get(res, 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r0, "message"), "text")),
                        "imports X (2 configs: a_cfg, b_cfg)");
    json_t *cfgs = json_object_get(json_object_get(r0, "properties"), "configs");
    assert_int_equal(json_array_size(cfgs), 2);
    assert_string_equal(json_string_value(json_array_get(cfgs, 1)), "b_cfg");
    json_t *r1 = json_array_get(res, 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r1, "message"), "text")),
                        "imports X (config b_cfg)");
    json_decref(s);
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

/* A detail holding a code fence of its own must not close the report's fence
 * (a bug found while writing the sample run: the rest of the page became code). */
static void test_fence_in_detail(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    findings fs = FINDINGS_INIT;
    finding *f = findings_add(&fs, "drift", SEV_ERROR, "cfg", "x.py", 1, 1, NULL, "t");
    finding_set_detail(f, "--- a\n+++ b\n@@ -1 +1 @@\n ```\n-````x\n+y\n");
    run_doc_set_findings(&d, &fs);
    strbuf html = STRBUF_INIT;
    assert_int_equal(report_html(&html, &d), 0);
    assert_non_null(strstr(html.buf, "<h2>Configs</h2>"));
    assert_non_null(strstr(html.buf, "-````x"));
    const char *pre = strstr(html.buf, "<pre>");
    assert_non_null(pre);
    assert_null(strstr(pre + 1, "<pre>"));
    assert_true(strstr(html.buf, "</pre>") < strstr(html.buf, "<h2>Configs</h2>"));
    strbuf_free(&html);
    findings_free(&fs);
    run_doc_free(&d);
}

/* A finding's title in Markdown: code spans kept, paths without backslashes. */
static void test_md_inline(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    md_inline(&sb, "`Qwen3MLP.fowrard` is not defined upstream: did you mean `forward`?");
    assert_string_equal(sb.buf,
                        "`Qwen3MLP.fowrard` is not defined upstream: did you mean `forward`?");
    strbuf_reset(&sb);
    md_inline(&sb, "veomni/models/qwen3_5/generated/patched_modeling_qwen3_5_gpu.py differs");
    assert_string_equal(sb.buf,
                        "veomni/models/qwen3_5/generated/patched_modeling_qwen3_5_gpu.py differs");
    strbuf_reset(&sb);
    /* markup outside code spans is escaped; an unpaired backtick too */
    md_inline(&sb, "_x_ a*b <i> `a|b` and ` alone");
    assert_string_equal(sb.buf, "\\_x\\_ a\\*b &lt;i&gt; `a|b` and \\` alone");
    strbuf_reset(&sb);
    /* an empty pair is two literal backticks, then a span is a span again */
    md_inline(&sb, "``a`b``");
    assert_string_equal(sb.buf, "\\``a`b\\`\\`");
    strbuf_free(&sb);
}

/* Any text is one code span, whatever backticks it holds. */
static void test_md_code(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    md_code(&sb, "/tmp/my_ws");
    assert_string_equal(sb.buf, "`/tmp/my_ws`");
    strbuf_reset(&sb);
    md_code(&sb, "a`<img src=x onerror=y>`b");
    assert_string_equal(sb.buf, "``a`<img src=x onerror=y>`b``");
    strbuf_reset(&sb);
    md_code(&sb, "`x``");
    assert_string_equal(sb.buf, "``` `x`` ```");
    strbuf_reset(&sb);
    md_code(&sb, "");
    assert_string_equal(sb.buf, "` `");
    strbuf_reset(&sb);
    md_fenced(&sb, "a\n```\nb", "diff", "  ");
    assert_string_equal(sb.buf, "  ````diff\n  a\n  ```\n  b\n  ````\n");
    strbuf_free(&sb);
}

/* The Verification list shows inputs as code, without Markdown escapes in it. */
static void test_inputs_as_code(void **state)
{
    (void)state;
    run_doc d;
    build_run(&d, 1);
    run_doc_set_input(&d, "workspace", "/tmp/h4/my_ws");
    run_doc_set_input(&d, "upstream", "dir `x` <b>");
    strbuf md = STRBUF_INIT;
    report_markdown(&md, &d);
    assert_non_null(strstr(md.buf, "- workspace: `/tmp/h4/my_ws`\n"));
    assert_non_null(strstr(md.buf, "- upstream: ``dir `x` <b>``\n"));
    strbuf_free(&md);
    run_doc_free(&d);
}

/* Defense in depth: HTML the report does not write itself is text in the page. */
static void test_html_defused(void **state)
{
    (void)state;
    const char *md =
        "<table>\n<tr><td><code>a</code></td></tr>\n</table>\n\n"
        "x <img src=x onerror=alert(1)> <strong>y</strong> [l](javascript:alert(1))\n\n"
        "<script>alert(1)</script>\n\n<details><summary>s</summary>\n\nz\n\n</details>\n";
    char *html = report_html_body(md, strlen(md));
    assert_non_null(html);
    assert_null(strstr(html, "<img"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "javascript:"));
    assert_non_null(strstr(html, "&lt;img src=x onerror=alert(1)&gt;"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "<table>\n<tr><td><code>a</code></td></tr>"));
    assert_non_null(strstr(html, "<strong>y</strong>"));
    assert_non_null(strstr(html, "<details><summary>s</summary>"));
    free(html);
}

/* The comment's last-resort cut of a huge one-line error keeps its start and
 * closes nothing that is not open (the note used to land in a code block). */
static void test_comment_long_error(void **state)
{
    (void)state;
    run_doc d;
    build_run(&d, 2);
    strbuf e = STRBUF_INIT, c = STRBUF_INIT;
    strbuf_adds(&e, "ruff said:");
    for (int i = 0; i < 12000; i++)
        strbuf_addf(&e, " word%d", i);
    run_doc_set_error(&d, e.buf);
    report_comment(&c, &d, NULL, 0);
    assert_true(c.len <= 65536);
    assert_non_null(strstr(c.buf, "**The gate could not run**: ruff said: word0 word1"));
    assert_null(strstr(c.buf, "```"));
    assert_null(strstr(c.buf, "</details>"));
    assert_non_null(strstr(c.buf, " …\n\n> Truncated to fit"));
    strbuf_free(&e);
    strbuf_free(&c);
    run_doc_free(&d);
}

/* SARIF artifact URIs are percent-encoded (RFC 3986: unreserved and '/' kept). */
static void test_sarif_uri(void **state)
{
    (void)state;
    run_doc d;
    run_doc_init(&d, "check", 0);
    findings fs = FINDINGS_INIT;
    findings_add(&fs, "names", SEV_ERROR, "cfg", "a b/<c>\"`|%é_~.py", 1, 1, NULL, "t");
    run_doc_set_findings(&d, &fs);
    strbuf out = STRBUF_INIT;
    report_sarif(&out, &d);
    json_t *s = json_loads(out.buf, 0, NULL);
    json_t *r0 = json_array_get(
        json_object_get(json_array_get(json_object_get(s, "runs"), 0), "results"), 0);
    json_t *loc = json_object_get(
        json_object_get(json_array_get(json_object_get(r0, "locations"), 0), "physicalLocation"),
        "artifactLocation");
    assert_string_equal(json_string_value(json_object_get(loc, "uri")),
                        "a%20b/%3Cc%3E%22%60%7C%25%C3%A9_~.py");
    json_decref(s);
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md_inline),
        cmocka_unit_test(test_roundtrip_and_validation),
        cmocka_unit_test(test_merge_sorted),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_comment_limit),
        cmocka_unit_test(test_comment_drops_largest),
        cmocka_unit_test(test_comment_folds_check_details),
        cmocka_unit_test(test_github_escaping),
        cmocka_unit_test(test_github_gate_error),
        cmocka_unit_test(test_github_groups),
        cmocka_unit_test(test_github_places),
        cmocka_unit_test(test_github_limit),
        cmocka_unit_test(test_sarif_groups),
        cmocka_unit_test(test_sarif),
        cmocka_unit_test(test_fence_in_detail),
        cmocka_unit_test(test_merge_errors),
        cmocka_unit_test(test_merge_refuses),
        cmocka_unit_test(test_merge_order),
        cmocka_unit_test(test_merge_verify_parts),
        cmocka_unit_test(test_merge_suite_runs_disagree),
        cmocka_unit_test(test_merge_shared_output),
        cmocka_unit_test(test_md_code),
        cmocka_unit_test(test_inputs_as_code),
        cmocka_unit_test(test_html_defused),
        cmocka_unit_test(test_comment_long_error),
        cmocka_unit_test(test_sarif_uri),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
