/*
 * pgci regen - regenerate configs exactly as patchgen does, and say what changed.
 *
 * Without --write it is a dry run that compares: one line per config on stdout,
 * in config order ("up to date", "would change", "error"), exit 1 when something
 * would change. --write writes the regenerated files (the .py; the .diff too with
 * --diff); -o DIR writes them under DIR instead of each config's generated/.
 * --stdout prints one config's regenerated .py (or its .diff with --diff).
 * --notes lists what patchgen does silently for each config.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/fs_safe.h"
#include "core/log.h"
#include "patchgen/difflib.h"
#include "patchgen/regen.h"
#include "pipeline/pipeline.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

typedef struct regen_cli {
    const char *tag, *ruff, *out_dir, *var_name, *upstream_spec, *format, *shard;
    int write, diff, to_stdout, no_ruff, notes, no_cache;
} regen_cli;

static void print_notes(const regen_output *r)
{
    for (size_t k = 0; k < r->cg.notes.len; k++) {
        const cg_note *n = &r->cg.notes.items[k];
        printf("    note: %s %s", cg_note_kind_name(n->kind), n->target ? n->target : "");
        if (n->line)
            printf(" (upstream line %u)", n->line);
        if (n->detail)
            printf(": %s", n->detail);
        putchar('\n');
    }
}

/* Absolute (or cwd-relative with -o) path of an output. */
static void output_path(strbuf *out, const workspace *ws, const regen_cli *cli, const char *rel)
{
    strbuf_reset(out);
    if (cli->out_dir || rel[0] == '/')
        strbuf_adds(out, rel);
    else
        fs_join(out, ws->root, rel);
}

/* Writes an output inside the workspace (or -o DIR): never through a symlink out
 * of it, keeping the mode of the file it replaces (fs_safe.h). */
static int write_file(const workspace *ws, const regen_cli *cli, const char *rel,
                      const strbuf *data)
{
    const char *root;
    int r = fs_safe_root(cli->out_dir, ws->root, &root);
    return r < 0 ? r : fs_safe_write(root, fs_safe_rel(root, rel), data->buf, data->len);
}

/* Before the first write: every output must land inside, no two on one file; one
 * refusal stops all. */
static int check_outputs(const workspace *ws, const regen_cli *cli, const regen_output *outs,
                         size_t n)
{
    const char *root;
    int r = fs_safe_root(cli->out_dir, ws->root, &root);
    const char **cfgs = pgci_calloc(n ? n : 1, sizeof(*cfgs));
    const char **pys = pgci_calloc(n ? n : 1, sizeof(*pys));
    for (size_t i = 0; r == 0 && i < n; i++) {
        if (outs[i].status < 0)
            continue;
        cfgs[i] = outs[i].config_path;
        pys[i] = fs_safe_rel(root, outs[i].py_path);
        r = fs_safe_check(root, pys[i], NULL);
        if (r == 0 && cli->diff)
            r = fs_safe_check(root, fs_safe_rel(root, outs[i].diff_path), NULL);
    }
    /* two configs writing one file: the second would overwrite the first */
    if (r == 0)
        r = pipeline_require_distinct_outputs(root, cfgs, pys, n);
    free(cfgs);
    free(pys);
    return r;
}

/* 1 when the file at path holds exactly data (a missing file holds ""). With
 * is_diff the file is compared in patchgen's stripped form. */
static int same_as_file(const char *path, const strbuf *data, int is_diff)
{
    strbuf cur = STRBUF_INIT;
    if (fs_is_file(path) && fs_read_file(&cur, path, 0) < 0) {
        strbuf_free(&cur);
        return 0;
    }
    if (is_diff && cur.len) {
        strbuf f = STRBUF_INIT;
        difflib_patchgen_form(&f, cur.buf, cur.len);
        strbuf_free(&cur);
        cur = f;
    }
    int same = cur.len == data->len && memcmp(cur.buf, data->buf, cur.len) == 0;
    strbuf_free(&cur);
    return same;
}

