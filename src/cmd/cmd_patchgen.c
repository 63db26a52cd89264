/*
 * pgci patchgen - a drop-in for the `patchgen` console script (patchgen-pkg's
 * cli.py), so a workspace can swap it in: the same arguments, the same lines on
 * stdout and stderr, the same files, the same exit codes.
 *
 *   pgci patchgen --check [--fix]          drift gate (check_patchgen.run_check)
 *   pgci patchgen --list                   discovered configs
 *   pgci patchgen --all [--diff] [--dry-run] [-v] [-c NAME]
 *   pgci patchgen MODULE [-o DIR] [-c NAME] [--diff] [--dry-run] [-v]
 *
 * Where patchgen would die with a Python traceback (a config that cannot be
 * generated during --check), pgci prints one error line and still exits 1, as
 * the traceback would. The upstream tag is v<the workspace's pin>; the upstream
 * source and ruff come from [tool.pgci] (see docs/regen.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/fs_safe.h"
#include "patchgen/codegen_text.h"
#include "patchgen/config_eval.h"
#include "patchgen/difflib.h"
#include "patchgen/regen.h"
#include "pipeline/pipeline.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

#define EQ70 "======================================================================"

typedef struct pg_cli {
    int check, fix, list, all, dry_run, diff, verbose, quiet;
    const char *out_dir, *var_name;
} pg_cli;

static size_t count_lines(const strbuf *b)
{
    cg_lines l = VEC_INIT;
    cgtext_splitlines(&l, b->buf, b->len);
    size_t n = l.len;
    VEC_FREE(&l);
    return n;
}

static const char *type_value(pg_patch_type t)
{
    return pg_patch_type_name(t);
}

/* print_config_summary() for -v */
static void print_summary(const pg_config *c)
{
    printf("\n" EQ70 "\nPATCH CONFIGURATION SUMMARY\n" EQ70 "\n");
    printf("\nSource: %s\nTarget: %s\n", c->source_module, c->target_file);
    if (c->description && c->description[0])
        printf("Description: %s\n", c->description);
    printf("\nPatches (%zu):\n", c->patches.len);
    for (size_t i = 0; i < c->patches.len; i++) {
        const pg_patch *p = &c->patches.items[i];
        printf("  \xe2\x80\xa2 [%s] %s\n", type_value(p->type), p->target);
        if (p->description && p->description[0])
            printf("    \xe2\x94\x94\xe2\x94\x80 %s\n", p->description);
    }
    if (c->exclude.len) {
        printf("\nExcluded: ");
        for (size_t i = 0; i < c->exclude.len; i++)
            printf("%s%s", i ? ", " : "", c->exclude.items[i]);
        putchar('\n');
    }
    if (c->additional_imports.len)
        printf("\nAdditional imports: %zu\n", c->additional_imports.len);
    printf(EQ70 "\n");
}

static void abs_path(strbuf *out, const workspace *ws, const pg_cli *cli, const char *rel)
{
    strbuf_reset(out);
    if (cli->out_dir || rel[0] == '/')
        strbuf_adds(out, rel);
    else
        fs_join(out, ws->root, rel);
}

/* Writes an output under root (the workspace, or -o DIR), never through a symlink
 * out of it, keeping the mode of the file it replaces (fs_safe.h). */
static int write_file(const char *root, const char *path, const strbuf *data)
{
    return fs_safe_write(root, fs_safe_rel(root, path), data->buf, data->len);
}

