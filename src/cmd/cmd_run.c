/*
 * pgci run: the whole pipeline with the workspace's defaults, and a summary.
 *
 *   fetch -> index -> regen -> checks -> (logits on the CPU) -> reports
 *
 * With no workspace (no pyproject.toml with [tool.patchgen] at or above the
 * current directory and no -C), it runs on the bundled demo workspace, whose
 * upstream is the hand-written fixture tree, so it needs no network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/logits.h"
#include "cmd/cmd.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "index/index.h"
#include "pipeline/gate.h"
#include "pipeline/pipeline.h"
#include "reports/render.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

#ifndef PGCI_DEMO_DIR
#define PGCI_DEMO_DIR "fixtures/workspace"
#endif

static const char usage[] = "pgci run [-C DIR] [--tag T] [-o DIR] [--ruff CMD | --no-ruff] "
                            "[--toy DIR ...] [--no-logits]";

static const char *demo_dir(void)
{
    const char *env = getenv("PGCI_DEMO_DIR");
    return env && *env ? env : PGCI_DEMO_DIR;
}

/* Fetch and index every module the configs name, at the tag: the first two stages,
 * reported as counts. Failures are printed and counted, and the gate reports them
 * again per config. */
static void fetch_and_index(const workspace *ws, const char *tag, const char *ruff_src, int jobs,
                            run_doc *doc)
{
    (void)ruff_src;
    strvec mods = STRVEC_INIT;
    if (workspace_source_modules(ws, &mods) < 0) {
        log_warn("cannot list the upstream modules: %s", pgci_error_last());
        pgci_error_clear();
        return;
    }
    upstream *up;
    if (pipeline_upstream_open(&up, ws, NULL, NULL, jobs) < 0) {
        log_warn("%s", pgci_error_last());
        pgci_error_clear();
        strvec_free(&mods);
        return;
    }
    double t0 = now_ms();
    strbuf *src = pgci_calloc(mods.len + 1, sizeof(strbuf));
    char **errs = pgci_calloc(mods.len + 1, sizeof(char *));
    for (size_t i = 0; i < mods.len; i++)
        strbuf_init(&src[i], 0);
    upstream_fetch_all(up, tag, &mods, src, errs);
    pgci_error_clear();
    run_doc_add_timing(doc, "fetch", now_ms() - t0);
    upstream_stats st;
    upstream_get_stats(up, &st);
    t0 = now_ms();
    size_t ok = 0, classes = 0, functions = 0, methods = 0, bytes = 0;
    for (size_t i = 0; i < mods.len; i++) {
        if (errs[i]) {
            printf("  fetch  %s: %s\n", mods.items[i], errs[i]);
            continue;
        }
        index_module *m;
        if (index_module_from_source(&m, src[i].buf, src[i].len, mods.items[i], mods.items[i]) <
            0) {
            printf("  index  %s: %s\n", mods.items[i], pgci_error_last());
            pgci_error_clear();
            continue;
        }
        ok++;
        bytes += src[i].len;
        classes += m->n_classes;
        functions += m->n_functions;
        methods += m->n_methods;
        index_module_free(m);
    }
    run_doc_add_timing(doc, "index", now_ms() - t0);
    printf("fetch   %zu of %zu upstream modules at %s from %s (%zu read, %zu from cache, %zu "
           "bytes)\n",
           ok, mods.len, tag, upstream_describe(up), st.fetched, st.cached, bytes);
    printf("index   %zu classes, %zu functions, %zu methods\n", classes, functions, methods);
    for (size_t i = 0; i < mods.len; i++) {
        strbuf_free(&src[i]);
        free(errs[i]);
    }
    free(src);
    free(errs);
    upstream_free(up);
    strvec_free(&mods);
}