/* One config as JSON (--format json): what regen found, its notes and timings. */
static json_t *result_json(const regen_output *r, const char *state)
{
    json_t *o = json_object();
    json_object_set_new(o, "config", json_string(r->config_path));
    json_object_set_new(o, "module",
                        r->config_module ? json_string(r->config_module) : json_null());
    json_object_set_new(o, "source_module",
                        r->source_module ? json_string(r->source_module) : json_null());
    json_object_set_new(o, "target_file",
                        r->target_file ? json_string(r->target_file) : json_null());
    json_object_set_new(o, "py", r->py_path ? json_string(r->py_path) : json_null());
    json_object_set_new(o, "diff", r->diff_path ? json_string(r->diff_path) : json_null());
    json_object_set_new(o, "state", json_string(state));
    json_object_set_new(o, "error",
                        r->status < 0 ? json_string(r->error ? r->error : "failed") : json_null());
    json_object_set_new(o, "normalized", json_boolean(r->normalized));
    json_t *notes = json_array();
    for (size_t k = 0; k < r->cg.notes.len; k++) {
        const cg_note *n = &r->cg.notes.items[k];
        json_t *j = json_object();
        json_object_set_new(j, "kind", json_string(cg_note_kind_name(n->kind)));
        json_object_set_new(j, "patch", n->patch >= 0 ? json_integer(n->patch) : json_null());
        json_object_set_new(j, "target", n->target ? json_string(n->target) : json_null());
        json_object_set_new(j, "line", n->line ? json_integer(n->line) : json_null());
        json_object_set_new(j, "detail", n->detail ? json_string(n->detail) : json_null());
        json_array_append_new(notes, j);
    }
    json_object_set_new(o, "notes", notes);
    json_t *ms = json_object();
    json_object_set_new(ms, "eval", json_real(r->ms_eval));
    json_object_set_new(ms, "fetch", json_real(r->ms_fetch));
    json_object_set_new(ms, "codegen", json_real(r->ms_codegen));
    json_object_set_new(ms, "ruff", json_real(r->ms_ruff));
    json_object_set_new(ms, "diff", json_real(r->ms_diff));
    json_object_set_new(o, "ms", ms);
    return o;
}

/* Reports (and writes) one config; returns its exit contribution. */
static int report_one(const workspace *ws, const regen_cli *cli, const regen_output *r, int quiet,
                      json_t *json)
{
    if (json)
        quiet = 1;
    if (r->status < 0) {
        fflush(stdout);
        fprintf(stderr, "pgci: error: %s\n", r->error ? r->error : "regeneration failed");
        if (json)
            json_array_append_new(json, result_json(r, "error"));
        else
            printf("error         %s\n", r->config_path);
        return EXIT_ERROR;
    }
    if (cli->to_stdout) {
        const strbuf *b = cli->diff ? &r->diff : &r->py;
        fwrite(b->buf, 1, b->len, stdout);
        return EXIT_CLEAN;
    }
    strbuf py = STRBUF_INIT, df = STRBUF_INIT;
    output_path(&py, ws, cli, r->py_path);
    output_path(&df, ws, cli, r->diff_path);
    int rc = EXIT_CLEAN;
    int py_same = same_as_file(py.buf, &r->py, 0);
    int diff_same = !cli->diff || same_as_file(df.buf, &r->diff, 1);
    if (cli->write || cli->out_dir) {
        int w = 0;
        if (!py_same && (w = write_file(ws, cli, r->py_path, &r->py)) < 0) {
            fflush(stdout);
            fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            rc = EXIT_ERROR;
        }
        if (w == 0 && !diff_same && (w = write_file(ws, cli, r->diff_path, &r->diff)) < 0) {
            fflush(stdout);
            fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            rc = EXIT_ERROR;
        }
        if (json)
            json_array_append_new(json, result_json(r, rc != EXIT_CLEAN       ? "error"
                                                       : py_same && diff_same ? "unchanged"
                                                                              : "written"));
        if (rc == EXIT_CLEAN && !quiet) {
            if (py_same && diff_same)
                printf("unchanged     %s\n", r->config_path);
            else
                printf("wrote         %s:%s%s%s%s\n", r->config_path, py_same ? "" : " ",
                       py_same ? "" : r->py_path, diff_same ? "" : " ",
                       diff_same ? "" : r->diff_path);
        }
    } else if (py_same && diff_same) {
        if (json)
            json_array_append_new(json, result_json(r, "up-to-date"));
        else if (!quiet)
            printf("up to date    %s\n", r->config_path);
    } else {
        if (json) {
            json_t *o = result_json(r, "would-change");
            json_object_set_new(o, "py_changed", json_boolean(!py_same));
            json_object_set_new(o, "diff_changed", json_boolean(!diff_same));
            json_array_append_new(json, o);
        } else {
            printf("would change  %s:%s%s%s%s\n", r->config_path, py_same ? "" : " ",
                   py_same ? "" : r->py_path, diff_same ? "" : " ", diff_same ? "" : r->diff_path);
        }
        rc = EXIT_FINDINGS;
    }
    if (cli->notes && !quiet)
        print_notes(r);
    if (log_level() >= LOG_VERBOSE)
        fprintf(stderr,
                "pgci: %s: eval %.1f ms, fetch %.1f ms, codegen %.1f ms, ruff %.1f ms, "
                "diff %.1f ms\n",
                r->config_path, r->ms_eval, r->ms_fetch, r->ms_codegen, r->ms_ruff, r->ms_diff);
    strbuf_free(&py);
    strbuf_free(&df);
    return rc;
}