/* run_codegen() for one config; returns 1 on success. */
static int run_one(const workspace *ws, const ws_config *wc, const pg_cli *cli, config_eval *ev,
                   const regen_batch_opts *bo)
{
    if (cli->verbose)
        printf("Loading patch module: %s\n", wc->module);
    pg_config *cfg = NULL;
    if (config_eval_file(ev, wc->abs_path, cli->var_name, &cfg) < 0) {
        /* what Python would have said: getattr() fails, or isinstance() does */
        const char *m = pgci_error_last();
        fflush(stdout);
        if (strstr(m, "no PatchConfig named"))
            fprintf(stderr, "Unexpected error: module '%s' has no attribute '%s'\n", wc->module,
                    cli->var_name);
        else if (strstr(m, "is not a PatchConfig"))
            fprintf(stderr, "Error: %s in %s is not a PatchConfig\n", cli->var_name, wc->module);
        else
            fprintf(stderr, "Error importing %s: %s\n", wc->module, m);
        return 0;
    }
    if (cli->verbose) {
        print_summary(cfg);
        printf("\nGenerating code...\n");
    }
    regen_output out;
    memset(&out, 0, sizeof(out));
    out.config_path = pgci_strdup(wc->path);
    int ok = 0;
    strbuf py = STRBUF_INIT, df = STRBUF_INIT, src = STRBUF_INIT;
    if (regen_output_paths(wc->dir, cli->out_dir, cfg->target_file, &out.py_path, &out.diff_path) <
        0)
        goto fail;
    abs_path(&py, ws, cli, out.py_path);
    abs_path(&df, ws, cli, out.diff_path);
    if (upstream_fetch(bo->up, bo->base.tag, cfg->source_module, &src) < 0)
        goto fail;
    if (cli->dry_run) {
        strbuf text = STRBUF_INIT;
        codegen_read_upstream(&text, src.buf, src.len);
        printf("\n[DRY RUN] Would generate:\n  Output: %s\n", py.buf);
        if (cli->diff)
            printf("  Diff:   %s\n", df.buf);
        printf("  Source lines: ~%zu\n  Patches to apply: %zu\n", count_lines(&text),
               cfg->patches.len);
        ok = text.len > 0;
        strbuf_free(&text);
        goto done;
    }
    if (regen_generate(cfg, src.buf, src.len, &bo->base, &out) < 0)
        goto fail;
    const char *root;
    if (fs_safe_root(cli->out_dir, ws->root, &root) < 0 ||
        fs_safe_check(root, fs_safe_rel(root, py.buf), NULL) < 0 ||
        (cli->diff && fs_safe_check(root, fs_safe_rel(root, df.buf), NULL) < 0))
        goto fail;
    if (write_file(root, py.buf, &out.py) < 0)
        goto fail;
    printf("Generated: %s\n", py.buf);
    printf("\n\xe2\x9c\x93 Generated: %s\n  Lines: %zu\n", py.buf, count_lines(&out.py));
    if (cli->diff) {
        if (write_file(root, df.buf, &out.diff) < 0)
            goto fail;
        printf("\xe2\x9c\x93 Diff: %s\n  Lines: %zu\n", df.buf, count_lines(&out.diff));
    }
    ok = 1;
    goto done;
fail:
    fflush(stdout);
    fprintf(stderr, "Code generation error: %s\n", out.error ? out.error : pgci_error_last());
done:
    pg_config_free(cfg);
    regen_output_free(&out);
    strbuf_free(&py);
    strbuf_free(&df);
    strbuf_free(&src);
    return ok;
}

typedef VEC(const ws_config *) config_list;

/* A config is listed when it evaluates and binds the PatchConfig variable. */
static void usable_configs(const workspace *ws, config_eval *ev, const char *var, config_list *out)
{
    for (size_t i = 0; i < ws->configs.len; i++) {
        pg_config *c = NULL;
        if (config_eval_file(ev, ws->configs.items[i].abs_path, var, &c) == 0)
            VEC_PUSH(out, &ws->configs.items[i]);
        pg_config_free(c);
    }
}

static void drift(const char *path, const strbuf *old, const strbuf *neu)
{
    printf("  DRIFT %s\n", path);
    strbuf d = STRBUF_INIT;
    char *a = pgci_asprintf("a/%s", path), *b = pgci_asprintf("b/%s", path);
    difflib_unified_diff(&d, old->buf, old->len, neu->buf, neu->len, a, b, 3);
    fwrite(d.buf, 1, d.len, stdout);
    free(a);
    free(b);
    strbuf_free(&d);
}

