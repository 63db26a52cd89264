/*
 * The PR gate: regenerate, read what is checked in, check, record.
 *
 * Every config goes through: evaluate (config_eval) -> upstream at the tag ->
 * codegen -> ruff -> .diff (regen_workspace, in parallel; ruff over the checked-in
 * files runs beside it), then the gate checks of check_registry[] run over all of
 * them at once. Each upstream module is parsed once (the run's parse set), and
 * what a previous run computed from the same inputs comes from the result cache.
 * A config that cannot be regenerated is a "regen" error finding, never a silent
 * skip; a check that cannot run is recorded as not run with its reason, never as
 * passed.
 */
#include "pipeline/gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks/checks.h"
#include "checks/regen_finding.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/sha256.h"
#include "patchgen/codegen_text.h"
#include "patchgen/config_eval.h"
#include "patchgen/difflib.h"
#include "patchgen/normalize.h"
#include "patchgen/regen.h"
#include "pipeline/gate_context.h"
#include "pipeline/gate_fix.h"
#include "pipeline/gate_ruff.h"
#include "pipeline/gate_verdict.h"
#include "pipeline/pipeline.h"
#include "pipeline/run_shard.h"
#include "upstream/upstream.h"

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

/* How patchgen's check reads a checked-in file (check_patchgen.check_config). */
typedef enum read_as {
    READ_PY,  /* Path.read_text: "\r\n" and a lone "\r" become "\n" */
    READ_DIFF /* strip_diff_trailing_ws(read_text()): the .diff form, each line
               * right-stripped, one final newline */
} read_as;

/* The checked-in file at root/rel as patchgen's check compares it, so a CRLF
 * checkout or an editor's trailing-whitespace strip is no drift here either; NULL
 * when it is not there. */
static char *read_opt(const char *root, const char *rel, read_as as, size_t *len)
{
    strbuf p = STRBUF_INIT, data = STRBUF_INIT, text = STRBUF_INIT;
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
    if (as == READ_DIFF)
        difflib_patchgen_form(&text, data.buf, data.len);
    else
        cgtext_universal_newlines(&text, data.buf, data.len);
    strbuf_free(&data);
    return strbuf_detach(&text, len); /* an empty file is "", not NULL */
}

/* One gate run: what each stage hands the next. Zeroed at the start, so the one
 * cleanup path (gate_state_free) frees whatever the stages got to. */
typedef struct gate_state {
    const workspace *ws;
    const gate_opts *o;
    gate_result *out;
    normalize_opts ro;     /* how ruff runs, for the regeneration and the checks */
    gate_ruff *gr;         /* ruff over the checked-in files, beside the regeneration */
    rcache *results;       /* the result cache; NULL: --no-cache */
    py_parse_set *parses;  /* one parse per upstream module */
    const ws_config **sel; /* the selected configs, n of them */
    size_t n;
    config_eval *ev;
    pg_config **cfgs;  /* evaluated, one per config */
    char **eval_errs;  /* why cfgs[i] is NULL: a construct pgci cannot evaluate */
    gate_context gc;   /* the rest of the checked packages (pgci check CONFIG, --shard) */
    char *env_failure; /* an upstream that could not be read: exit 2 at the end */
    upstream *up;
    regen_output *outs; /* regenerated, one per config */
    check_input *in;    /* what the checks read, one per config */
    char **bufs;        /* the checked-in .py and .diff of each config */
    check_ctx ctx;
} gate_state;

