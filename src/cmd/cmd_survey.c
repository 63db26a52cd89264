/*
 * pgci survey: the pin-bump survey. What breaks, and what breaks silently, if the
 * workspace moves from upstream tag A to tag B?
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/log.h"
#include "pipeline/pipeline.h"
#include "pipeline/survey.h"
#include "verify/verify.h"
#include "workspace/workspace.h"

static const char usage[] = "pgci survey [--from pin|TAG] [--to latest|TAG] [CONFIG...] "
                            "[--run-json FILE] [--format text|json] [--shard K/N] "
                            "[--verify [--python P]]";

static void print_text(const survey_result *r, int color)
{
    const char *red = color ? "\033[31m" : "", *yellow = color ? "\033[33m" : "",
               *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "",
               *off = color ? "\033[0m" : "";
    printf("%sUpgrading the transformers pin: %s -> %s%s\n\n", bold, r->from, r->to, off);
    /* grouped by change: the same title over several configs is printed once */
    for (size_t i = 0; i < r->fs.len; i++) {
        const finding *f = r->fs.items[i];
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(r->fs.items[k]->title, f->title) &&
                   !strcmp(r->fs.items[k]->check, f->check);
        if (seen)
            continue;
        const char *sc = f->sev == SEV_ERROR ? red : f->sev == SEV_WARNING ? yellow : dim;
        printf("%s%-7s%s %s %s[%s]%s\n", sc, severity_name(f->sev), off, f->title, dim, f->check,
               off);
        printf("        %sconfigs:", dim);
        for (size_t k = i; k < r->fs.len; k++) {
            const finding *g = r->fs.items[k];
            if (!strcmp(g->title, f->title) && !strcmp(g->check, f->check) && g->config) {
                int dup = 0;
                for (size_t j = i; j < k && !dup; j++)
                    dup = !strcmp(r->fs.items[j]->title, f->title) && r->fs.items[j]->config &&
                          !strcmp(r->fs.items[j]->config, g->config);
                if (!dup)
                    printf(" %s", g->config);
            }
        }
        printf("%s\n", off);
    }
    size_t e = findings_count_at_least(&r->fs, SEV_ERROR);
    size_t w = findings_count_at_least(&r->fs, SEV_WARNING) - e;
    printf("%s%zu of %zu config%s fail to regenerate against %s", r->fs.len ? "\n" : "",
           r->n_failed, r->n_configs, r->n_configs == 1 ? "" : "s", r->to);
    if (r->n_standing) /* no finding says so: the count must */
        printf(", %zu of them against %s too (not the bump's)", r->n_standing, r->from);
    printf("; %zu target%s vanished, %zu changed; %zu error%s, %zu warning%s, %zu note%s.\n",
           r->n_vanished, r->n_vanished == 1 ? "" : "s", r->n_changed, e, e == 1 ? "" : "s", w,
           w == 1 ? "" : "s", r->fs.len - e - w, r->fs.len - e - w == 1 ? "" : "s");
}

/* --verify: the workspace's suites in a scratch copy regenerated at the new tag,
 * recorded in the survey's run.json. */
static int survey_verify(const workspace *ws, const survey_opts *so, survey_result *r,
                         const char *python, int verbose, int print)
{
    verify_opts vo;
    memset(&vo, 0, sizeof(vo));
    vo.tag = r->to;
    vo.python = python;
    vo.gpu = -1;
    vo.tree.source = so->source;
    vo.tree.ruff = so->ruff;
    vo.tree.no_ruff = so->no_ruff;
    vo.tree.var_name = so->var_name;
    vo.tree.jobs = so->jobs;
    json_t *v = NULL;
    if (verify_workspace(&v, ws, &vo) < 0)
        return pgci_error_wrap(PGCI_EINVALID, "survey --verify");
    if (print) {
        printf("\nVerification at %s:\n", r->to);
        cmd_verify_print(v, log_stdout_color(), verbose);
    }
    verify_doc_set(r->doc.root, v);
    return 0;
}