/* check_patchgen.check_config() printing for one regenerated config. */
static int check_one(const workspace *ws, const regen_output *r, int fix)
{
    strbuf py = STRBUF_INIT, df = STRBUF_INIT, cur = STRBUF_INIT, curd = STRBUF_INIT;
    fs_join(&py, ws->root, r->py_path);
    fs_join(&df, ws->root, r->diff_path);
    int ok = 1;
    if (fs_is_file(py.buf)) { /* read_text(): universal newlines */
        strbuf raw = STRBUF_INIT;
        fs_read_file(&raw, py.buf, 0);
        cgtext_universal_newlines(&cur, raw.buf, raw.len);
        strbuf_free(&raw);
    }
    if (fs_is_file(df.buf)) {
        strbuf raw = STRBUF_INIT;
        fs_read_file(&raw, df.buf, 0);
        if (raw.len)
            difflib_patchgen_form(&curd, raw.buf, raw.len);
        strbuf_free(&raw);
    }
    if (cur.len != r->py.len || memcmp(cur.buf, r->py.buf, cur.len)) {
        if (fix) {
            if (write_file(ws->root, py.buf, &r->py) < 0)
                ok = 0, fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            else
                printf("  FIXED %s\n", py.buf);
        } else {
            ok = 0;
            drift(py.buf, &cur, &r->py);
        }
    }
    if (curd.len != r->diff.len || memcmp(curd.buf, r->diff.buf, curd.len)) {
        if (fix) {
            if (write_file(ws->root, df.buf, &r->diff) < 0)
                ok = 0, fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            else
                printf("  FIXED %s\n", df.buf);
        } else {
            ok = 0;
            drift(df.buf, &curd, &r->diff);
        }
    }
    if (ok && !fix)
        printf("  OK    %s\n", py.buf);
    strbuf_free(&py);
    strbuf_free(&df);
    strbuf_free(&cur);
    strbuf_free(&curd);
    return ok;
}

static int run_check(const workspace *ws, const config_list *cl, const pg_cli *cli,
                     const regen_batch_opts *bo)
{
    if (!cl->len) {
        printf("No patch configs found.\n");
        return EXIT_CLEAN;
    }
    printf("Found %zu patch config(s):\n\n", cl->len);
    regen_output *outs = pgci_calloc(cl->len, sizeof(*outs));
    regen_workspace(ws, cl->items, cl->len, bo, outs);
    /* --fix: every output must land inside the workspace before the first write */
    for (size_t i = 0; cli->fix && i < cl->len; i++) {
        if (outs[i].status < 0)
            continue;
        if (fs_safe_check(ws->root, outs[i].py_path, NULL) < 0 ||
            fs_safe_check(ws->root, outs[i].diff_path, NULL) < 0) {
            fflush(stdout);
            fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            for (size_t k = 0; k < cl->len; k++)
                regen_output_free(&outs[k]);
            free(outs);
            return EXIT_ERROR;
        }
    }
    int all_ok = 1;
    const char *up_error = NULL;
    for (size_t i = 0; i < cl->len; i++) {
        printf("[%s]\n", cl->items[i]->module);
        if (outs[i].status < 0) {
            fflush(stdout);
            fprintf(stderr, "pgci: error: %s\n", outs[i].error);
            all_ok = 0;
            if (outs[i].upstream_failed && !up_error)
                up_error = pgci_strdup(outs[i].error);
        } else if (!check_one(ws, &outs[i], cli->fix)) {
            all_ok = 0;
        }
        regen_output_free(&outs[i]);
    }
    free(outs);
    printf("\n");
    if (up_error) {
        /* not the PR's fault: the check could not run */
        printf("Could not check: the upstream source could not be read (%s).\n", up_error);
        free((char *)up_error);
        return EXIT_ERROR;
    }
    if (all_ok) {
        printf("All generated files are up to date.\n");
        return EXIT_CLEAN;
    }
    printf("Generated files are out of date. Re-run with --fix.\n");
    return EXIT_FINDINGS;
}

/* argparse's usage, wrapped as it wraps it at the default 80 columns */
static const char usage_line[] =
    "usage: patchgen [-h] [-o OUTPUT_DIR] [-c CONFIG_NAME] [--list] [--all]\n"
    "                [--dry-run] [--diff] [-v]\n"
    "                [patch_module]\n";

