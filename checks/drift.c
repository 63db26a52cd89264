/*
 * drift: the checked-in .py and .diff against a fresh regeneration, byte for byte
 * (what `patchgen --check` decides, with the unified diff in the finding). The gate
 * reads the checked-in files as patchgen does (gate.c's read_opt): the .py with
 * universal newlines, the .diff in its stripped form.
 *
 * Byte comparison needs the normalised output, so without ruff this check does not
 * run; the ruff-equivalence check's structural mode covers that case.
 */
#include <string.h>

#include "checks/checks.h"
#include "patchgen/difflib.h"

/* 1-based number of the first line where a and b differ. */
static unsigned first_diff_line(const char *a, size_t alen, const char *b, size_t blen)
{
    unsigned line = 1;
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i])
            return line;
        if (a[i] == '\n')
            line++;
    }
    return line;
}

static void drift_finding(findings *out, const check_input *in, const char *path, const char *have,
                          size_t have_len, const char *want, size_t want_len, const char *what)
{
    strbuf d = STRBUF_INIT, from = STRBUF_INIT, to = STRBUF_INIT;
    strbuf_addf(&from, "a/%s", path);
    strbuf_addf(&to, "b/%s (regenerated)", path);
    difflib_unified_diff(&d, have, have_len, want, want_len, from.buf, to.buf, 3);
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string(what));
    json_object_set_new(data, "diff", json_string(d.buf));
    finding *f = findings_add(out, "drift", SEV_ERROR, in->module, path,
                              first_diff_line(have, have_len, want, want_len), 1, data,
                              "%s differs from a fresh regeneration", path);
    finding_set_detail(f, d.buf);
    strbuf_free(&d);
    strbuf_free(&from);
    strbuf_free(&to);
}

static int begin_drift(const check_ctx *ctx, void **arg, strbuf *why)
{
    (void)arg;
    if (!ctx->ruff) {
        /* --no-ruff is a choice: ruff-equivalence compares structure instead */
        strbuf_adds(why, "--no-ruff: no byte comparison (ruff-equivalence compared structure)");
        return CHECK_NOT_CONFIGURED;
    }
    return CHECK_RAN;
}

static int one_drift(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    (void)ctx, (void)arg;
    if (!in->expected_py || !in->py_path)
        return 0; /* regeneration failed: reported by the pipeline */
    if (!in->checked_py) {
        findings_add(out, "drift", SEV_ERROR, in->module, in->py_path, 0, 0, NULL,
                     "generated file %s is missing (run pgci check --fix)", in->py_path);
    } else if (in->checked_py_len != in->expected_py_len ||
               memcmp(in->checked_py, in->expected_py, in->expected_py_len)) {
        drift_finding(out, in, in->py_path, in->checked_py, in->checked_py_len, in->expected_py,
                      in->expected_py_len, "py");
    }
    if (!in->diff_path || !in->expected_diff)
        return 0;
    if (!in->checked_diff) {
        findings_add(out, "drift", SEV_ERROR, in->module, in->diff_path, 0, 0, NULL,
                     "generated file %s is missing (run pgci check --fix)", in->diff_path);
    } else if (in->checked_diff_len != in->expected_diff_len ||
               memcmp(in->checked_diff, in->expected_diff, in->expected_diff_len)) {
        drift_finding(out, in, in->diff_path, in->checked_diff, in->checked_diff_len,
                      in->expected_diff, in->expected_diff_len, "diff");
    }
    return 0;
}

static const check_each_def drift_each = {.begin = begin_drift, .one = one_drift};

const check_def check_drift = {.id = "drift",
                               .summary = "checked-in .py and .diff against a fresh regeneration",
                               .each = &drift_each};
