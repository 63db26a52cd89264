/*
 * pgci check: the PR gate. Regenerates every config, compares with what is
 * checked in, and reports drift, ruff-equivalence, stale .diff files, names and
 * patch targets. `--fix` rewrites what drifted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/log.h"
#include "pipeline/gate.h"
#include "pipeline/pipeline.h"
#include "workspace/workspace.h"

static const char usage[] =
    "pgci check [CONFIG...] [--tag T] [--fix] [--fail-on S] [--format "
    "text|json] [--run-json FILE] [--no-ruff] [--ruff CMD] [--base REV] [--no-cache]";

static void print_text(const gate_result *r, int color)
{
    const char *red = color ? "\033[31m" : "", *yellow = color ? "\033[33m" : "",
               *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "",
               *off = color ? "\033[0m" : "";
    const char *last = NULL;
    for (size_t i = 0; i < r->fs.len; i++) {
        const finding *f = r->fs.items[i];
        const char *cfg = f->config ? f->config : "(workspace)";
        if (!last || strcmp(last, cfg)) {
            printf("%s%s%s\n", bold, cfg, off);
            last = cfg;
        }
        const char *sc = f->sev == SEV_ERROR ? red : f->sev == SEV_WARNING ? yellow : dim;
        printf("  %s%-7s%s ", sc, severity_name(f->sev), off);
        if (f->path) {
            printf("%s", f->path);
            if (f->line)
                printf(":%u", f->line);
            if (f->col)
                printf(":%u", f->col);
            printf(": ");
        }
        printf("%s %s[%s]%s\n", f->title, dim, f->check, off);
    }
    size_t e = findings_count_at_least(&r->fs, SEV_ERROR);
    size_t w = findings_count_at_least(&r->fs, SEV_WARNING) - e;
    size_t n = r->fs.len - e - w;
    printf("%s%zu config%s checked against transformers %s%s: %zu failed to regenerate, %zu "
           "drifted; %zu error%s, %zu warning%s, %zu note%s.\n",
           r->fs.len ? "\n" : "", r->n_configs, r->n_configs == 1 ? "" : "s", r->tag,
           r->ruff_version ? "" : " (structural mode, no ruff)", r->n_failed, r->n_drift, e,
           e == 1 ? "" : "s", w, w == 1 ? "" : "s", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < r->not_run.len; i++)
        printf("not run: %s\n", r->not_run.items[i]);
    for (size_t i = 0; i < r->fixed.len; i++)
        printf("fixed: wrote %s\n", r->fixed.items[i]);
}

int cmd_check(int argc, const char **argv)
{
    common_opts common = {0};
    gate_opts go;
    memset(&go, 0, sizeof(go));
    const char *fail_on = "error", *format = "text", *run_json = NULL, *shard = NULL;
    strvec allow_skip = STRVEC_INIT, rest = STRVEC_INIT;
    int ruff_timeout = 0;
    opt table[] = {
        OPT_STR('t', "tag", &go.tag, "TAG", "upstream tag (default: v + the workspace pin)"),
        OPT_BOOL(0, "fix", &go.fix, "rewrite drifted .py and .diff files (atomically)"),
        OPT_BOOL(0, "no-diff", &go.no_diff, "the workspace checks in no .diff files"),
        OPT_STR(0, "fail-on", &fail_on, "SEV", "exit 1 on findings at or above error|warning|info"),
        OPT_STR(0, "format", &format, "FMT", "text (default) or json (the findings)"),
        OPT_STR(0, "run-json", &run_json, "FILE", "write the run record (see pgci report)"),
        OPT_BOOL(0, "no-ruff", &go.no_ruff, "no ruff: compare structure instead of bytes"),
        OPT_STR(0, "ruff", &go.ruff, "CMD", "the ruff command (default: [tool.pgci] ruff, ruff)"),
        OPT_INT(0, "ruff-timeout", &ruff_timeout, "SECONDS",
                "kill a ruff run after this long (120)"),
        OPT_STR(0, "source", &go.source, "SPEC", "upstream source (URL template, git:, dir:)"),
        OPT_STR('c', "config-name", &go.var_name, "NAME", "the PatchConfig variable (config)"),
        OPT_STR(0, "shard", &shard, "K/N", "check the K-th of N shares of the configs"),
        OPT_LIST(0, "allow-skip", &allow_skip, "CHECK",
                 "a check that may not run without failing the gate"),
        OPT_STR(0, "cache-dir", &go.cache_dir, "DIR",
                "pgci's cache: upstream files, results/ (default ~/.cache/pgci)"),
        OPT_BOOL(0, "no-cache", &go.no_cache,
                 "neither read nor write cached regenerations and ruff results"),
        OPT_BOOL(0, "timestamp", &go.timestamp, "record the time in run.json"),
        OPT_STR(0, "base", &go.base, "REV",
                "flag generated/ changes since REV that come without a config change"),
        OPT_END(),
    };
    int code;
    if (cmd_parse(argc, argv, table, &common, usage,
                  "Regenerates every config and checks the checked-in files against it.", &rest,
                  &code))
        goto out;
    code = EXIT_ERROR;
    int min = severity_parse(fail_on);
    if (min < 0) {
        fprintf(stderr, "pgci: error: check: --fail-on wants error, warning or info, not '%s'\n",
                fail_on);
        goto out;
    }
    if (strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "pgci: error: check: --format wants text or json, not '%s'\n", format);
        goto out;
    }
    if (shard && pipeline_parse_shard(shard, &go.shard_k, &go.shard_n) < 0) {
        code = cmd_error();
        goto out;
    }
    go.only = &rest;
    go.jobs = cmd_jobs(&common);
    go.ruff_timeout_ms = ruff_timeout * 1000;
    workspace *ws;
    if (workspace_open(&ws, common.workspace ? common.workspace : ".") < 0) {
        code = cmd_error();
        goto out;
    }
    gate_result r;
    if (gate_run(ws, &go, &r) < 0) {
        code = cmd_error();
        gate_result_free(&r);
        workspace_free(ws);
        goto out;
    }
    if (r.cache_used)
        log_verbose("cache: %zu hits, %zu misses, %zu written, %zu corrupt entries ignored",
                    r.cache.hits, r.cache.misses, r.cache.writes, r.cache.corrupt);
    if (!strcmp(format, "json")) {
        json_t *arr = findings_to_json(&r.fs);
        char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s);
        free(s);
        json_decref(arr);
    } else {
        print_text(&r, log_stdout_color());
    }
    code = EXIT_CLEAN;
    if (run_json && run_doc_write(&r.doc, run_json) < 0)
        code = cmd_error();
    if (code == EXIT_CLEAN && findings_count_at_least(&r.fs, (severity)min) > 0)
        code = EXIT_FINDINGS;
    /* a check that did not run cannot pass the gate unless allowed to skip */
    for (size_t i = 0; code == EXIT_CLEAN && i < r.not_run.len; i++) {
        const char *id = r.not_run.items[i];
        size_t len = strcspn(id, ":");
        int allowed = 0;
        for (size_t k = 0; k < allow_skip.len; k++)
            allowed |= strlen(allow_skip.items[k]) == len && !strncmp(allow_skip.items[k], id, len);
        if (!allowed) {
            fprintf(stderr,
                    "pgci: check '%.*s' did not run; the gate cannot pass without it (--allow-skip "
                    "%.*s to accept that)\n",
                    (int)len, id, (int)len, id);
            code = EXIT_FINDINGS;
        }
    }
    gate_result_free(&r);
    workspace_free(ws);
out:
    strvec_free(&allow_skip);
    strvec_free(&rest);
    return code;
}
