/* Unit tests for src/verify: the JUnit reader (pytest's shape, nesting, every
 * outcome, clipping, refusals), [tool.pgci.verify] reading and its errors, and one
 * suite run end to end through sh. The e2e test tests/e2e/verify.sh drives every
 * suite outcome through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "verify/junit.h"
#include "verify/verify.h"

/* What pytest 8 writes with --junitxml (abridged). */
static const char PYTEST_XML[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\" "
    "errors=\"1\" failures=\"1\" skipped=\"1\" tests=\"4\" time=\"1.5\">"
    "<testcase classname=\"tests.test_logits\" name=\"test_llama\" time=\"0.25\" />"
    "<testcase classname=\"tests.test_logits\" name=\"test_qwen3[bf16]\" time=\"0.5\">"
    "<failure message=\"AssertionError: logits differ &amp; more\">def test():\n"
    ">       assert a == b\nE       AssertionError</failure></testcase>"
    "<testcase classname=\"tests.test_logits\" name=\"test_npu\" time=\"0.0\">"
    "<skipped type=\"pytest.skip\" message=\"needs an NPU\">tests/x.py:3: needs an NPU</skipped>"
    "</testcase>"
    "<testcase classname=\"\" name=\"tests.test_broken\" time=\"0.01\">"
    "<error message=\"collection failure\">ImportError: no module</error></testcase>"
    "</testsuite></testsuites>";

static void test_junit_pytest(void **state)
{
    (void)state;
    junit_result r;
    assert_int_equal(junit_parse(&r, PYTEST_XML, strlen(PYTEST_XML), "x.xml"), 0);
    assert_int_equal(r.cases.len, 4);
    assert_int_equal(r.counts[JUNIT_PASSED], 1);
    assert_int_equal(r.counts[JUNIT_FAILED], 1);
    assert_int_equal(r.counts[JUNIT_SKIPPED], 1);
    assert_int_equal(r.counts[JUNIT_ERROR], 1);
    const junit_case *c = &r.cases.items[1];
    assert_string_equal(c->classname, "tests.test_logits");
    assert_string_equal(c->name, "test_qwen3[bf16]");
    assert_int_equal(c->status, JUNIT_FAILED);
    assert_string_equal(c->message, "AssertionError: logits differ & more");
    assert_string_equal(c->trace, "def test():\n>       assert a == b\nE       AssertionError");
    assert_true(c->seconds == 0.5);
    assert_string_equal(r.cases.items[2].message, "needs an NPU");
    assert_null(r.cases.items[2].trace);
    assert_string_equal(r.cases.items[3].classname, "");
    assert_string_equal(r.cases.items[3].message, "collection failure");
    assert_true(r.seconds > 0.759 && r.seconds < 0.761);
    junit_result_free(&r);
}

static void test_junit_shapes(void **state)
{
    (void)state;
    junit_result r;
    /* a bare <testsuite> root, nested suites, a skip with only text, a bad time */
    const char *x = "<testsuite><testsuite><testsuite><testcase name=\"deep\" time=\"-3\"/>"
                    "</testsuite></testsuite><testcase name=\"s\" time=\"nan\"><skipped>\n"
                    "  reason in text\nsecond line</skipped></testcase></testsuite>";
    assert_int_equal(junit_parse(&r, x, strlen(x), "x.xml"), 0);
    assert_int_equal(r.cases.len, 2);
    assert_string_equal(r.cases.items[0].name, "deep");
    assert_true(r.cases.items[0].seconds == 0);
    assert_int_equal(r.cases.items[1].status, JUNIT_SKIPPED);
    assert_string_equal(r.cases.items[1].message, "  reason in text");
    junit_result_free(&r);

    /* a failure's text is kept to its first JUNIT_TRACE_LINES lines */
    strbuf big = STRBUF_INIT;
    strbuf_adds(&big, "<testsuites><testcase name=\"t\"><failure message=\"m\">");
    for (int i = 1; i <= 50; i++)
        strbuf_addf(&big, "line %d\n", i);
    strbuf_adds(&big, "</failure></testcase></testsuites>");
    assert_int_equal(junit_parse(&r, big.buf, big.len, "x.xml"), 0);
    const char *t = r.cases.items[0].trace;
    int lines = 1;
    for (const char *p = t; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, JUNIT_TRACE_LINES);
    assert_non_null(strstr(t, "line 20"));
    assert_null(strstr(t, "line 21"));
    junit_result_free(&r);
    strbuf_free(&big);

    /* clipping at JUNIT_TEXT_MAX bytes never cuts a UTF-8 sequence */
    strbuf wide = STRBUF_INIT;
    strbuf_adds(&wide, "<testsuites><testcase name=\"t\"><failure message=\"m\">x");
    for (int i = 0; i < JUNIT_TEXT_MAX; i++)
        strbuf_adds(&wide, "\xc3\xa9");
    strbuf_adds(&wide, "</failure></testcase></testsuites>");
    assert_int_equal(junit_parse(&r, wide.buf, wide.len, "x.xml"), 0);
    t = r.cases.items[0].trace;
    assert_true(strlen(t) <= JUNIT_TEXT_MAX);
    assert_int_equal(strlen(t) % 2, 1); /* "x" and whole two-byte characters */
    junit_result_free(&r);
    strbuf_free(&wide);
}

static void test_junit_refusals(void **state)
{
    (void)state;
    junit_result r;
    const char *cut = "<testsuites><testsuite><testcase name=\"a\">";
    assert_int_equal(junit_parse(&r, cut, strlen(cut), "cut.xml"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "cut.xml:1: malformed XML: "));
    assert_int_equal(r.cases.len, 0);
    const char *root = "<results><testcase name=\"a\"/></results>";
    assert_int_equal(junit_parse(&r, root, strlen(root), "r.xml"), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(),
                        "r.xml: the root element is <results>, not <testsuites> or <testsuite>");
    /* no DTD, so no entity can be declared, let alone expanded */
    const char *lol = "<?xml version=\"1.0\"?><!DOCTYPE t [<!ENTITY a \"aaaaaaaaaa\">"
                      "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
                      "<testsuites><testcase name=\"&b;\"/></testsuites>";
    assert_int_equal(junit_parse(&r, lol, strlen(lol), "lol.xml"), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(), "lol.xml: has a <!DOCTYPE>; JUnit XML has none");
    assert_int_equal(junit_parse(&r, "", 0, "empty.xml"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "empty.xml"));
    assert_string_equal(junit_status_name(JUNIT_ERROR), "error");
}

/* --- [tool.pgci.verify] --------------------------------------------------------- */

static int read_cfg(const char *pgci_table, verify_config *c, workspace **wsp)
{
    strbuf src = STRBUF_INIT;
    strbuf_addf(&src, "[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n%s",
                pgci_table);
    workspace *ws = pgci_calloc(1, sizeof(*ws));
    ws->root = pgci_strdup("/ws");
    ws->pyproject_name = pgci_strdup("pyproject.toml");
    toml_value *doc = NULL;
    assert_int_equal(toml_parse(&doc, src.buf, src.len, "pyproject.toml"), 0);
    ws->doc = doc;
    strbuf_free(&src);
    assert_int_equal(workspace_read_pyproject(ws, doc), 0);
    *wsp = ws;
    return verify_config_read(c, ws);
}

static void test_config(void **state)
{
    (void)state;
    verify_config c;
    workspace *ws;
    assert_int_equal(
        read_cfg("[tool.pgci]\npython = [\"uv\", \"run\", \"python\"]\n"
                 "[tool.pgci.verify]\n"
                 "logits = { argv = [\"{python}\", \"-m\", \"pytest\", \"--junitxml={junit}\"], "
                 "gpu = true, timeout = 60, cwd = \"tests\", env = { A = \"1\" } }\n"
                 "[tool.pgci.verify.unit]\nargv = [\"make\", \"JUNIT={junit}\"]\n",
                 &c, &ws),
        0);
    assert_int_equal(c.suites.len, 2);
    const verify_suite *s = verify_config_find(&c, "logits");
    assert_non_null(s);
    assert_int_equal(s->argv.len, 4);
    assert_string_equal(s->argv.items[3], "--junitxml={junit}");
    assert_true(s->gpu);
    assert_int_equal(s->timeout_s, 60);
    assert_string_equal(s->cwd, "tests");
    assert_string_equal(s->env.items[0], "A=1");
    s = verify_config_find(&c, "unit");
    assert_false(s->gpu);
    assert_int_equal(s->timeout_s, VERIFY_DEFAULT_TIMEOUT_S);
    assert_null(s->cwd);
    assert_int_equal(c.python.len, 3);
    assert_null(verify_config_find(&c, "nope"));
    verify_config_free(&c);
    workspace_free(ws);
}

static void expect_config_error(const char *table, const char *msg)
{
    verify_config c;
    workspace *ws;
    assert_int_equal(read_cfg(table, &c, &ws), PGCI_EINVALID);
    if (!strstr(pgci_error_last(), msg))
        fail_msg("expected '%s' in '%s'", msg, pgci_error_last());
    assert_int_equal(c.suites.len, 0);
    workspace_free(ws);
}

static void test_config_errors(void **state)
{
    (void)state;
    expect_config_error("[tool.pgci]\nverify = 3\n",
                        "pyproject.toml:5: [tool.pgci.verify] must be a table of suites");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"pytest\"] }\n",
                        "pyproject.toml:5: [tool.pgci.verify] x.argv must be an array naming "
                        "{junit}");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [] }\n", "x.argv must be a non-empty");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"a\", 3] }\n",
                        "x.argv must be a non-empty array of strings");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"{junit}\"], cwd = \"../up\" }\n",
                        "x.cwd must be a directory inside the workspace");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"{junit}\"], timeout = 0 }\n",
                        "x.timeout must be a number of seconds");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"{junit}\"], env = { A = 1 } }\n",
                        "x.env must be a table");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"{junit}\"], gpu = \"yes\" }\n",
                        "x.gpu must be true or false");
    expect_config_error("[tool.pgci.verify]\nx = { argv = [\"{junit}\"], shell = true }\n",
                        "x has an unknown key 'shell'");
    expect_config_error("[tool.pgci.verify]\nx = { gpu = true }\n", "x.argv must be set");
    expect_config_error("[tool.pgci.verify]\n\"a b\" = { argv = [\"{junit}\"] }\n",
                        "a b must be a name of letters");
    expect_config_error("[tool.pgci]\npython = []\n", "[tool.pgci] python must be a command");
}

