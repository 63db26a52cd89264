/*
 * ruff-equivalence: is the checked-in file what ruff makes of the regeneration?
 *
 * With ruff, two questions: is the checked-in file a ruff fixed point (normalising
 * it changes nothing: a hand-formatted or hand-edited file fails), and when it
 * drifted, is the drift only formatting? Without ruff, the structural mode
 * (checks/structural.h) compares the regenerated raw output with the checked-in
 * file modulo formatting, so a workspace without ruff still gets a real verdict.
 * Every finding says which mode decided it.
 */
#include <string.h>

#include "checks/checks.h"
#include "core/error.h"
#include "py/structural.h"

static void structural_finding(findings *out, const check_input *in, const char *mode,
                               const structural_result *r)
{
    json_t *data = json_object();
    json_object_set_new(data, "mode", json_string(mode));
    json_object_set_new(data, "difference", json_string(r->what.buf));
    finding *f = findings_add(
        out, "ruff-equivalence", SEV_ERROR, in->module, in->py_path, r->line_b, 0, data,
        "%s is not the regenerated file up to formatting (%s mode)", in->py_path, mode);
    finding_set_detail(f, r->what.buf);
}

static int one_structural(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)ctx, (void)arg;
    if (!in->raw || in->error || !in->checked_py || !in->py_path)
        return 0;
    structural_result r;
    if (structural_compare_in(ctx->parses, in->upstream, in->upstream_len, in->raw, in->raw_len,
                              in->checked_py, in->checked_py_len, &r) < 0) {
        findings_add(out, "ruff-equivalence", SEV_ERROR, in->module, in->py_path, 0, 0, NULL,
                     "cannot compare %s structurally: %s", in->py_path, pgci_error_last());
        pgci_error_clear();
        structural_result_free(&r);
        return 0;
    }
    if (!r.equal)
        structural_finding(out, in, "structural", &r);
    structural_result_free(&r);
    return 0;
}

static int one_with_ruff(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)arg;
    if (!in->checked_py || !in->py_path)
        return 0;
    strbuf norm = STRBUF_INIT;
    if (ctx->normalize(ctx->normalize_arg, in->py_path, in->checked_py, in->checked_py_len, &norm) <
        0) {
        findings_add(out, "ruff-equivalence", SEV_ERROR, in->module, in->py_path, 0, 0, NULL,
                     "ruff cannot normalise %s: %s", in->py_path, pgci_error_last());
        pgci_error_clear();
        strbuf_free(&norm);
        return 0;
    }
    if (norm.len != in->checked_py_len || memcmp(norm.buf, in->checked_py, norm.len)) {
        json_t *data = json_object();
        json_object_set_new(data, "mode", json_string("ruff"));
        findings_add(out, "ruff-equivalence", SEV_ERROR, in->module, in->py_path, 0, 0, data,
                     "%s is not a ruff fixed point: ruff would still change it (hand "
                     "formatted or edited?) (ruff mode)",
                     in->py_path);
    }
    strbuf_free(&norm);
    /* when the file drifted, say whether the drift is only formatting */
    if (in->raw && !in->error && in->expected_py &&
        (in->expected_py_len != in->checked_py_len ||
         memcmp(in->expected_py, in->checked_py, in->checked_py_len))) {
        structural_result r;
        if (structural_compare_in(ctx->parses, in->upstream, in->upstream_len, in->raw, in->raw_len,
                                  in->checked_py, in->checked_py_len, &r) == 0) {
            if (r.equal) {
                json_t *data = json_object();
                json_object_set_new(data, "mode", json_string("ruff"));
                findings_add(out, "ruff-equivalence", SEV_INFO, in->module, in->py_path, 0, 0, data,
                             "%s drifted only in formatting: same code as the "
                             "regeneration, other layout (ruff mode)",
                             in->py_path);
            }
        } else {
            pgci_error_clear();
        }
        structural_result_free(&r);
    }
    return 0;
}

/* structural or ruff mode, as the run has ruff */
static int one_equivalence(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    return (ctx->normalize ? one_with_ruff : one_structural)(ctx, in, arg, out);
}

static const check_each_def equivalence_each = {.one = one_equivalence};

const check_def check_ruff_equivalence = {
    .id = "ruff-equivalence",
    .summary = "the checked-in file is what ruff makes of the regeneration",
    .each = &equivalence_each};