/* The tag, and ruff's version (a ruff that does not run is an environment error). */
static int gate_resolve(gate_state *s)
{
    const workspace *ws = s->ws;
    const gate_opts *o = s->o;
    gate_result *out = s->out;
    if (o->tag)
        out->tag = pgci_strdup(o->tag);
    else if (!(out->tag = workspace_pin_tag(ws)))
        return workspace_no_tag_error(ws,
                                      "%s pins no transformers version: pass --tag TAG or add "
                                      "transformers==X.Y.Z to its dependencies",
                                      ws->pyproject);

    out->ruff_cmd = pipeline_ruff_command(ws, o->ruff);
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
        s->ro.ruff = ruff;
        s->ro.extra_ignore = &ws->ruff_extra_ignore;
        s->ro.isolated = ws->ruff_isolated;
        s->ro.cwd = ws->root;
        s->ro.timeout_ms = o->ruff_timeout_ms;
        s->ro.jobs = o->jobs;
        s->ro.ruff_version = out->ruff_version;
    }
    return 0;
}

/* run.json records the shard and its configs, so report --merge can tell a
 * missing or duplicated shard (run_shard.h). */
static void gate_record_shard(gate_state *s)
{
    strvec mine = STRVEC_INIT, all = STRVEC_INIT;
    for (size_t i = 0; i < s->n; i++)
        strvec_push(&mine, s->sel[i]->module);
    for (size_t i = 0; i < s->ws->configs.len; i++)
        strvec_push(&all, s->ws->configs.items[i].module);
    run_doc_set_shard(&s->out->doc, s->o->shard_k, s->o->shard_n, &mine, &all);
    strvec_free(&mine);
    strvec_free(&all);
}

/* A config that cannot be read (a syntax error, a missing import) is a broken
 * input: the gate stops with its error (the first in config order). One with a
 * construct pgci cannot evaluate (an f-string target) fails alone, with a finding
 * at file:line:col. */
static int gate_evaluate(gate_state *s)
{
    int r = pipeline_select(s->ws, s->o->only, s->o->shard_k, s->o->shard_n, &s->sel, &s->n);
    if (r < 0)
        return r;
    s->out->n_configs = s->n;
    if (s->o->shard_n > 1)
        gate_record_shard(s);
    s->cfgs = pgci_calloc(s->n ? s->n : 1, sizeof(*s->cfgs));
    s->eval_errs = pgci_calloc(s->n ? s->n : 1, sizeof(*s->eval_errs));
    int *rcs = pgci_calloc(s->n + 1, sizeof(int));
    char **whys = pgci_calloc(s->n + 1, sizeof(char *));
    config_eval_all(s->ws, (const ws_config *const *)s->sel, s->n, s->o->var_name, s->o->jobs,
                    s->cfgs, rcs, whys, NULL);
    for (size_t i = 0; i < s->n; i++) {
        if (rcs[i] == PGCI_EUNSUPPORTED) {
            s->eval_errs[i] = whys[i];
            whys[i] = NULL;
        } else if (rcs[i] < 0 && r == 0) {
            r = pgci_error_set(rcs[i], "%s", whys[i]);
        }
        free(whys[i]);
    }
    free(rcs);
    free(whys);
    /* an evaluator for the package context (gate_context.h) */
    if (r == 0)
        r = config_eval_new(&s->ev, s->ws);
    return r;
}

/* One generated file of config `cfg`: it must not resolve outside the workspace
 * (a symlink out), and when it is there it must be a regular file. Without --fix
 * (`fix`) a .py that is not there at all is an error too (`required`); a missing
 * .diff is drift, a finding. With --fix the messages say that nothing was
 * written, as the write checks' (fs_safe.h) do. */