/* --- one suite, through sh ------------------------------------------------------ */

static json_t *run_sh(const char *script, int gpu_suite, const char *python)
{
    verify_config c;
    memset(&c, 0, sizeof(c));
    verify_suite s;
    memset(&s, 0, sizeof(s));
    s.name = "sh";
    s.timeout_s = 20;
    s.gpu = gpu_suite;
    const char *argv[] = {"sh", "-c", script, "sh", "{junit}", "{python}"};
    for (size_t i = 0; i < 6; i++)
        strvec_push(&s.argv, argv[i]);
    strbuf dir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-test-verify"), 0);
    verify_run_opts o = {.root = dir.buf, .ws_root = dir.buf, .out_dir = dir.buf, .gpu = 0};
    o.python = python;
    json_t *out = NULL;
    int rc = verify_run_suite(&out, &c, &s, &o);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strvec_free(&s.argv);
    if (rc < 0)
        return NULL;
    return out;
}

static const char *status_of(json_t *s)
{
    return json_string_value(json_object_get(s, "status"));
}

static void test_run_suite(void **state)
{
    (void)state;
    json_t *s = run_sh("printf '<testsuites><testcase name=\"a\"/></testsuites>' > \"$1\"; "
                       "test \"$2\" = /opt/py",
                       0, "/opt/py");
    assert_string_equal(status_of(s), "passed");
    assert_int_equal(json_integer_value(json_object_get(s, "exit_status")), 0);
    /* {python} spliced as one argument, {junit} expanded */
    assert_string_equal(json_string_value(json_array_get(json_object_get(s, "argv"), 5)),
                        "/opt/py");
    json_decref(s);
    /* {python} with no python at all is a configuration error */
    assert_null(run_sh("true", 0, NULL));
    assert_non_null(strstr(pgci_error_last(), "neither --python nor [tool.pgci] python"));
    /* exit 0 with no XML: not run */
    s = run_sh("exit 0", 0, "p");
    assert_string_equal(status_of(s), "not-run");
    assert_string_equal(json_string_value(json_object_get(s, "reason")),
                        "exited with status 0 without writing its JUnit XML");
    json_decref(s);
    /* cases all passed but a non-zero exit: failed, with the reason */
    s = run_sh("printf '<testsuite><testcase name=\"a\"/></testsuite>' > \"$1\"; exit 4", 0, "p");
    assert_string_equal(status_of(s), "failed");
    assert_string_equal(json_string_value(json_object_get(s, "reason")),
                        "exited with status 4 although no case failed");
    json_decref(s);
    /* no case at all: not run */
    s = run_sh("printf '<testsuites/>' > \"$1\"", 0, "p");
    assert_string_equal(status_of(s), "not-run");
    assert_non_null(strstr(json_string_value(json_object_get(s, "reason")), "no test case"));
    json_decref(s);
    /* a GPU suite without a GPU does not even start */
    s = run_sh("touch /nonexistent/ran", 1, "p");
    assert_string_equal(status_of(s), "not-run");
    assert_string_equal(json_string_value(json_object_get(s, "reason")),
                        "needs a GPU and this machine shows none");
    assert_true(json_is_null(json_object_get(s, "exit_status")));
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_junit_pytest),   cmocka_unit_test(test_junit_shapes),
        cmocka_unit_test(test_junit_refusals), cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_errors),  cmocka_unit_test(test_run_suite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