typedef VEC(const ws_config *) config_list;

static int select_configs(const workspace *ws, const strvec *names, config_list *out)
{
    if (!names->len) {
        for (size_t i = 0; i < ws->configs.len; i++)
            VEC_PUSH(out, &ws->configs.items[i]);
        return 0;
    }
    for (size_t i = 0; i < names->len; i++) {
        const ws_config *c = workspace_find_config(ws, names->items[i]);
        if (!c)
            return pgci_error_set(PGCI_ENOTFOUND,
                                  "no config '%s' in the workspace at %s (see pgci list)",
                                  names->items[i], ws->root);
        VEC_PUSH(out, c);
    }
    return 0;
}

/* --shard K/N: keeps the K-th of N shares, round robin, as pgci check --shard
 * splits them. */
static int shard_configs(config_list *sel, const char *shard)
{
    int k = 0, n = 0;
    if (pipeline_parse_shard(shard, &k, &n) < 0)
        return -1;
    size_t w = 0;
    for (size_t i = 0; i < sel->len; i++)
        if ((int)(i % (size_t)n) == k - 1)
            sel->items[w++] = sel->items[i];
    sel->len = w;
    return 0;
}

/* the normalised bytes depend on ruff's version: say so when it is not the
 * one the workspace pins */
static void warn_ruff_version(const workspace *ws, const char *ruff_cmd)
{
    strbuf v = STRBUF_INIT;
    if (normalize_ruff_version(ruff_cmd, &v) == 0) {
        const char *have = strrchr(v.buf, ' ');
        have = have ? have + 1 : v.buf;
        if (strcmp(have, ws->ruff_version))
            log_warn("%s is ruff %s, not the %s that %s pins ([tool.pgci] ruff_version): "
                     "the normalised output may differ from patchgen's",
                     ruff_cmd ? ruff_cmd : "ruff", have, ws->ruff_version, ws->pyproject);
    }
    strbuf_free(&v);
    pgci_error_clear();
}

/* --format json: the tag, the ruff command and one object per config (arr, taken). */
static void print_json(const char *tag, const char *ruff, json_t *arr)
{
    json_t *root = json_object();
    json_object_set_new(root, "tag", json_string(tag));
    json_object_set_new(root, "ruff", ruff ? json_string(ruff) : json_null());
    json_object_set_new(root, "configs", arr);
    char *txt = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (txt)
        printf("%s\n", txt);
    free(txt);
    json_decref(root);
}

/* Each config's result, the JSON (as_json) or the summary line; the exit code. */
static int report_all(const workspace *ws, const regen_cli *cli, const regen_output *outs, size_t n,
                      const char *tag, const char *ruff, int quiet, int as_json)
{
    size_t n_err = 0, n_change = 0;
    json_t *arr = as_json ? json_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        int r = report_one(ws, cli, &outs[i], quiet, arr);
        n_err += r == EXIT_ERROR;
        n_change += r == EXIT_FINDINGS;
    }
    if (arr)
        print_json(tag, cli->no_ruff ? NULL : ruff ? ruff : "ruff", arr);
    fflush(stdout);
    if (!cli->to_stdout && !quiet && !as_json)
        fprintf(stderr, "pgci: %zu config%s at %s: %zu error%s%s%s\n", n, n == 1 ? "" : "s", tag,
                n_err, n_err == 1 ? "" : "s",
                (cli->write || cli->out_dir || n_err) ? ""
                : n_change                            ? ", some would change"
                                                      : ", all up to date",
                cli->no_ruff ? " (raw, without ruff)" : "");
    return n_err ? EXIT_ERROR : n_change ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* Every selected config through regen_workspace, with the result cache (its
 * counts on -v) and the run's parse set. */