static int generated_file_ok(const char *root, const char *cfg, const char *rel, int required,
                             int fix)
{
    strbuf p = STRBUF_INIT;
    int r = fs_join_under(&p, root, rel, "generated file");
    struct stat st;
    if (r < 0 && fix) {
        char *why = pgci_strdup(pgci_error_last());
        r = pgci_error_set(r, "refusing to write %s: %s; nothing was written", rel, why);
        free(why);
    } else if (r == 0 && stat(p.buf, &st) == 0) {
        const char *what = S_ISDIR(st.st_mode) ? "a directory" : "not a regular file";
        if (!S_ISREG(st.st_mode) && fix)
            r = pgci_error_set(PGCI_EINVALID,
                               "%s: cannot write generated file %s: it is %s (remove it and run "
                               "--fix again); nothing was written",
                               cfg, rel, what);
        else if (!S_ISREG(st.st_mode))
            r = pgci_error_set(PGCI_EINVALID,
                               "%s: generated file %s is %s, not a file (remove it; pgci check "
                               "--fix then writes it)",
                               cfg, rel, what);
    } else if (r == 0 && errno != ENOENT) {
        r = pgci_error_set(PGCI_EIO, "%s: cannot read generated file %s: %s", cfg, rel,
                           strerror(errno));
    } else if (r == 0 && required) {
        r = pgci_error_set(PGCI_ENOTFOUND,
                           "%s: generated file %s is missing (pgci check --fix writes it)", cfg,
                           rel);
    }
    strbuf_free(&p);
    return r;
}

/* The generated files, before anything reads or writes them: none outside the
 * workspace, none that is not a file, and (without --fix) every .py there. */
static int gate_require_generated(const gate_state *s)
{
    int r = 0;
    for (size_t i = 0; i < s->n && r == 0; i++) {
        if (!s->cfgs[i])
            continue; /* did not evaluate: its regen finding says why */
        char *py = NULL, *diff = NULL;
        char *dir = fs_dirname(s->sel[i]->path);
        r = regen_output_paths(dir, NULL, s->cfgs[i]->target_file, &py, &diff);
        free(dir);
        if (r == 0)
            r = generated_file_ok(s->ws->root, s->sel[i]->path, py, !s->o->fix, s->o->fix);
        if (r == 0 && !s->o->no_diff)
            r = generated_file_ok(s->ws->root, s->sel[i]->path, diff, 0, s->o->fix);
        free(py);
        free(diff);
    }
    return r;
}

/* Two configs that write the same generated file (pipeline.h): the gate stops
 * before anything is written. A shard records what its configs write, for the
 * merge of the shards to compare (run_shard.h). */
static int gate_require_distinct_outputs(const gate_state *s)
{
    const char **cfgs = pgci_calloc(s->n ? s->n : 1, sizeof(*cfgs));
    char **pys = pgci_calloc(s->n ? s->n : 1, sizeof(*pys));
    for (size_t i = 0; i < s->n; i++) {
        char *diff = NULL, *dir = fs_dirname(s->sel[i]->path);
        cfgs[i] = s->sel[i]->path;
        /* one that did not evaluate, or an unsafe target_file: its own finding says why */
        if (s->cfgs[i] &&
            regen_output_paths(dir, NULL, s->cfgs[i]->target_file, &pys[i], &diff) < 0)
            pgci_error_clear();
        free(diff);
        free(dir);
    }
    int r = pipeline_require_distinct_outputs(s->ws->root, cfgs, (const char *const *)pys, s->n);
    /* a shard, or a run over named configs, sees its own configs: the merge of
     * the parts compares them all */
    if (r == 0 && (s->o->shard_n > 1 || (s->o->only && s->o->only->len))) {
        for (size_t i = 0; i < s->n; i++) {
            char *file = pys[i] ? pipeline_output_file(s->ws->root, pys[i]) : NULL;
            free(pys[i]);
            pys[i] = file;
        }
        run_doc_set_outputs(&s->out->doc, cfgs, (const char *const *)pys, s->n);
    }
    for (size_t i = 0; i < s->n; i++)
        free(pys[i]);
    free(pys);
    free(cfgs);
    return r;
}

/* The result cache, the run's parse set and the upstream that shares them. */
static int gate_open_upstream(gate_state *s)
{
    if (!s->o->no_cache) {
        strbuf d = STRBUF_INIT;
        if (s->o->cache_dir)
            fs_join(&d, s->o->cache_dir, "results");
        if (rcache_open(&s->results, d.len ? d.buf : NULL, 0) < 0)
            pgci_error_clear();
        strbuf_free(&d);
    }
    s->ro.cache = s->results;
    s->parses = py_parse_set_new();
    return pipeline_upstream_open_with(&s->up, s->ws, s->o->source, s->o->cache_dir, s->o->jobs,
                                       s->parses, s->results, s->o->no_cache);
}

