/*
 * pgci check: the PR gate. Regenerates every config, compares with what is
 * checked in, and reports drift, ruff-equivalence, stale .diff files, names and
 * patch targets. `--fix` rewrites what drifted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/log.h"
#include "pipeline/gate.h"
#include "pipeline/pipeline.h"
#include "pipeline/run_shard.h"
#include "workspace/workspace.h"

static const char usage[] =
    "pgci check [CONFIG...] [--tag T] [--fix] [--fail-on S] [--format "
    "text|json] [--run-json FILE] [--no-ruff] [--ruff CMD] [--base REV] [--no-cache]";

/* One finding on one line, under its config's name. */
static void print_finding(const finding *f, int color)
{
    const char *red = color ? "\033[31m" : "", *yellow = color ? "\033[33m" : "",
               *dim = color ? "\033[2m" : "", *off = color ? "\033[0m" : "";
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

/* "a: why, b: why" of "id: reason" items, on one line. */
static void print_list(const char *label, const strvec *v)
{
    if (!v->len)
        return;
    printf("%s: ", label);
    for (size_t i = 0; i < v->len; i++)
        printf("%s%s", i ? "; " : "", v->items[i]);
    putchar('\n');
}

/* The text a person reads: errors and warnings under their config, notes counted
 * unless -v, one summary line, then what was not configured, not run or fixed.
 * -q keeps the errors, the summary and what did not run. */
static void print_text(const gate_result *r, int color, int verbose, int quiet)
{
    const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
    severity min = verbose ? SEV_INFO : quiet ? SEV_ERROR : SEV_WARNING;
    const char *last = NULL;
    size_t shown = 0;
    for (size_t i = 0; i < r->fs.len; i++) {
        const finding *f = r->fs.items[i];
        if (f->sev < min)
            continue;
        const char *cfg = f->config ? f->config : "(workspace)";
        if (!last || strcmp(last, cfg)) {
            printf("%s%s%s\n", bold, cfg, off);
            last = cfg;
        }
        print_finding(f, color);
        shown++;
    }
    size_t e = findings_count_at_least(&r->fs, SEV_ERROR);
    size_t w = findings_count_at_least(&r->fs, SEV_WARNING) - e;
    size_t n = r->fs.len - e - w;
    printf("%s%zu config%s checked against transformers %s%s: %zu failed to regenerate, %zu "
           "drifted; %zu error%s, %zu warning%s, %zu note%s%s.\n",
           shown ? "\n" : "", r->n_configs, r->n_configs == 1 ? "" : "s", r->tag,
           r->ruff_version ? "" : " (structural mode, no ruff)", r->n_failed, r->n_drift, e,
           e == 1 ? "" : "s", w, w == 1 ? "" : "s", n, n == 1 ? "" : "s",
           n && !verbose ? " (see run.json or -v)" : "");
    if (!quiet)
        print_list("not configured", &r->not_configured);
    print_list("not run", &r->not_run);
    if (r->fixed.len)
        printf("fixed: %zu file%s rewritten from a fresh regeneration\n", r->fixed.len,
               r->fixed.len == 1 ? "" : "s");
    for (size_t i = 0; !quiet && i < r->fixed.len; i++)
        printf("  wrote %s\n", r->fixed.items[i]);
    for (size_t i = 0; i < r->fix_refused.len; i++)
        printf("not fixed: %s\n", r->fix_refused.items[i]);
}

/* An environment error before the gate could start (a workspace that does not
 * open): one line, exit 2, and still a run.json saying so for the report steps. */
/* Every --allow-skip id must name a check `pgci check` runs. */
static int allow_skip_check(const strvec *ids)
{
    for (size_t i = 0; i < ids->len; i++) {
        const check_entry *e = check_find(ids->items[i]);
        if (e && e->where == CHECK_IN_GATE)
            continue;
        strbuf known = STRBUF_INIT;
        for (size_t k = 0; check_registry[k].def; k++)
            if (check_registry[k].where == CHECK_IN_GATE)
                strbuf_addf(&known, "%s%s", known.len ? ", " : "", check_registry[k].def->id);
        int r = pgci_error_set(PGCI_EUSAGE, "check: --allow-skip: no check '%s' (the checks: %s)",
                               ids->items[i], known.buf);
        strbuf_free(&known);
        return r;
    }
    return 0;
}

/* --fix writes ruff's output: with --no-ruff it would have nothing to write, and
 * saying so up front beats a run that reports drift and writes nothing. */
static int fix_check(const gate_opts *go)
{
    if (go->fix && go->no_ruff)
        return pgci_error_set(PGCI_EUSAGE, "check: --fix needs ruff: the checked-in files are "
                                           "ruff's output (drop --no-ruff, or pass --ruff CMD)");
    return 0;
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
                 "recompute everything: fetch upstream files again, and neither read nor write "
                 "the cache (upstream files, regenerations, ruff results)"),
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
    int min;
    if (cmd_output_opts("check", fail_on, format, &min) < 0)
        goto out;
    if (fix_check(&go) < 0 || allow_skip_check(&allow_skip) < 0 ||
        (shard && pipeline_parse_shard(shard, &go.shard_k, &go.shard_n) < 0)) {
        code = cmd_error();
        goto out;
    }
    go.only = &rest;
    go.jobs = cmd_jobs(&common);
    go.exits_after = 1;
    go.ruff_timeout_ms = ruff_timeout * 1000;
    workspace *ws;
    if (workspace_open(&ws, common.workspace ? common.workspace : ".") < 0) {
        code = cmd_error_run_json(NULL, "check", run_json, go.timestamp);
        goto out;
    }
    gate_result r;
    if (gate_run(ws, &go, &r) < 0) {
        code = cmd_error_run_json(&r.doc, "check", run_json, go.timestamp);
        gate_result_free(&r);
        workspace_free(ws);
        goto out;
    }
    if (r.cache_used)
        log_verbose("cache: %zu hits, %zu misses, %zu written, %zu corrupt entries ignored",
                    r.cache.hits, r.cache.misses, r.cache.writes, r.cache.corrupt);
    if (!strcmp(format, "json")) {
        json_t *arr = findings_to_json(&r.fs);
        cmd_print_json(arr);
        json_decref(arr);
    } else {
        print_text(&r, log_stdout_color(), common.verbose, common.quiet);
    }
    code = cmd_finish(&r.doc, &r.fs, run_json, min, EXIT_CLEAN);
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