static void merge_logits(gate_result *g, const char *const *toys, size_t n_toys)
{
    logits_opts lo;
    memset(&lo, 0, sizeof(lo));
    lo.toys = toys;
    lo.n_toys = n_toys;
    lo.family = -1;
    lo.fp32 = lo.bf16 = 1;
    lo.device = LOGITS_DEVICE_AUTO;
    lo.batch = 1;
    lo.seq = 8;
    lo.seed = 1234;
    logits_report rep;
    memset(&rep, 0, sizeof(rep));
    double t0 = now_ms();
    if (check_logits(&lo, &rep, &g->fs) < 0) {
        run_doc_set_check(&g->doc, "logits", "failed", pgci_error_last());
        printf("logits  could not run: %s\n", pgci_error_last());
        strvec_push_owned(&g->not_run, pgci_asprintf("logits: %s", pgci_error_last()));
        pgci_error_clear();
    } else {
        size_t pass = 0, fail = 0, skip = 0;
        for (size_t i = 0; i < rep.len; i++) {
            pass += rep.rows[i].status == LOGITS_PASS;
            fail += rep.rows[i].status == LOGITS_FAIL;
            skip += rep.rows[i].status == LOGITS_SKIP;
        }
        run_doc_set_check(&g->doc, "logits", skip && !pass && !fail ? "not-run" : "ran",
                          skip ? "some comparisons were skipped (no CUDA device)" : NULL);
        printf("logits  %zu passed, %zu failed, %zu skipped (kernels vs the reference on %zu toy "
               "configs)\n",
               pass, fail, skip, n_toys);
    }
    run_doc_add_timing(&g->doc, "logits", now_ms() - t0);
    logits_report_free(&rep);
    findings_sort(&g->fs);
    run_doc_set_findings(&g->doc, &g->fs);
}

static int write_reports(const run_doc *d, const char *dir)
{
    int r = fs_mkdirs(dir);
    strbuf p = STRBUF_INIT, out = STRBUF_INIT;
    if (r == 0) {
        fs_join(&p, dir, "run.json");
        r = run_doc_write(d, p.buf);
    }
    if (r == 0) {
        report_markdown(&out, d);
        strbuf_reset(&p);
        fs_join(&p, dir, "report.md");
        r = fs_write_atomic(p.buf, out.buf, out.len);
    }
    if (r == 0) {
        strbuf_reset(&out);
        r = report_html(&out, d);
        strbuf_reset(&p);
        fs_join(&p, dir, "report.html");
        if (r == 0)
            r = fs_write_atomic(p.buf, out.buf, out.len);
    }
    strbuf_free(&p);
    strbuf_free(&out);
    return r;
}

/* The workspace at or above the current directory, or (none there, and no -C) the
 * bundled demo. *dir: the directory opened. */
static int open_workspace(const char *given, workspace **ws, const char **dir_out)
{
    const char *dir = given;
    if (!dir) {
        if (workspace_open(ws, ".") == 0) {
            dir = ".";
        } else {
            pgci_error_clear();
            dir = demo_dir();
            log_info("no workspace here: running on the bundled demo (%s)", dir);
        }
        if (!strcmp(dir, "."))
            workspace_free(*ws);
    }
    *dir_out = dir;
    return workspace_open(ws, dir);
}

/* The demo's toy models: every fixtures/toy_config/<name>/config.json */
static void add_demo_toys(const char *dir, strvec *toys)
{
    strbuf demo_toys = STRBUF_INIT;
    char *parent = fs_dirname(dir);
    fs_join(&demo_toys, parent, "toy_config");
    free(parent);
    strvec names = STRVEC_INIT;
    if (fs_list_dir(&names, demo_toys.buf) == 0) {
        for (size_t n = 0; n < names.len; n++) {
            strbuf t = STRBUF_INIT;
            fs_join(&t, demo_toys.buf, names.items[n]);
            strbuf_adds(&t, "/config.json");
            if (fs_is_file(t.buf))
                strvec_push(toys, t.buf);
            strbuf_free(&t);
        }
    }
    pgci_error_clear();
    strvec_free(&names);
    strbuf_free(&demo_toys);
}

/* The "checks" and "result" lines. */
static void print_checks(const gate_result *g)
{
    size_t e = findings_count_at_least(&g->fs, SEV_ERROR);
    size_t w = findings_count_at_least(&g->fs, SEV_WARNING) - e;
    printf("checks  ");
    json_t *c;
    size_t i;
    json_array_foreach(run_doc_checks(&g->doc), i, c)
        printf("%s%s:%s", i ? ", " : "", json_string_value(json_object_get(c, "id")),
               json_string_value(json_object_get(c, "status")));
    printf("\nresult  %zu errors, %zu warnings, %zu notes\n", e, w, g->fs.len - e - w);
}