static void regenerate(const workspace *ws, const regen_cli *cli, int jobs, const config_list *sel,
                       const char *tag, upstream *up, rcache *results, py_parse_set *parses,
                       const char *ruff_cmd, regen_output *outs)
{
    strbuf ruff_version = STRBUF_INIT;
    if (results && !cli->no_ruff && normalize_ruff_version(ruff_cmd, &ruff_version) < 0)
        pgci_error_clear(); /* no version, no cached ruff results; ruff reports itself */
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = tag;
    bo.base.cache = results;
    bo.parses = parses;
    bo.base.no_ruff = cli->no_ruff;
    bo.base.ruff.cache = results;
    bo.base.ruff.ruff_version = ruff_version.len ? ruff_version.buf : NULL;
    bo.base.ruff.ruff = ruff_cmd;
    bo.base.ruff.extra_ignore = &ws->ruff_extra_ignore;
    bo.base.ruff.isolated = ws->ruff_isolated;
    bo.base.ruff.cwd = ws->root;
    bo.var_name = cli->var_name;
    bo.out_dir = cli->out_dir;
    bo.no_diff = !cli->diff;
    bo.jobs = jobs;
    bo.up = up;
    regen_workspace(ws, sel->items, sel->len, &bo, outs);
    strbuf_free(&ruff_version);
    if (results) {
        rcache_stats st;
        rcache_get_stats(results, &st);
        log_verbose("cache: %zu hits, %zu misses, %zu written, %zu corrupt entries ignored",
                    st.hits, st.misses, st.writes, st.corrupt);
    }
}

