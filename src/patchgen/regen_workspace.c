/*
 * regen_workspace.c - regenerating many configs of a workspace in parallel.
 *
 * Four phases, so that nothing shared needs a lock:
 *   1. evaluate every config (config_eval_all: worker threads, one evaluator
 *      each), unless the caller evaluated them already (pgci check does, to stop
 *      early on a broken one);
 *   2. fetch each distinct upstream module once (the upstream layer does its own
 *      parallel transfers and caching);
 *   3. generate every config (worker threads again);
 *   4. normalise every output with one ruff batch (normalize_ruff_batch: ruff
 *      spreads the files over the cores itself), then diff each.
 * A failure is recorded in that config's regen_output; the others go on.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/par.h"
#include "patchgen/codegen_shared.h"
#include "patchgen/config_eval.h"
#include "patchgen/regen.h"

typedef struct batch {
    const workspace *ws;
    const ws_config *const *configs;
    size_t n;
    const regen_batch_opts *o;
    regen_opts base; /* o->base, with the run's shared parses */
    regen_output *outs;
    pg_config **cfgs;
    strvec modules;  /* distinct source modules */
    strbuf *sources; /* per module */
    char **fetch_errors;
    size_t *module_of; /* per config: index into modules, or (size_t)-1 */
} batch;

static void record_error(regen_output *out, int code)
{
    out->status = code;
    free(out->error);
    out->error = pgci_strdup(pgci_error_last());
}

/* The bookkeeping of an evaluated config: its module and output paths. */
static void adopt(batch *b, size_t i)
{
    regen_output *out = &b->outs[i];
    const pg_config *c = b->cfgs[i];
    int r;
    out->source_module = pgci_strdup(c->source_module);
    out->target_file = pgci_strdup(c->target_file);
    r = regen_output_paths(b->configs[i]->dir, b->o->out_dir, c->target_file, &out->py_path,
                           &out->diff_path);
    if (r < 0) {
        pgci_error_wrap(r, "%s", b->configs[i]->path);
        record_error(out, r);
    }
}

/* Phase 1: every config evaluated on the worker threads (config_eval_all). */
static void evaluate_all(batch *b)
{
    int *rcs = pgci_calloc(b->n + 1, sizeof(int));
    char **whys = pgci_calloc(b->n + 1, sizeof(char *));
    double *ms = pgci_calloc(b->n + 1, sizeof(double));
    config_eval_all(b->ws, b->configs, b->n, b->o->var_name, b->o->jobs, b->cfgs, rcs, whys, ms);
    for (size_t i = 0; i < b->n; i++) {
        b->outs[i].ms_eval = ms[i];
        if (b->cfgs[i]) {
            adopt(b, i);
            continue;
        }
        pgci_error_set(rcs[i], "%s", whys[i] ? whys[i] : "the config did not evaluate");
        record_error(&b->outs[i], rcs[i]);
        free(whys[i]);
    }
    free(rcs);
    free(whys);
    free(ms);
}

static void generate_one(batch *b, size_t i)
{
    regen_output *out = &b->outs[i];
    if (out->status < 0 || !b->cfgs[i])
        return;
    size_t m = b->module_of[i];
    if (b->fetch_errors[m]) {
        pgci_error_set(PGCI_ENOTFOUND, "%s: %s", b->configs[i]->path, b->fetch_errors[m]);
        record_error(out, PGCI_ENOTFOUND);
        out->upstream_failed = 1;
        return;
    }
    regen_codegen(b->cfgs[i], b->sources[m].buf, b->sources[m].len, &b->base, out);
}

typedef struct finish_set {
    batch *b;
    const size_t *of;
} finish_set;

static void finish_item(void *arg, size_t worker, size_t k)
{
    (void)worker;
    finish_set *fs = arg;
    size_t i = fs->of[k];
    regen_finish(fs->b->cfgs[i], &fs->b->outs[i]);
}