/* --all: every usable config, each as `patchgen MODULE` would, then the tally. */
static int run_all(const workspace *ws, const config_list *cl, const pg_cli *cli, config_eval *ev,
                   const regen_batch_opts *bo)
{
    if (!cl->len) {
        fprintf(stderr, "No patch configs found.\n");
        return EXIT_FINDINGS;
    }
    int rc = EXIT_CLEAN;
    strvec failed = STRVEC_INIT;
    pg_cli one = *cli;
    one.out_dir = NULL;
    for (size_t i = 0; i < cl->len; i++) {
        printf("\n" EQ70 "\nGenerating: %s\n" EQ70 "\n", cl->items[i]->module);
        if (!run_one(ws, cl->items[i], &one, ev, bo))
            strvec_push(&failed, cl->items[i]->module);
    }
    fflush(stdout);
    if (failed.len) {
        fprintf(stderr, "\nFailed configs: [");
        for (size_t i = 0; i < failed.len; i++)
            fprintf(stderr, "%s'%s'", i ? ", " : "", failed.items[i]);
        fprintf(stderr, "]\n");
        rc = EXIT_FINDINGS;
    } else {
        printf("\nAll %zu configs generated successfully.\n", cl->len);
    }
    strvec_free(&failed);
    return rc;
}

/* MODULE: one config by its module name. */
static int run_module(const workspace *ws, const char *m, const pg_cli *cli, config_eval *ev,
                      const regen_batch_opts *bo)
{
    const ws_config *wc = workspace_find_config(ws, m);
    if (!wc) {
        /* Python names the first package it cannot find */
        const char *dot = strchr(m, '.');
        size_t plen = strcspn(ws->package_prefix, ".");
        int same_top = dot && (size_t)(dot - m) == plen && !strncmp(m, ws->package_prefix, plen);
        int shown = (dot && !same_top) ? (int)(dot - m) : (int)strlen(m);
        fprintf(stderr, "Error importing %s: No module named '%.*s'\n", m, shown, m);
        return EXIT_FINDINGS;
    }
    return run_one(ws, wc, cli, ev, bo) ? EXIT_CLEAN : EXIT_FINDINGS;
}

/* patchgen's command line into cli, -C and --ruff, and the module (rest). Returns -1
 * to go on, else the exit code (--help, or a usage error printed as argparse does). */
static int parse_args(int argc, const char **argv, pg_cli *cli, const char **ws_dir,
                      const char **ruff, strvec *rest)
{
    cli->var_name = "config";
    /* patchgen's argparse: a small hand parser, so unknown flags fail like it does */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = NULL;
        if (!strcmp(a, "--check"))
            cli->check = 1;
        else if (!strcmp(a, "--fix"))
            cli->fix = 1;
        else if (!strcmp(a, "--list"))
            cli->list = 1;
        else if (!strcmp(a, "--all"))
            cli->all = 1;
        else if (!strcmp(a, "--dry-run"))
            cli->dry_run = 1;
        else if (!strcmp(a, "--diff"))
            cli->diff = 1;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
            cli->verbose = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            cli->quiet = 1;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output-dir"))
            val = &cli->out_dir;
        else if (!strcmp(a, "-c") || !strcmp(a, "--config-name"))
            val = &cli->var_name;
        else if (!strcmp(a, "-C"))
            val = ws_dir;
        else if (!strcmp(a, "--ruff"))
            val = ruff;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_line, stdout);
            fputs("\npgci's drop-in for the patchgen command line (patchgen-pkg's cli->py).\n"
                  "  --check [--fix]    drift gate over every config\n"
                  "  --list             list the discovered configs\n"
                  "  --all              regenerate every config\n"
                  "  MODULE             regenerate one config (-o DIR, -c NAME, --diff, "
                  "--dry-run, -v)\n"
                  "pgci additions: -C DIR (workspace), --ruff CMD, -q (errors only).\n",
                  stdout);
            return EXIT_CLEAN;
        } else if (a[0] == '-' && a[1]) {
            fputs(usage_line, stderr);
            fprintf(stderr, "patchgen: error: unrecognized arguments: %s\n", a);
            return EXIT_ERROR;
        } else
            strvec_push(rest, a);
        if (val) {
            if (i + 1 >= argc) {
                fputs(usage_line, stderr);
                fprintf(stderr, "patchgen: error: argument %s: expected one argument\n", a);
                return EXIT_ERROR;
            }
            *val = argv[++i];
        }
    }
    if (cli->check && (cli->list || cli->all || cli->dry_run || cli->diff || cli->verbose ||
                       cli->out_dir || rest->len || strcmp(cli->var_name, "config"))) {
        fputs("usage: patchgen [-h] [--fix]\npatchgen: error: unrecognized arguments with "
              "--check (only --fix is accepted)\n",
              stderr);
        return EXIT_ERROR;
    }
    if (rest->len > 1) {
        fputs(usage_line, stderr);
        fprintf(stderr, "patchgen: error: unrecognized arguments: %s\n", rest->items[1]);
        return EXIT_ERROR;
    }
    if (!cli->check && !cli->list && !cli->all && !rest->len) {
        fputs(usage_line, stderr);
        fputs("patchgen: error: patch_module is required unless using --list or --all\n", stderr);
        return EXIT_ERROR;
    }

    return -1;
}