int cmd_survey(int argc, const char **argv)
{
    common_opts common = {0};
    survey_opts so;
    memset(&so, 0, sizeof(so));
    const char *fail_on = "error", *format = "text", *run_json = NULL, *shard = NULL;
    const char *python = NULL;
    int verify = 0;
    strvec rest = STRVEC_INIT;
    opt table[] = {
        OPT_STR(0, "from", &so.from, "TAG", "the current tag, or 'pin' (default)"),
        OPT_STR(0, "to", &so.to, "TAG", "the tag to move to, or 'latest' (default)"),
        OPT_STR(0, "fail-on", &fail_on, "SEV", "exit 1 on findings at or above error|warning|info"),
        OPT_STR(0, "format", &format, "FMT", "text (default) or json (the findings)"),
        OPT_STR(0, "run-json", &run_json, "FILE", "write the run record (see pgci report)"),
        OPT_BOOL(0, "no-ruff", &so.no_ruff, "regenerate against the new tag without ruff"),
        OPT_STR(0, "ruff", &so.ruff, "CMD", "the ruff command (default: [tool.pgci] ruff, ruff)"),
        OPT_STR(0, "source", &so.source, "SPEC", "upstream source (URL template, git:, dir:)"),
        OPT_STR('c', "config-name", &so.var_name, "NAME", "the PatchConfig variable (config)"),
        OPT_STR(0, "shard", &shard, "K/N", "survey the K-th of N shares of the configs"),
        OPT_STR(0, "cache-dir", &so.cache_dir, "DIR",
                "pgci's cache: upstream files, results/ (default ~/.cache/pgci)"),
        OPT_BOOL(0, "no-cache", &so.no_cache,
                 "recompute everything: fetch upstream files again, and neither read nor write "
                 "the cache (upstream files, regenerations, ruff results)"),
        OPT_BOOL(0, "timestamp", &so.timestamp, "record the time in run.json"),
        OPT_BOOL(0, "verify", &verify, "also run [tool.pgci.verify] at the new tag (pgci verify)"),
        OPT_STR(0, "python", &python, "PATH", "{python} for --verify: the new tag's environment"),
        OPT_END(),
    };
    int code;
    if (cmd_parse(argc, argv, table, &common, usage,
                  "Compares two upstream tags under every patch and regenerates every config "
                  "against the new one.",
                  &rest, &code))
        goto out;
    code = EXIT_ERROR;
    int min;
    if (cmd_output_opts("survey", fail_on, format, &min) < 0)
        goto out;
    if (shard && pipeline_parse_shard(shard, &so.shard_k, &so.shard_n) < 0) {
        code = cmd_error();
        goto out;
    }
    so.only = &rest;
    so.jobs = cmd_jobs(&common);
    so.exits_after = 1;
    workspace *ws;
    if (workspace_open(&ws, common.workspace ? common.workspace : ".") < 0) {
        code = cmd_error_run_json(NULL, "survey", run_json, so.timestamp);
        goto out;
    }
    survey_result r;
    if (survey_run(ws, &so, &r) < 0) {
        code = cmd_error_run_json(&r.doc, "survey", run_json, so.timestamp);
        survey_result_free(&r);
        workspace_free(ws);
        goto out;
    }
    if (!strcmp(format, "json")) {
        /* run.json's findings: each with the id of its upstream change */
        cmd_print_json(run_doc_findings(&r.doc));
    } else {
        print_text(&r, log_stdout_color());
    }
    code = EXIT_CLEAN;
    if (verify && survey_verify(ws, &so, &r, python, common.verbose, !strcmp(format, "text")) < 0)
        code = cmd_error();
    else if (verify && !cmd_verify_passed(verify_doc_get(r.doc.root), NULL))
        code = EXIT_FINDINGS;
    code = cmd_finish(&r.doc, &r.fs, run_json, min, code);
    survey_result_free(&r);
    workspace_free(ws);
out:
    strvec_free(&rest);
    return code;
}
