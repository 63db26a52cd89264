/*
 * The PR gate: regenerate, read what is checked in, check, record.
 *
 * Every config goes through: evaluate (config_eval) -> upstream at the tag ->
 * codegen -> ruff -> .diff (regen_workspace, in parallel), then the checks of
 * check_gate[] run over all of them at once. A config that cannot be regenerated
 * is a "regen" error finding, never a silent skip; a check that cannot run is
 * recorded as not run with its reason, never as passed.
 */
#include "checks/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/checks.h"
#include "checks/gate_ruff.h"
#include "checks/regen_finding.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/sha256.h"
#include "patchgen/config_eval.h"
#include "patchgen/normalize.h"
#include "patchgen/regen.h"
#include "upstream/upstream.h"

int gate_parse_shard(const char *s, int *k, int *n)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (*end != '/')
        goto bad;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 1 || b < 1 || a > b || b > 10000)
        goto bad;
    *k = (int)a;
    *n = (int)b;
    return 0;
bad:
    return pgci_error_set(PGCI_EUSAGE, "--shard wants K/N with 1 <= K <= N, not '%s'", s);
}

int gate_select(const workspace *ws, const strvec *only, int shard_k, int shard_n,
                const ws_config ***out, size_t *n)
{
    const ws_config **sel = pgci_calloc(ws->configs.len + 1, sizeof(*sel));
    size_t m = 0;
    if (only && only->len) {
        for (size_t i = 0; i < only->len; i++) {
            const ws_config *c = workspace_find_config(ws, only->items[i]);
            if (!c) {
                free(sel);
                return pgci_error_set(PGCI_ENOTFOUND, "no config '%s' in %s (see pgci list)",
                                      only->items[i], ws->root);
            }
            int dup = 0;
            for (size_t k = 0; k < m; k++)
                dup |= sel[k] == c;
            if (!dup)
                sel[m++] = c;
        }
    } else {
        for (size_t i = 0; i < ws->configs.len; i++)
            sel[m++] = &ws->configs.items[i];
    }
    if (shard_n > 1) {
        /* round robin keeps shards balanced when configs are sorted by model */
        size_t w = 0;
        for (size_t i = 0; i < m; i++)
            if ((int)(i % (size_t)shard_n) == shard_k - 1)
                sel[w++] = sel[i];
        m = w;
    }
    *out = sel;
    *n = m;
    return 0;
}

/* The checked-in .py of every config (workspace-relative; free each and the
 * array), for the ruff batch that runs beside the regeneration. */
static char **checked_in_paths(const ws_config **sel, pg_config **cfgs, size_t n)
{
    char **paths = pgci_calloc(n ? n : 1, sizeof(*paths));
    for (size_t i = 0; i < n; i++) {
        char *dir = fs_dirname(sel[i]->path), *diff = NULL;
        if (regen_output_paths(dir, NULL, cfgs[i]->target_file, &paths[i], &diff) < 0)
            pgci_error_clear();
        free(diff);
        free(dir);
    }
    return paths;
}

static rcache *open_results(const gate_opts *o)
{
    rcache *c = NULL;
    if (o->no_cache)
        return NULL;
    strbuf d = STRBUF_INIT;
    if (o->cache_dir)
        fs_join(&d, o->cache_dir, "results");
    if (rcache_open(&c, d.len ? d.buf : NULL, 0) < 0)
        pgci_error_clear();
    strbuf_free(&d);
    return c;
}

static void hash_input(run_doc *d, const char *root, const char *rel)
{
    strbuf p = STRBUF_INIT;
    fs_join(&p, root, rel);
    char hex[SHA256_HEX_LEN + 1];
    if (sha256_file_hex(p.buf, hex) == 0)
        run_doc_add_input_file(d, rel, hex);
    else
        pgci_error_clear();
    strbuf_free(&p);
}

static char *read_opt(const char *root, const char *rel, size_t *len)
{
    strbuf p = STRBUF_INIT, data = STRBUF_INIT;
    *len = 0;
    if (!rel || fs_join_under(&p, root, rel, "generated file") < 0 || !fs_is_file(p.buf)) {
        pgci_error_clear();
        strbuf_free(&p);
        return NULL;
    }
    int r = fs_read_file(&data, p.buf, 0);
    strbuf_free(&p);
    if (r < 0) {
        pgci_error_clear();
        strbuf_free(&data);
        return NULL;
    }
    return strbuf_detach(&data, len);
}