/* ruff over the checked-in .py of every config (what ruff-equivalence asks),
 * started on a thread of its own so that it runs beside the regeneration. */
static void gate_start_ruff(gate_state *s)
{
    if (s->o->no_ruff)
        return;
    char **paths = pgci_calloc(s->n ? s->n : 1, sizeof(*paths));
    for (size_t i = 0; i < s->n; i++) {
        if (!s->cfgs[i]) /* did not evaluate: no file to normalise */
            continue;
        char *dir = fs_dirname(s->sel[i]->path), *diff = NULL;
        if (regen_output_paths(dir, NULL, s->cfgs[i]->target_file, &paths[i], &diff) < 0)
            pgci_error_clear();
        free(diff);
        free(dir);
    }
    s->gr = gate_ruff_start(&s->ro, s->ws->root, (const char *const *)paths, s->n);
    for (size_t i = 0; i < s->n; i++)
        free(paths[i]);
    free(paths);
}

/* Every config regenerated at the tag, in parallel (regen_workspace fetches each
 * upstream file once). A config that fails is recorded in its output. */
static void gate_regenerate(gate_state *s)
{
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = s->out->tag;
    bo.base.no_ruff = s->o->no_ruff;
    bo.base.ruff = s->ro;
    bo.base.cache = s->results;
    bo.parses = s->parses;
    bo.var_name = s->o->var_name;
    bo.jobs = s->o->jobs;
    bo.up = s->up;
    bo.evaluated = s->cfgs; /* evaluated above: not a second time */
    bo.eval_errors = (const char *const *)s->eval_errs;
    s->outs = pgci_calloc(s->n ? s->n : 1, sizeof(*s->outs));
    double t0 = now_ms();
    regen_workspace(s->ws, s->sel, s->n, &bo, s->outs);
    pgci_error_clear();
    /* an upstream that could not be read, or is not the module: not the PR's fault */
    s->env_failure = gate_env_failure(s->outs, s->cfgs, s->n, s->out->tag);
    run_doc_add_timing(&s->out->doc, "regen", now_ms() - t0);
}

