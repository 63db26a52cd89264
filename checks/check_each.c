/*
 * check_each.c - a check's per-config work on worker threads.
 *
 * The heavy checks (structural comparison, ruff normalisation, names) do the same
 * independent work for every config. Each call gets its own findings list; the
 * lists are joined in input order afterwards, so the report is the same with one
 * thread or sixteen.
 *
 * The per-config gate checks (.each) run together, config by config: a worker
 * takes a config and runs all of the group's checks on it, then drops the
 * config's regenerated tree from the run's parse set. Run check by check, every
 * regenerated tree would still be alive when the last config was compared.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/par.h"
#include "core/strbuf.h"

typedef struct each {
    const check_ctx *ctx;
    check_input_fn fn;
    void *arg;
    findings *per; /* per input */
    int *rc;       /* per input */
    char **why;    /* per input: the message of a failure */
} each;

static void one(void *p, size_t worker, size_t i)
{
    (void)worker;
    each *e = p;
    e->rc[i] = e->fn(e->ctx, &e->ctx->inputs[i], e->arg, &e->per[i]);
    if (e->rc[i] < 0) {
        e->why[i] = pgci_strdup(pgci_error_last());
        pgci_error_clear();
    }
}

int check_each_input(const check_ctx *ctx, check_input_fn fn, void *arg, findings *out)
{
    size_t n = ctx->n_inputs;
    if (!n)
        return 0;
    each e = {.ctx = ctx, .fn = fn, .arg = arg};
    e.per = pgci_calloc(n, sizeof(*e.per));
    e.rc = pgci_calloc(n, sizeof(*e.rc));
    e.why = pgci_calloc(n, sizeof(*e.why));
    par_for(n, ctx->jobs, one, &e);

    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        findings_move(out, &e.per[i]);
        findings_free(&e.per[i]);
        if (e.rc[i] < 0 && rc == 0)
            rc = pgci_error_set(e.rc[i], "%s", e.why[i] ? e.why[i] : "failed");
        free(e.why[i]);
    }
    free(e.per);
    free(e.rc);
    free(e.why);
    return rc;
}

/* The group's state: check k's share of input i is slot k * n + i. */
typedef struct group {
    const check_ctx *ctx;
    const check_def *const *defs;
    size_t k;     /* checks */
    void **args;  /* per check: begin()'s argument */
    int *running; /* per check: begin() said CHECK_RAN */
    findings *per;
    int *rc;
    char **why;
    double *ms;    /* per slot */
    size_t *order; /* the inputs in the order the workers take them */
} group;

static void group_one(void *p, size_t worker, size_t at)
{
    (void)worker;
    group *g = p;
    size_t i = g->order[at];
    const check_input *in = &g->ctx->inputs[i];
    size_t n = g->ctx->n_inputs;
    for (size_t c = 0; c < g->k; c++) {
        if (!g->running[c])
            continue;
        size_t s = c * n + i;
        double t0 = now_ms();
        g->rc[s] = g->defs[c]->each->one(g->ctx, in, g->args[c], &g->per[s]);
        g->ms[s] = now_ms() - t0;
        if (g->rc[s] < 0) {
            g->why[s] = pgci_strdup(pgci_error_last());
            pgci_error_clear();
        }
    }
    /* no check of the group needs this config's regenerated trees any more */
    if (g->ctx->parses && in->raw)
        py_parse_set_forget(g->ctx->parses, in->raw, in->raw_len);
    if (g->ctx->parses && in->expected_py && in->expected_py != in->raw)
        py_parse_set_forget(g->ctx->parses, in->expected_py, in->expected_py_len);
}

static int same_upstream(const check_input *a, const check_input *b)
{
    return a->upstream && b->upstream && a->upstream_len == b->upstream_len &&
           (a->upstream == b->upstream || !memcmp(a->upstream, b->upstream, a->upstream_len));
}

/* The order the workers take the inputs in: the first config of each upstream
 * module, then the second of each, and so on (stable). The forests of configs
 * regenerated from one module share what they parse (py_parse_set_get_forest),
 * when made one after the other: in the configs' order, a GPU config and its NPU
 * sibling would be taken by two workers at once. */