int cmd_patchgen(int argc, const char **argv)
{
    pg_cli cli = {0};
    const char *ws_dir = NULL, *ruff = NULL;
    strvec rest = STRVEC_INIT;
    int code = parse_args(argc, argv, &cli, &ws_dir, &ruff, &rest);
    if (code >= 0) {
        strvec_free(&rest);
        return code;
    }
    /* -q: patchgen's lines all go to stdout; errors stay on stderr */
    if (cli.quiet && !freopen("/dev/null", "w", stdout)) {
        fprintf(stderr, "pgci: error: patchgen: -q: cannot silence stdout\n");
        strvec_free(&rest);
        return EXIT_ERROR;
    }

    workspace *ws = NULL;
    upstream *up = NULL;
    config_eval *ev = NULL;
    config_list cl = VEC_INIT;
    char *tag = NULL, *ruff_abs = NULL;
    int rc = EXIT_CLEAN;
    if (workspace_open(&ws, ws_dir) < 0) {
        rc = cmd_error();
        goto done;
    }
    if (!ws->pin) {
        workspace_no_tag_error(ws, "%s pins no transformers version", ws->pyproject);
        rc = cmd_error();
        goto done;
    }
    tag = workspace_pin_tag(ws);
    if (pipeline_upstream_open(&up, ws, NULL, NULL, 0) < 0 || config_eval_new(&ev, ws) < 0) {
        rc = cmd_error();
        goto done;
    }
    if (ruff && strchr(ruff, '/') && ruff[0] != '/')
        ruff_abs = realpath(ruff, NULL);
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = tag;
    bo.base.ruff.ruff = ruff_abs ? ruff_abs : ruff ? ruff : ws->ruff;
    bo.base.ruff.extra_ignore = &ws->ruff_extra_ignore;
    bo.base.ruff.isolated = ws->ruff_isolated;
    bo.base.ruff.cwd = ws->root;
    bo.var_name = cli.var_name;
    bo.jobs = cmd_jobs(NULL);
    bo.up = up;

    if (cli.check) {
        usable_configs(ws, ev, "config", &cl);
        rc = run_check(ws, &cl, &cli, &bo);
    } else if (cli.list) {
        usable_configs(ws, ev, "config", &cl);
        printf("Available patch configurations:\n");
        for (size_t i = 0; i < cl.len; i++)
            printf("  \xe2\x80\xa2 %s\n", cl.items[i]->module);
        if (!cl.len)
            printf("  (none found)\n");
    } else if (cli.all) {
        usable_configs(ws, ev, "config", &cl);
        rc = run_all(ws, &cl, &cli, ev, &bo);
    } else {
        rc = run_module(ws, rest.items[0], &cli, ev, &bo);
    }
done:
    fflush(stdout);
    VEC_FREE(&cl);
    config_eval_free(ev);
    upstream_free(up);
    workspace_free(ws);
    free(tag);
    free(ruff_abs);
    strvec_free(&rest);
    return rc;
}
