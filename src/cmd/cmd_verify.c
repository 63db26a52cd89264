/*
 * pgci verify: runs the workspace's own verification suites ([tool.pgci.verify])
 * and records their JUnit results. At the pin on the checked-in tree; with --tag
 * in a scratch copy where every config is regenerated against that tag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "pipeline/run_doc.h"
#include "verify/verify.h"
#include "workspace/workspace.h"

static const char usage[] =
    "pgci verify [SUITE...] [--tag T] [--python P] [--run-json FILE] [--allow-skip SUITE]";

typedef struct verify_cli {
    const char *tag, *python, *run_json;
    strvec allow_skip;
    int keep, timestamp;
    verify_tree_opts tree;
} verify_cli;

static void print_suite(json_t *s, int color, int verbose)
{
    const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "",
               *yellow = color ? "\033[33m" : "", *off = color ? "\033[0m" : "";
    const char *st = json_string_value(json_object_get(s, "status"));
    const char *name = json_string_value(json_object_get(s, "name"));
    const char *reason = json_string_value(json_object_get(s, "reason"));
    long tests = (long)json_integer_value(json_object_get(s, "tests"));
    long passed = (long)json_integer_value(json_object_get(s, "passed"));
    long skipped = (long)json_integer_value(json_object_get(s, "skipped"));
    if (!strcmp(st, "not-run")) {
        printf("%snot run%s %s: %s\n", yellow, off, name, reason ? reason : "");
    } else {
        printf("%s%-7s%s %s: %ld/%ld passed", !strcmp(st, "passed") ? green : red, st, off, name,
               passed, tests);
        if (skipped)
            printf(" (%ld skipped)", skipped);
        printf("%s%s\n", reason ? "; " : "", reason ? reason : "");
    }
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(s, "cases"), i, c)
    {
        const char *cs = json_string_value(json_object_get(c, "status"));
        if (strcmp(cs, "failed") && strcmp(cs, "error"))
            continue;
        const char *m = json_string_value(json_object_get(c, "message"));
        const char *cls = json_string_value(json_object_get(c, "classname"));
        printf("  %s%s%s %s%s%s: %.*s\n", red, cs, off, cls && *cls ? cls : "",
               cls && *cls ? "::" : "", json_string_value(json_object_get(c, "name")),
               m ? (int)strcspn(m, "\n") : 0, m ? m : "");
    }
    const char *tail = json_string_value(json_object_get(s, "output_tail"));
    if (tail && (verbose || !strcmp(st, "not-run")))
        fprintf(stderr, "--- %s: the last lines of its output ---\n%s\n---\n", name, tail);
}

void cmd_verify_print(json_t *v, int color, int verbose)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(v, "regen"), i, s)
    {
        if (!strcmp(json_string_value(json_object_get(s, "status")), "failed"))
            printf("kept old files: %s failed to regenerate at %s: %s\n",
                   json_string_value(json_object_get(s, "config")),
                   json_string_value(json_object_get(v, "tag")),
                   json_string_value(json_object_get(s, "message")));
    }
    if (json_is_string(json_object_get(v, "scratch")))
        printf("scratch copy: %s\n", json_string_value(json_object_get(v, "scratch")));
    json_array_foreach(json_object_get(v, "suites"), i, s) print_suite(s, color, verbose);
}

/* 1 when every suite passed, or did not run and may be skipped. */
int cmd_verify_passed(json_t *v, const strvec *allow_skip)
{
    size_t i;
    json_t *s;
    int good = 1;
    json_array_foreach(json_object_get(v, "suites"), i, s)
    {
        const char *st = json_string_value(json_object_get(s, "status"));
        const char *name = json_string_value(json_object_get(s, "name"));
        if (!strcmp(st, "passed") ||
            (!strcmp(st, "not-run") && allow_skip && strvec_find(allow_skip, name) >= 0))
            continue;
        good = 0;
    }
    return good;
}

static int write_run(json_t *v, const workspace *ws, const verify_cli *cli)
{
    run_doc d;
    run_doc_init(&d, "verify", cli->timestamp);
    run_doc_set_input(&d, "workspace", ws->root);
    if (ws->pin)
        run_doc_set_input(&d, "pin", ws->pin);
    run_doc_set_input(&d, "tag", json_string_value(json_object_get(v, "tag")));
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(v, "regen"), i, r)
    {
        const char *st = json_string_value(json_object_get(r, "status"));
        run_doc_set_config(&d, json_string_value(json_object_get(r, "config")), NULL,
                           !strcmp(st, "failed") ? "failed" : "ok",
                           json_string_value(json_object_get(r, "message")));
    }
    verify_doc_set(d.root, json_incref(v));
    int rc = run_doc_write(&d, cli->run_json);
    run_doc_free(&d);
    return rc;
}

int cmd_verify(int argc, const char **argv)
{
    common_opts common = {0};
    verify_cli cli;
    memset(&cli, 0, sizeof(cli));
    strvec rest = STRVEC_INIT;
    opt table[] = {
        OPT_STR('t', "tag", &cli.tag, "TAG",
                "run in a scratch copy with every config regenerated at TAG"),
        OPT_STR(0, "python", &cli.python, "PATH", "{python} (default: [tool.pgci] python)"),
        OPT_STR(0, "run-json", &cli.run_json, "FILE", "write the run record (see pgci report)"),
        OPT_LIST(0, "allow-skip", &cli.allow_skip, "SUITE",
                 "a suite that may not run (no GPU) without failing"),
        OPT_BOOL(0, "keep", &cli.keep, "keep the scratch copy and print where it is"),
        OPT_STR(0, "source", &cli.tree.source, "SPEC", "upstream source for --tag"),
        OPT_STR(0, "ruff", &cli.tree.ruff, "CMD", "the ruff command for --tag"),
        OPT_BOOL(0, "no-ruff", &cli.tree.no_ruff, "regenerate at --tag without ruff"),
        OPT_STR('c', "config-name", &cli.tree.var_name, "NAME", "the PatchConfig variable"),
        OPT_BOOL(0, "timestamp", &cli.timestamp, "record the time in run.json"),
        OPT_END(),
    };
    int code;
    if (cmd_parse(argc, argv, table, &common, usage,
                  "Runs the workspace's own suites ([tool.pgci.verify]) and reads their JUnit "
                  "XML: on the checked-in tree, or with --tag in a scratch copy regenerated at "
                  "that tag.",
                  &rest, &code))
        goto out;
    code = EXIT_ERROR;
    workspace *ws = NULL;
    if (workspace_open(&ws, common.workspace ? common.workspace : ".") < 0) {
        code = cmd_error();
        goto out;
    }
    verify_opts o;
    memset(&o, 0, sizeof(o));
    o.only = &rest;
    o.tag = cli.tag;
    o.python = cli.python;
    o.gpu = -1;
    o.keep = cli.keep;
    o.tree = cli.tree;
    o.tree.jobs = cmd_jobs(&common);
    json_t *v = NULL;
    if (verify_workspace(&v, ws, &o) < 0) {
        code = cmd_error();
        workspace_free(ws);
        goto out;
    }
    cmd_verify_print(v, log_stdout_color(), common.verbose);
    code = cmd_verify_passed(v, &cli.allow_skip) ? EXIT_CLEAN : EXIT_FINDINGS;
    if (cli.run_json && write_run(v, ws, &cli) < 0)
        code = cmd_error();
    json_decref(v);
    workspace_free(ws);
out:
    strvec_free(&cli.allow_skip);
    strvec_free(&rest);
    return code;
}