/* What the checks read: each config's regeneration beside what is checked in. */
static void gate_read_inputs(gate_state *s)
{
    const workspace *ws = s->ws;
    const gate_opts *o = s->o;
    gate_result *out = s->out;
    size_t n = s->n;
    check_input *in = s->in = pgci_calloc(n ? n : 1, sizeof(*in));
    char **bufs = s->bufs = pgci_calloc(2 * (n ? n : 1), sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        regen_output *g = &s->outs[i];
        check_input *c = &in[i];
        c->module = s->sel[i]->module;
        c->config_path = s->sel[i]->path;
        c->source_module = g->source_module;
        c->py_path = g->py_path;
        c->diff_path = o->no_diff ? NULL : g->diff_path;
        bufs[2 * i] = read_opt(ws->root, g->py_path, READ_PY, &c->checked_py_len);
        bufs[2 * i + 1] = read_opt(ws->root, c->diff_path, READ_DIFF, &c->checked_diff_len);
        c->checked_py = bufs[2 * i];
        c->checked_diff = bufs[2 * i + 1];
        c->cfg = s->cfgs[i];
        if (g->status < 0) {
            /* the raw output, when codegen got that far, still tells the names check
             * what the regeneration would hold (ruff refusing F821 fails here) */
            if (g->raw.len) {
                c->raw = g->raw.buf;
                c->raw_len = g->raw.len;
            }
            c->error = g->error ? g->error : "regeneration failed";
            regen_finding(&out->fs, c->module, c->config_path, c->cfg, "cannot regenerate",
                          c->error);
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
}

/* The most config-by-config checks run as one group (the table has five). */
#define GATE_GROUP_MAX 16

/* One check's outcome into the result: its findings, status and time. A check that
 * failed stops the gate (the error is returned, its message set). */
static int gate_record_check(gate_result *out, const check_def *cd, check_outcome *o)
{
    run_doc_add_timing(&out->doc, cd->id, o->ms);
    findings_move(&out->fs, &o->fs);
    if (o->status == CHECK_NOT_RUN) {
        run_doc_set_check(&out->doc, cd->id, "not-run", o->why.buf);
        strvec_push_owned(&out->not_run, pgci_asprintf("%s: %s", cd->id, o->why.buf));
    } else if (o->status == CHECK_NOT_CONFIGURED) {
        run_doc_set_check(&out->doc, cd->id, "not-configured", o->why.buf);
        strvec_push_owned(&out->not_configured, pgci_asprintf("%s: %s", cd->id, o->why.buf));
    } else if (o->status < 0) {
        run_doc_set_check(&out->doc, cd->id, "failed", o->why.buf);
        return pgci_error_set(o->status, "%s", o->why.buf);
    } else {
        run_doc_set_check(&out->doc, cd->id, "ran", NULL);
    }
    return 0;
}

/* The gate checks of check_registry[], in order, each over all configs at once (the
 * config-by-config ones as a group: check_run_group); a check that cannot run is
 * recorded as not run with its reason. Stops at a check that fails. */
static int gate_run_checks(gate_state *s)
{
    gate_result *out = s->out;
    check_ctx *ctx = &s->ctx;
    ctx->jobs = s->o->jobs;
    ctx->ws = s->ws;
    ctx->tag = out->tag;
    ctx->inputs = s->in;
    ctx->n_inputs = s->n;
    ctx->base = s->o->base;
    ctx->cache = s->results;
    ctx->parses = s->parses;
    gate_context_build(&s->gc, s->ws, s->sel, s->n, s->ev, s->o->var_name);
    ctx->context = s->gc.inputs;
    ctx->n_context = s->gc.n;
    if (!s->o->no_ruff) {
        gate_ruff_wait(s->gr);
        ctx->ruff = out->ruff_cmd;
        ctx->ruff_version = out->ruff_version;
        ctx->normalize = gate_ruff_normalize;
        ctx->normalize_arg = s->gr;
    } else {
        ctx->ruff_missing = "--no-ruff";
    }
    int err = 0;
    for (const check_entry *e = check_registry; e->def && !err;) {
        if (e->where != CHECK_IN_GATE) {
            e++;
            continue;
        }
        /* one check, or the consecutive config-by-config ones as a group (the rows
         * of the other pipelines between them skipped) */
        const check_def *group[GATE_GROUP_MAX];
        size_t k = 0;
        if (!e->def->each) {
            group[k++] = (e++)->def;
        } else {
            for (; e->def && k < GATE_GROUP_MAX; e++) {
                if (e->where != CHECK_IN_GATE)
                    continue;
                if (!e->def->each)
                    break;
                group[k++] = e->def;
            }
        }
        check_outcome outs[GATE_GROUP_MAX];
        if (group[0]->each) {
            check_run_group(ctx, group, k, outs);
        } else {
            check_outcome *o = &outs[0];
            memset(o, 0, sizeof(*o));
            strbuf_init(&o->why, 0);
            double t0 = now_ms();
            o->status = group[0]->run(ctx, &o->fs, &o->why);
            o->ms = now_ms() - t0;
            if (o->status < 0) {
                strbuf_adds(&o->why, pgci_error_last());
                pgci_error_clear();
            }
        }
        for (size_t c = 0; c < k; c++) {
            if (!err)
                err = gate_record_check(out, group[c], &outs[c]);
            check_outcome_free(&outs[c]);
        }
    }
    return err;
}

/* Each config's status from the findings: "drift" means drift only (gate_verdict.h). */
static void gate_config_status(gate_state *s)
{
    gate_result *out = s->out;
    const check_input *in = s->in;
    for (size_t i = 0; i < s->n; i++) {
        const char *status = gate_status_of(&out->fs, in[i].module, in[i].error != NULL);
        out->n_drift += !strcmp(status, "drift");
        run_doc_set_config(&out->doc, in[i].module, in[i].config_path, status, in[i].error);
    }
}

/* --fix: what differs from the regeneration is rewritten, inside the workspace
 * only, for configs with no other error (gate_fix.h). */
static int gate_fix(gate_state *s)
{
    return gate_fix_apply(s->ws->root, s->in, s->n, &s->out->fs, &s->out->fixed,
                          &s->out->fix_refused);
}

/* The run record's inputs: what this verdict was computed from; then the findings. */
static void gate_record(gate_state *s)
{
    const workspace *ws = s->ws;
    gate_result *out = s->out;
    const check_input *in = s->in;
    const regen_output *outs = s->outs;
    run_doc_set_input(&out->doc, "workspace", ws->root);
    run_doc_set_input(&out->doc, "tag", out->tag);
    run_doc_set_input(&out->doc, "pin", ws->pin);
    run_doc_set_input(&out->doc, "upstream", upstream_describe(s->up));
    run_doc_set_input(&out->doc, "ruff_version", out->ruff_version);
    hash_input(&out->doc, ws->root, "pyproject.toml");
    for (size_t i = 0; i < s->n; i++) {
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
}

static void gate_state_free(gate_state *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->outs)
            regen_output_free(&s->outs[i]);
        if (s->bufs) {
            free(s->bufs[2 * i]);
            free(s->bufs[2 * i + 1]);
        }
        if (s->cfgs && s->cfgs[i])
            pg_config_free(s->cfgs[i]);
        if (s->eval_errs)
            free(s->eval_errs[i]);
    }
    free(s->eval_errs);
    free(s->env_failure);
    gate_context_free(&s->gc);
    free(s->outs);
    free(s->bufs);
    free(s->cfgs);
    free(s->in);
    free(s->sel);
    config_eval_free(s->ev);
    upstream_free(s->up);
    gate_ruff_free(s->gr);
    if (s->o->exits_after)
        py_parse_set_leave(s->parses);
    else
        py_parse_set_free_jobs(s->parses, s->o->jobs);
    if (s->results) {
        rcache_get_stats(s->results, &s->out->cache);
        s->out->cache_used = 1;
    }
    rcache_free(s->results);
}

int gate_run(const workspace *ws, const gate_opts *o, gate_result *out)
{
    memset(out, 0, sizeof(*out));
    run_doc_init(&out->doc, "check", o->timestamp);
    gate_state s;
    memset(&s, 0, sizeof(s));
    s.ws = ws;
    s.o = o;
    s.out = out;
    int r;
    double t0 = now_ms();
    if ((r = gate_resolve(&s)) < 0 || (r = gate_evaluate(&s)) < 0 ||
        (r = gate_require_distinct_outputs(&s)) < 0 || (r = gate_require_generated(&s)) < 0)
        goto out;
    run_doc_add_timing(&out->doc, "evaluate", now_ms() - t0);
    if ((r = gate_open_upstream(&s)) < 0)
        goto out;
    gate_start_ruff(&s);
    gate_regenerate(&s);
    gate_read_inputs(&s);
    r = gate_run_checks(&s);
    gate_config_status(&s);
    if (o->fix && !r && !s.env_failure)
        r = gate_fix(&s);
    gate_record(&s);
    if (!r && s.env_failure)
        r = pgci_error_set(PGCI_ENOTFOUND, "%s", s.env_failure);
out:
    gate_state_free(&s);
    return r;
}

void gate_result_free(gate_result *r)
{
    findings_free(&r->fs);
    run_doc_free(&r->doc);
    strvec_free(&r->fixed);
    strvec_free(&r->not_run);
    strvec_free(&r->not_configured);
    strvec_free(&r->fix_refused);
    free(r->ruff_version);
    free(r->ruff_cmd);
    free(r->tag);
}