static int write_fix(const char *root, const char *rel, const char *data, size_t len)
{
    strbuf p = STRBUF_INIT;
    int r = fs_join_under(&p, root, rel, "generated file");
    if (r == 0) {
        char *dir = fs_dirname(p.buf);
        r = fs_mkdirs(dir);
        free(dir);
    }
    if (r == 0)
        r = fs_write_atomic(p.buf, data, len);
    strbuf_free(&p);
    return r;
}

static int differs(const char *a, size_t alen, const char *b, size_t blen)
{
    return !a || !b || alen != blen || memcmp(a, b, alen) != 0;
}

/* A ruff command with a '/' runs with the workspace root as its working
 * directory, so a relative one is made absolute first: against the current
 * directory when given on the command line, against the workspace root when it
 * comes from [tool.pgci]. A bare name is left for PATH. */
char *gate_ruff_command(const workspace *ws, const char *cli)
{
    const char *cmd = cli ? cli : ws->ruff ? ws->ruff : "ruff";
    if (!strchr(cmd, '/') || cmd[0] == '/')
        return pgci_strdup(cmd);
    strbuf p = STRBUF_INIT;
    if (cli) {
        char cwd[4096];
        if (getcwd(cwd, sizeof(cwd)))
            fs_join(&p, cwd, cmd);
        else
            strbuf_adds(&p, cmd);
    } else {
        fs_join(&p, ws->root, cmd);
    }
    return strbuf_detach(&p, NULL);
}