int cmd_run(int argc, const char **argv)
{
    common_opts common = {0};
    gate_opts go;
    memset(&go, 0, sizeof(go));
    const char *outdir = "pgci-report", *fail_on = "error";
    int no_logits = 0;
    strvec toys = STRVEC_INIT, rest = STRVEC_INIT;
    opt table[] = {
        OPT_STR('t', "tag", &go.tag, "TAG", "upstream tag (default: v + the workspace pin)"),
        OPT_STR('o', "output", &outdir, "DIR", "where run.json and the reports go (pgci-report)"),
        OPT_STR(0, "ruff", &go.ruff, "CMD", "the ruff command (default: [tool.pgci] ruff, ruff)"),
        OPT_BOOL(0, "no-ruff", &go.no_ruff, "no ruff: compare structure instead of bytes"),
        OPT_LIST(0, "toy", &toys, "DIR", "toy model configs for the logits check"),
        OPT_BOOL(0, "no-logits", &no_logits, "skip the logits check"),
        OPT_STR(0, "fail-on", &fail_on, "SEV", "exit 1 on findings at or above error|warning|info"),
        OPT_BOOL(0, "timestamp", &go.timestamp, "record the time in run.json"),
        OPT_END(),
    };
    int code;
    if (cmd_parse(argc, argv, table, &common, usage,
                  "Runs fetch, index, regen, the checks and the reports on the workspace (the "
                  "bundled demo when there is none).",
                  &rest, &code))
        goto out;
    code = EXIT_ERROR;
    int min = severity_parse(fail_on);
    if (min < 0 || rest.len) {
        fprintf(stderr, "pgci: error: run: %s\n",
                min < 0 ? "--fail-on wants error, warning or info" : "run takes no arguments");
        goto out;
    }
    go.jobs = cmd_jobs(&common);
    workspace *ws;
    const char *dir;
    if (open_workspace(common.workspace, &ws, &dir) < 0) {
        code = cmd_error();
        goto out;
    }
    int is_demo = !common.workspace && strcmp(dir, ".");
    char *tag = go.tag ? pgci_strdup(go.tag) : workspace_pin_tag(ws);
    if (!tag) {
        workspace_no_tag_error(ws, "%s pins no transformers version: pass --tag", ws->pyproject);
        code = cmd_error();
        workspace_free(ws);
        goto out;
    }
    printf("pgci run on %s (%zu configs, transformers %s)\n", ws->root, ws->configs.len, tag);

    run_doc pre;
    run_doc_init(&pre, "run", 0);
    fetch_and_index(ws, tag, NULL, go.jobs, &pre);

    gate_result g;
    if (gate_run(ws, &go, &g) < 0) {
        code = cmd_error();
        gate_result_free(&g);
        run_doc_free(&pre);
        workspace_free(ws);
        free(tag);
        goto out;
    }
    json_object_set_new(g.doc.root, "command", json_string("run"));
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(pre.root, "timings_ms"), k, v)
        run_doc_add_timing(&g.doc, k, json_number_value(v));
    run_doc_free(&pre);
    printf("regen   %zu configs: %zu regenerated, %zu failed; %zu drifted from the checked-in "
           "files%s\n",
           g.n_configs, g.n_configs - g.n_failed, g.n_failed, g.n_drift,
           g.ruff_version ? "" : " (structural comparison: no ruff)");

    if (!no_logits) {
        if (!toys.len && is_demo)
            add_demo_toys(dir, &toys);
        if (toys.len)
            merge_logits(&g, (const char *const *)toys.items, toys.len);
    }

    print_checks(&g);
    if (write_reports(&g.doc, outdir) < 0) {
        code = cmd_error();
    } else {
        printf("report  %s/report.md, %s/report.html, %s/run.json\n", outdir, outdir, outdir);
        code = findings_count_at_least(&g.fs, (severity)min) ? EXIT_FINDINGS : EXIT_CLEAN;
        for (size_t n = 0; n < g.not_run.len; n++)
            printf("not run: %s\n", g.not_run.items[n]);
        if (g.not_run.len && code == EXIT_CLEAN)
            code = EXIT_FINDINGS;
    }
    gate_result_free(&g);
    workspace_free(ws);
    free(tag);
out:
    strvec_free(&toys);
    strvec_free(&rest);
    return code;
}
