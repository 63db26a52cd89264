/*
 * diff-consistency: the checked-in .diff must be the diff of the upstream module
 * against the checked-in .py, whatever a regeneration would give. This catches the
 * classic trap: someone runs `ruff --fix` on the generated .py by hand, the .py
 * changes, and the .diff next to it silently goes stale.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "patchgen/difflib.h"

/* What the configs turned out to have, counted from the workers. */
typedef struct diff_counts {
    atomic_size_t checked, no_upstream;
} diff_counts;

static int begin_diff(const check_ctx *ctx, void **arg, strbuf *why)
{
    size_t with_diff = 0;
    for (size_t i = 0; i < ctx->n_inputs; i++)
        with_diff += ctx->inputs[i].diff_path != NULL;
    if (ctx->n_inputs && !with_diff) {
        strbuf_adds(why, "--no-diff: the workspace checks in no .diff files");
        return CHECK_NOT_CONFIGURED;
    }
    diff_counts *c = pgci_calloc(1, sizeof(*c));
    atomic_init(&c->checked, 0);
    atomic_init(&c->no_upstream, 0);
    *arg = c;
    return CHECK_RAN;
}

static int one_diff(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)ctx;
    diff_counts *c = arg;
    if (!in->checked_py || !in->checked_diff || !in->source_module || !in->py_path)
        return 0;
    if (!in->upstream) {
        atomic_fetch_add(&c->no_upstream, 1);
        return 0;
    }
    const char *target = in->cfg && in->cfg->target_file ? in->cfg->target_file : NULL;
    if (!target) {
        const char *slash = strrchr(in->py_path, '/');
        target = slash ? slash + 1 : in->py_path;
    }
    strbuf from = STRBUF_INIT, to = STRBUF_INIT, want = STRBUF_INIT;
    strbuf_adds(&from, "a/");
    for (const char *p = in->source_module; *p; p++)
        strbuf_addc(&from, *p == '.' ? '/' : *p);
    strbuf_adds(&from, ".py");
    strbuf_addf(&to, "b/%s", target);
    difflib_patchgen_diff(&want, in->upstream, in->upstream_len, in->checked_py, in->checked_py_len,
                          from.buf, to.buf);
    atomic_fetch_add(&c->checked, 1);
    if (want.len != in->checked_diff_len || memcmp(want.buf, in->checked_diff, want.len)) {
        strbuf d = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
        strbuf_addf(&a, "a/%s", in->diff_path);
        strbuf_addf(&b, "b/%s (upstream vs the checked-in .py)", in->diff_path);
        difflib_unified_diff(&d, in->checked_diff, in->checked_diff_len, want.buf, want.len, a.buf,
                             b.buf, 3);
        json_t *data = json_object();
        json_object_set_new(data, "diff", json_string(d.buf));
        finding *f =
            findings_add(out, "diff-consistency", SEV_ERROR, in->module, in->diff_path, 0, 0, data,
                         "%s is not the diff of upstream against %s (stale after a "
                         "hand edit?)",
                         in->diff_path, in->py_path);
        finding_set_detail(f, d.buf);
        strbuf_free(&d);
        strbuf_free(&a);
        strbuf_free(&b);
    }
    strbuf_free(&from);
    strbuf_free(&to);
    strbuf_free(&want);
    return 0;
}

static int end_diff(const check_ctx *ctx, void *arg, strbuf *why)
{
    diff_counts *c = arg;
    size_t checked = atomic_load(&c->checked), no_upstream = atomic_load(&c->no_upstream);
    free(c);
    if (!checked && no_upstream) {
        strbuf_addf(why, "the upstream source was not available for %zu config(s)", no_upstream);
        return CHECK_NOT_RUN;
    }
    if (!checked && ctx->n_inputs) {
        /* a workspace that keeps none (a packaged distribution): say how to tell */
        strbuf_adds(why, "no config has its .diff checked in (--no-diff: the workspace keeps "
                         "none)");
        return CHECK_NOT_RUN;
    }
    return CHECK_RAN;
}

static const check_each_def diff_each = {.begin = begin_diff, .one = one_diff, .end = end_diff};

const check_def check_diff_consistency = {
    .id = "diff-consistency",
    .summary = "the .diff is the diff of upstream against the checked-in .py",
    .each = &diff_each};