int cmd_regen(int argc, const char **argv)
{
    regen_cli cli = {0};
    common_opts common = {0};
    const opt table[] = {
        OPT_STR(0, "tag", &cli.tag, "TAG", "upstream tag (default: v<the workspace's pin>)"),
        OPT_BOOL(0, "write", &cli.write, "write the regenerated files instead of comparing"),
        OPT_BOOL(0, "diff", &cli.diff, "the .diff too (compared, written, or printed)"),
        OPT_BOOL(0, "stdout", &cli.to_stdout,
                 "print one config's regenerated .py (.diff with --diff)"),
        OPT_STR('o', "output-dir", &cli.out_dir, "DIR",
                "write outputs under DIR (implies --write)"),
        OPT_STR('c', "config-name", &cli.var_name, "NAME",
                "the PatchConfig variable (default: config)"),
        OPT_BOOL(0, "no-ruff", &cli.no_ruff, "skip ruff: raw codegen output"),
        OPT_STR(0, "ruff", &cli.ruff, "CMD",
                "the ruff command (default: [tool.pgci] ruff, else ruff)"),
        OPT_STR(0, "upstream", &cli.upstream_spec, "SPEC",
                "upstream source: URL template, git:PATH or dir:PATH (default: [tool.pgci])"),
        OPT_STR(0, "source", &cli.upstream_spec, "SPEC",
                "the same as --upstream (the name fetch, index, check and survey use)"),
        OPT_BOOL(0, "notes", &cli.notes, "list what patchgen does silently per config"),
        OPT_STR(0, "format", &cli.format, "FMT", "text (default) or json: one object per config"),
        OPT_STR(0, "shard", &cli.shard, "K/N", "regenerate the K-th of N shares of the configs"),
        OPT_BOOL(0, "no-cache", &cli.no_cache,
                 "recompute everything: fetch upstream files again, and neither read nor write "
                 "the cache (upstream files, regenerations, ruff results)"),
        OPT_END(),
    };
    strvec names = STRVEC_INIT;
    int code;
    if (cmd_parse(argc, argv, table, &common,
                  "pgci regen [CONFIG...] [--tag T] [--write] [--diff] [--stdout] [--no-ruff] "
                  "[--ruff CMD] [-o DIR] [-c NAME] [--notes] [--format text|json] [--shard K/N] "
                  "[--no-cache] [-C DIR] [-j N]",
                  "Regenerate configs exactly as patchgen does (evaluate, generate, ruff, .diff) "
                  "and report per config whether the checked-in files are up to date.",
                  &names, &code)) {
        strvec_free(&names);
        return code;
    }
    log_set_level(common.quiet ? LOG_QUIET : common.verbose ? LOG_VERBOSE : LOG_NORMAL);
    workspace *ws = NULL;
    upstream *up = NULL;
    config_list sel = VEC_INIT;
    regen_output *outs = NULL;
    rcache *results = NULL;
    py_parse_set *parses = NULL;
    char *tag = NULL, *ruff_abs = NULL;
    int rc = EXIT_CLEAN;
    if (workspace_open(&ws, common.workspace) < 0 || select_configs(ws, &names, &sel) < 0) {
        rc = cmd_error();
        goto done;
    }
    if (cli.format && strcmp(cli.format, "text") && strcmp(cli.format, "json")) {
        pgci_error_set(PGCI_EUSAGE, "unknown --format '%s' (text or json)", cli.format);
        rc = cmd_error();
        goto done;
    }
    int as_json = cli.format && !strcmp(cli.format, "json") && !cli.to_stdout;
    if (cli.shard && shard_configs(&sel, cli.shard) < 0) {
        rc = cmd_error();
        goto done;
    }
    if (cli.to_stdout && sel.len != 1) {
        pgci_error_set(PGCI_EUSAGE, "--stdout needs exactly one config (got %zu)", sel.len);
        rc = cmd_error();
        goto done;
    }
    if (cli.tag) {
        tag = pgci_strdup(cli.tag);
    } else if (!(tag = workspace_pin_tag(ws))) {
        workspace_no_tag_error(ws, "%s pins no transformers version: pass --tag", ws->pyproject);
        rc = cmd_error();
        goto done;
    }
    if (!cli.no_cache && rcache_open(&results, NULL, 0) < 0)
        pgci_error_clear();
    parses = py_parse_set_new(); /* validation's parse of a module is codegen's too */
    /* --no-cache: upstream files are fetched again (a moving ref); a relative path
     * hangs off the workspace, as with -C in check and survey */
    upstream_opts uo = {.results = results, .no_cache = cli.no_cache, .parses = parses};
    uo.spec = cli.upstream_spec ? cli.upstream_spec : ws->upstream;
    uo.base_dir = ws->root;
    uo.jobs = cmd_jobs(&common); /* -j 1: one thread validates the fetched modules too */
    if (upstream_open(&up, &uo) < 0) {
        rc = cmd_error();
        goto done;
    }
    /* a relative --ruff path is relative to where the user is, but ruff runs in the
     * workspace root: make it absolute */
    if (cli.ruff && strchr(cli.ruff, '/') && cli.ruff[0] != '/') {
        char *abs = realpath(cli.ruff, NULL);
        if (abs)
            ruff_abs = abs;
    }
    const char *ruff_cmd = ruff_abs ? ruff_abs : cli.ruff ? cli.ruff : ws->ruff;
    if (!cli.no_ruff && ws->ruff_version && !common.quiet)
        warn_ruff_version(ws, ruff_cmd);
    outs = pgci_calloc(sel.len ? sel.len : 1, sizeof(*outs));
    regenerate(ws, &cli, cmd_jobs(&common), &sel, tag, up, results, parses, ruff_cmd, outs);
    if ((cli.write || cli.out_dir) && !cli.to_stdout &&
        check_outputs(ws, &cli, outs, sel.len) < 0) {
        rc = cmd_error();
        goto done;
    }
    rc = report_all(ws, &cli, outs, sel.len, tag, ruff_cmd ? ruff_cmd : "ruff", common.quiet,
                    as_json);
done:
    for (size_t i = 0; outs && i < sel.len; i++)
        regen_output_free(&outs[i]);
    free(outs);
    free(tag);
    free(ruff_abs);
    VEC_FREE(&sel);
    upstream_free(up);
    py_parse_set_leave(parses); /* to the exit, as check does: freeing was 2 % of a run */
    workspace_free(ws);
    strvec_free(&names);
    rcache_free(results);
    return rc;
}