int gate_run(const workspace *ws, const gate_opts *o, gate_result *out)
{
    memset(out, 0, sizeof(*out));
    run_doc_init(&out->doc, "check", o->timestamp);
    if (o->tag)
        out->tag = pgci_strdup(o->tag);
    else if (ws->pin)
        out->tag = pgci_asprintf("v%s", ws->pin);
    else
        return pgci_error_set(PGCI_EUSAGE,
                              "%s pins no transformers version: pass --tag TAG or add "
                              "transformers==X.Y.Z to its dependencies",
                              ws->pyproject);

    normalize_opts ro; /* how ruff runs, for the regeneration and the checks */
    memset(&ro, 0, sizeof(ro));
    out->ruff_cmd = gate_ruff_command(ws, o->ruff);
    const char *ruff = out->ruff_cmd;
    if (!o->no_ruff) {
        strbuf v = STRBUF_INIT;
        if (normalize_ruff_version(ruff, &v) < 0) {
            strbuf_free(&v);
            return pgci_error_wrap(PGCI_ENOTFOUND,
                                   "ruff is needed to compare bytes as patchgen does (pass --ruff "
                                   "CMD, or --no-ruff for the structural comparison)");
        }
        out->ruff_version = strbuf_detach(&v, NULL);
        ro.ruff = ruff;
        ro.extra_ignore = &ws->ruff_extra_ignore;
        ro.isolated = ws->ruff_isolated;
        ro.cwd = ws->root;
        ro.timeout_ms = o->ruff_timeout_ms;
        ro.ruff_version = out->ruff_version;
    }

    const ws_config **sel;
    size_t n;
    int r = gate_select(ws, o->only, o->shard_k, o->shard_n, &sel, &n);
    if (r < 0)
        return r;
    out->n_configs = n;

    /* A config that does not evaluate is not a finding but a broken input: the
     * gate cannot say anything about it, so it stops with the config's error. */
    config_eval *ev = NULL;
    pg_config **cfgs = pgci_calloc(n ? n : 1, sizeof(*cfgs));
    if ((r = config_eval_new(&ev, ws)) < 0) {
        free(cfgs);
        free(sel);
        return r;
    }
    for (size_t i = 0; i < n; i++) {
        if ((r = config_eval_file(ev, sel[i]->path, o->var_name, &cfgs[i])) < 0) {
            for (size_t k = 0; k < i; k++)
                pg_config_free(cfgs[k]);
            free(cfgs);
            free(sel);
            config_eval_free(ev);
            return r;
        }
    }
    /* a generated file that is not there at all: nothing to check against */
    if (!o->fix) {
        for (size_t i = 0; i < n; i++) {
            char *py = NULL, *diff = NULL;
            char *dir = fs_dirname(sel[i]->path);
            r = regen_output_paths(dir, NULL, cfgs[i]->target_file, &py, &diff);
            free(dir);
            strbuf p = STRBUF_INIT;
            if (r == 0)
                r = fs_join_under(&p, ws->root, py, "generated file");
            if (r == 0) {
                if (!fs_is_file(p.buf))
                    r = pgci_error_set(PGCI_ENOTFOUND,
                                       "%s: generated file %s is missing (pgci check --fix "
                                       "writes it)",
                                       sel[i]->path, py);
            }
            strbuf_free(&p);
            free(py);
            free(diff);
            if (r < 0) {
                for (size_t k = 0; k < n; k++)
                    pg_config_free(cfgs[k]);
                free(cfgs);
                free(sel);
                config_eval_free(ev);
                return r;
            }
        }
    }

    upstream_opts uo;
    memset(&uo, 0, sizeof(uo));
    uo.spec = o->source ? o->source : ws->upstream;
    uo.base_dir = ws->root;
    uo.cache_dir = o->cache_dir;
    uo.jobs = o->jobs;
    py_parse_set *parses = py_parse_set_new(); /* one parse per upstream module */
    uo.parses = parses;
    rcache *results = open_results(o);
    uo.results = results;
    upstream *up;
    if ((r = upstream_open(&up, &uo)) < 0) {
        py_parse_set_free(parses);
        rcache_free(results);
        for (size_t k = 0; k < n; k++)
            pg_config_free(cfgs[k]);
        free(cfgs);
        free(sel);
        config_eval_free(ev);
        return r;
    }

    ro.cache = results;
    /* ruff over the checked-in files (ruff-equivalence) runs beside codegen */
    gate_ruff *gr = NULL;
    if (!o->no_ruff) {
        char **paths = checked_in_paths(sel, cfgs, n);
        gr = gate_ruff_start(&ro, ws->root, (const char *const *)paths, n);
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
    }
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = out->tag;
    bo.base.no_ruff = o->no_ruff;
    bo.base.ruff = ro;
    bo.base.cache = results;
    bo.parses = parses;
    bo.var_name = o->var_name;
    bo.jobs = o->jobs;
    bo.up = up;
    bo.evaluated = cfgs; /* evaluated above: not a second time */
    regen_output *outs = pgci_calloc(n ? n : 1, sizeof(*outs));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    regen_workspace(ws, sel, n, &bo, outs);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pgci_error_clear();
    run_doc_add_timing(&out->doc, "regen",
                       (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                           (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);

    check_input *in = pgci_calloc(n ? n : 1, sizeof(*in));
    char **bufs = pgci_calloc(2 * (n ? n : 1), sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        regen_output *g = &outs[i];
        check_input *c = &in[i];
        c->module = sel[i]->module;
        c->config_path = sel[i]->path;
        c->source_module = g->source_module;
        c->py_path = g->py_path;
        c->diff_path = o->no_diff ? NULL : g->diff_path;
        bufs[2 * i] = read_opt(ws->root, g->py_path, &c->checked_py_len);
        bufs[2 * i + 1] = read_opt(ws->root, c->diff_path, &c->checked_diff_len);
        c->checked_py = bufs[2 * i];
        c->checked_diff = bufs[2 * i + 1];
        c->cfg = cfgs[i];
        if (g->status < 0) {
            /* the raw output, when codegen got that far, still tells the names check
             * what the regeneration would hold (ruff refusing F821 fails here) */
            if (g->raw.len) {
                c->raw = g->raw.buf;
                c->raw_len = g->raw.len;
            }
            c->error = g->error ? g->error : "regeneration failed";
            regen_finding(&out->fs, c->module, c->config_path, "cannot regenerate", c->error);
            out->n_failed++;
            continue;
        }
        c->upstream = g->upstream.buf;
        c->upstream_len = g->upstream.len;
        c->raw = g->raw.buf;
        c->raw_len = g->raw.len;
        if (g->normalized) {
            c->expected_py = g->py.buf;
            c->expected_py_len = g->py.len;
        }
        c->expected_diff = g->diff.buf;
        c->expected_diff_len = g->diff.len;
        c->notes = g->cg.notes.items;
        c->n_notes = g->cg.notes.len;
    }

    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.jobs = o->jobs;
    ctx.ws = ws;
    ctx.tag = out->tag;
    ctx.inputs = in;
    ctx.n_inputs = n;
    ctx.base = o->base;
    ctx.cache = results;
    if (!o->no_ruff) {
        gate_ruff_wait(gr);
        ctx.ruff = ruff;
        ctx.ruff_version = out->ruff_version;
        ctx.normalize = gate_ruff_normalize;
        ctx.normalize_arg = gr;
    } else {
        ctx.ruff_missing = "--no-ruff";
    }
    int err = 0;
    for (size_t k = 0; check_gate[k] && !err; k++) {
        const check_def *cd = check_gate[k];
        strbuf why = STRBUF_INIT;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int cr = cd->run(&ctx, &out->fs, &why);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        run_doc_add_timing(&out->doc, cd->id,
                           (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                               (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        if (cr == CHECK_NOT_RUN) {
            run_doc_set_check(&out->doc, cd->id, "not-run", why.buf);
            strvec_push_owned(&out->not_run, pgci_asprintf("%s: %s", cd->id, why.buf));
        } else if (cr < 0) {
            run_doc_set_check(&out->doc, cd->id, "failed", pgci_error_last());
            err = cr;
        } else {
            run_doc_set_check(&out->doc, cd->id, "ran", NULL);
        }
        strbuf_free(&why);
    }

    /* config status from the findings */
    for (size_t i = 0; i < n; i++) {
        int drift = 0;
        for (size_t k = 0; k < out->fs.len; k++) {
            const finding *f = out->fs.items[k];
            if (f->config && !strcmp(f->config, in[i].module) && f->sev == SEV_ERROR &&
                strcmp(f->check, "regen"))
                drift = 1;
        }
        const char *status = in[i].error ? "failed" : drift ? "drift" : "ok";
        out->n_drift += drift && !in[i].error;
        run_doc_set_config(&out->doc, in[i].module, in[i].config_path, status, in[i].error);
    }

    if (o->fix && !err) {
        for (size_t i = 0; i < n; i++) {
            const check_input *c = &in[i];
            if (!c->expected_py)
                continue;
            if (differs(c->checked_py, c->checked_py_len, c->expected_py, c->expected_py_len)) {
                if ((err = write_fix(ws->root, c->py_path, c->expected_py, c->expected_py_len)) < 0)
                    break;
                strvec_push(&out->fixed, c->py_path);
            }
            if (c->diff_path && differs(c->checked_diff, c->checked_diff_len, c->expected_diff,
                                        c->expected_diff_len)) {
                if ((err = write_fix(ws->root, c->diff_path, c->expected_diff,
                                     c->expected_diff_len)) < 0)
                    break;
                strvec_push(&out->fixed, c->diff_path);
            }
        }
    }

    /* inputs: what this verdict was computed from */
    run_doc_set_input(&out->doc, "workspace", ws->root);
    run_doc_set_input(&out->doc, "tag", out->tag);
    run_doc_set_input(&out->doc, "pin", ws->pin);
    run_doc_set_input(&out->doc, "upstream", upstream_describe(up));
    run_doc_set_input(&out->doc, "ruff_version", out->ruff_version);
    hash_input(&out->doc, ws->root, "pyproject.toml");
    for (size_t i = 0; i < n; i++) {
        hash_input(&out->doc, ws->root, in[i].config_path);
        if (in[i].checked_py)
            hash_input(&out->doc, ws->root, in[i].py_path);
        if (in[i].checked_diff)
            hash_input(&out->doc, ws->root, in[i].diff_path);
        if (outs[i].status == 0 && outs[i].source_module) {
            char hex[SHA256_HEX_LEN + 1];
            sha256_hex(outs[i].upstream.buf, outs[i].upstream.len, hex);
            strbuf name = STRBUF_INIT;
            strbuf_addf(&name, "upstream:%s@%s", outs[i].source_module, out->tag);
            run_doc_add_input_file(&out->doc, name.buf, hex);
            strbuf_free(&name);
        }
    }
    findings_sort(&out->fs);
    run_doc_set_findings(&out->doc, &out->fs);

    for (size_t i = 0; i < n; i++) {
        regen_output_free(&outs[i]);
        free(bufs[2 * i]);
        free(bufs[2 * i + 1]);
        if (cfgs[i])
            pg_config_free(cfgs[i]);
    }
    free(outs);
    free(bufs);
    free(cfgs);
    free(in);
    free(sel);
    if (ev)
        config_eval_free(ev);
    upstream_free(up);
    py_parse_set_free(parses);
    gate_ruff_free(gr);
    if (results) {
        rcache_get_stats(results, &out->cache);
        out->cache_used = 1;
    }
    rcache_free(results);
    return err;
}

void gate_result_free(gate_result *r)
{
    findings_free(&r->fs);
    run_doc_free(&r->doc);
    strvec_free(&r->fixed);
    strvec_free(&r->not_run);
    free(r->ruff_version);
    free(r->ruff_cmd);
    free(r->tag);
}
