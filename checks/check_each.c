/*
 * check_each.c - a check's per-config work on worker threads.
 *
 * The heavy checks (structural comparison, ruff normalisation, names) do the same
 * independent work for every config. Each call gets its own findings list; the
 * lists are joined in input order afterwards, so the report is the same with one
 * thread or sixteen.
 */
#include <stdlib.h>

#include "checks/check.h"
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