static size_t *work_order(const check_ctx *ctx)
{
    size_t n = ctx->n_inputs;
    size_t *rank = pgci_calloc(n ? n : 1, sizeof(*rank));
    size_t *order = pgci_calloc(n ? n : 1, sizeof(*order));
    size_t most = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            rank[i] += (size_t)same_upstream(&ctx->inputs[i], &ctx->inputs[j]);
        if (rank[i] > most)
            most = rank[i];
    }
    size_t at = 0;
    for (size_t r = 0; r <= most; r++)
        for (size_t i = 0; i < n; i++)
            if (rank[i] == r)
                order[at++] = i;
    free(rank);
    return order;
}

/* Check c's outcome from its slots and end(). */
static void group_outcome(group *g, size_t c, check_outcome *o)
{
    size_t n = g->ctx->n_inputs;
    for (size_t i = 0; i < n; i++) {
        size_t s = c * n + i;
        findings_move(&o->fs, &g->per[s]);
        findings_free(&g->per[s]);
        o->ms += g->ms[s];
        if (g->rc[s] < 0 && o->status >= 0) {
            o->status = g->rc[s];
            strbuf_reset(&o->why);
            strbuf_adds(&o->why, g->why[s] ? g->why[s] : "failed");
        }
        free(g->why[s]);
    }
    const check_each_def *e = g->defs[c]->each;
    strbuf why = STRBUF_INIT;
    int st = e->end ? e->end(g->ctx, g->args[c], &why) : CHECK_RAN;
    if (o->status >= 0 && st != CHECK_RAN) {
        o->status = st;
        strbuf_reset(&o->why);
        strbuf_add(&o->why, why.buf, why.len);
    }
    strbuf_free(&why);
}

void check_run_group(const check_ctx *ctx, const check_def *const *defs, size_t k,
                     check_outcome *out)
{
    size_t n = ctx->n_inputs;
    group g = {.ctx = ctx, .defs = defs, .k = k};
    g.args = pgci_calloc(k ? k : 1, sizeof(*g.args));
    g.running = pgci_calloc(k ? k : 1, sizeof(*g.running));
    size_t slots = k * n;
    if (!slots)
        slots = 1;
    g.per = pgci_calloc(slots, sizeof(*g.per));
    g.rc = pgci_calloc(slots, sizeof(*g.rc));
    g.why = pgci_calloc(slots, sizeof(*g.why));
    g.ms = pgci_calloc(slots, sizeof(*g.ms));
    g.order = work_order(ctx);
    for (size_t c = 0; c < k; c++) {
        check_outcome *o = &out[c];
        memset(o, 0, sizeof(*o));
        strbuf_init(&o->why, 0);
        const check_each_def *e = defs[c]->each;
        o->status = e->begin ? e->begin(ctx, &g.args[c], &o->why) : CHECK_RAN;
        if (o->status < 0) {
            strbuf_adds(&o->why, pgci_error_last());
            pgci_error_clear();
        }
        g.running[c] = o->status == CHECK_RAN;
    }
    if (n)
        par_for(n, ctx->jobs, group_one, &g);
    for (size_t c = 0; c < k; c++)
        if (g.running[c])
            group_outcome(&g, c, &out[c]);
    free(g.args);
    free(g.running);
    free(g.per);
    free(g.rc);
    free(g.why);
    free(g.ms);
    free(g.order);
}

void check_outcome_free(check_outcome *o)
{
    strbuf_free(&o->why);
    findings_free(&o->fs);
}

int check_run(const check_def *c, const check_ctx *ctx, findings *out, strbuf *why)
{
    if (c->run)
        return c->run(ctx, out, why);
    check_outcome o;
    check_run_group(ctx, &c, 1, &o);
    findings_move(out, &o.fs);
    int st = o.status;
    if (st < 0)
        pgci_error_set(st, "%s", o.why.buf);
    else if (st != CHECK_RAN)
        strbuf_add(why, o.why.buf, o.why.len);
    check_outcome_free(&o);
    return st;
}