/* Every output codegen made, through one ruff batch, then its .diff. */
static void normalize_all(batch *b)
{
    const regen_opts *o = &b->base;
    normalize_item *items = pgci_calloc(b->n ? b->n : 1, sizeof(*items));
    size_t *of = pgci_calloc(b->n ? b->n : 1, sizeof(*of));
    size_t m = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (b->outs[i].status < 0 || !b->cfgs[i])
            continue;
        if (!o->no_ruff) {
            items[m].file_name = regen_file_name(b->cfgs[i]);
            items[m].src = b->outs[i].raw.buf;
            items[m].len = b->outs[i].raw.len;
        }
        of[m++] = i;
    }
    double t0 = now_ms();
    if (!o->no_ruff) {
        normalize_opts ro = o->ruff;
        ro.jobs = b->o->jobs;
        ro.verdict_only = b->o->verdict_only;
        ro.words = b->o->verdict_words;
        normalize_ruff_batch(&ro, items, m);
    }
    double per = m ? (now_ms() - t0) / (double)m : 0;
    size_t done = 0; /* of[0..done): the outputs whose .diff is made (done <= k) */
    for (size_t k = 0; k < m; k++) {
        size_t i = of[k];
        regen_output *out = &b->outs[i];
        if (!o->no_ruff) {
            out->ms_ruff = per;
            strbuf_reset(&out->py);
            strbuf_add(&out->py, items[k].out.buf, items[k].out.len);
            if (regen_normalized(b->cfgs[i], out, items[k].status, items[k].error) < 0)
                continue;
        }
        if (!b->o->verdict_only && !b->o->no_diff)
            of[done++] = i;
    }
    /* the .diff of each, on the workers (a difflib run per file) */
    finish_set fs = {b, of};
    par_for(done, b->o->jobs, finish_item, &fs);
    for (size_t k = 0; k < m; k++) {
        strbuf_free(&items[k].out);
        free(items[k].error);
    }
    free(items);
    free(of);
    pgci_error_clear();
}

/* Phase 3: generate config i. */
static void generate_item(void *arg, size_t worker, size_t i)
{
    (void)worker;
    generate_one(arg, i);
}

int regen_workspace(const workspace *ws, const ws_config *const *configs, size_t n,
                    const regen_batch_opts *o, regen_output *outs)
{
    batch b;
    memset(&b, 0, sizeof(b));
    b.ws = ws;
    b.configs = configs;
    b.n = n;
    b.o = o;
    b.base = o->base;
    if (!b.base.shared)
        b.base.shared = cg_shared_new(o->parses);
    b.outs = outs;
    b.cfgs = pgci_calloc(n ? n : 1, sizeof(*b.cfgs));
    b.module_of = pgci_calloc(n ? n : 1, sizeof(*b.module_of));
    for (size_t i = 0; i < n; i++) {
        outs[i].config_path = pgci_strdup(configs[i]->path);
        outs[i].config_module = pgci_strdup(configs[i]->module);
    }
    if (o->evaluated) {
        for (size_t i = 0; i < n; i++) {
            b.cfgs[i] = o->evaluated[i];
            if (b.cfgs[i]) {
                adopt(&b, i);
                continue;
            }
            pgci_error_set(PGCI_EUNSUPPORTED, "%s",
                           o->eval_errors && o->eval_errors[i] ? o->eval_errors[i]
                                                               : "the config did not evaluate");
            record_error(&outs[i], PGCI_EUNSUPPORTED);
        }
    } else {
        evaluate_all(&b);
    }

    for (size_t i = 0; i < n; i++) {
        b.module_of[i] = (size_t)-1;
        if (outs[i].status < 0 || !b.cfgs[i])
            continue;
        long k = strvec_find(&b.modules, b.cfgs[i]->source_module);
        if (k < 0) {
            strvec_push(&b.modules, b.cfgs[i]->source_module);
            k = (long)b.modules.len - 1;
        }
        b.module_of[i] = (size_t)k;
    }
    b.sources = pgci_calloc(b.modules.len + 1, sizeof(*b.sources));
    b.fetch_errors = pgci_calloc(b.modules.len + 1, sizeof(*b.fetch_errors));
    for (size_t m = 0; m < b.modules.len; m++)
        strbuf_init(&b.sources[m], 0);
    if (b.modules.len) {
        double t0 = now_ms();
        upstream_fetch_all(o->up, o->base.tag, &b.modules, b.sources, b.fetch_errors);
        double per = (now_ms() - t0) / (double)b.modules.len;
        for (size_t i = 0; i < n; i++)
            if (b.module_of[i] != (size_t)-1)
                outs[i].ms_fetch = per;
    }

    par_for(n, o->jobs, generate_item, &b);
    normalize_all(&b);

    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (outs[i].status < 0)
            rc = outs[i].status;
    /* each evaluated config is self-contained (its own arena) and ours to free */
    if (!o->evaluated)
        for (size_t i = 0; i < n; i++)
            pg_config_free(b.cfgs[i]);
    for (size_t m = 0; m < b.modules.len; m++) {
        strbuf_free(&b.sources[m]);
        free(b.fetch_errors[m]);
    }
    free(b.sources);
    free(b.fetch_errors);
    strvec_free(&b.modules);
    free(b.cfgs);
    free(b.module_of);
    if (!o->base.shared)
        cg_shared_free(b.base.shared);
    if (rc < 0) {
        for (size_t i = 0; i < n; i++)
            if (outs[i].status < 0) {
                pgci_error_set(outs[i].status, "%s", outs[i].error ? outs[i].error : "failed");
                break;
            }
    }
    return rc;
}
