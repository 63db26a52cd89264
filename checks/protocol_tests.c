/*
 * protocol-tests: the workspace's tests enumerate every model.
 *
 * Where a workspace keeps per-model test inputs, a new model must be added to
 * each: a toy config directory (tests.toy-config), the registry test table
 * (tests.registry) and the logits-equality test table (tests.logits). Which
 * files and which tables is the workspace's own convention, so every part is off
 * until [tool.pgci.protocol.tests] names it (toy_config_dir, registry_test,
 * logits_test; a *_marker picks the table inside the file: from the line holding
 * the marker to the first line that closes it at column 0).
 *
 * Model names are matched loosely, as test tables spell them: "qwen2_vl" is found
 * as the token qwen2_vl, or as the name of its toy directory (qwen2vl_toy), with
 * underscores and case ignored for the directory.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"

static char *norm(const char *s)
{
    strbuf o = STRBUF_INIT;
    for (; *s; s++)
        if (*s != '_' && *s != '-')
            strbuf_addc(&o, (char)tolower((unsigned char)*s));
    return strbuf_detach(&o, NULL);
}

/* The toy directory for a model, matched underscore- and case-insensitively;
 * malloc'ed name or NULL. */
static char *toy_dir(const workspace *ws, const proto_settings *s, const char *model)
{
    strbuf dir = STRBUF_INIT;
    if (fs_join_under(&dir, ws->root, s->toy_config_dir, "toy config directory") < 0) {
        pgci_error_clear();
        strbuf_free(&dir);
        return NULL;
    }
    char *want = proto_subst(s->toy_config_name, "model", model);
    char *nw = norm(want);
    strvec names = STRVEC_INIT;
    char *hit = NULL;
    if (fs_list_dir(&names, dir.buf) == 0) {
        for (size_t i = 0; i < names.len && !hit; i++) {
            char *nn = norm(names.items[i]);
            strbuf p = STRBUF_INIT;
            fs_join(&p, dir.buf, names.items[i]);
            if (!strcmp(nn, nw) && fs_is_dir(p.buf))
                hit = pgci_strdup(names.items[i]);
            strbuf_free(&p);
            free(nn);
        }
    }
    pgci_error_clear();
    strvec_free(&names);
    free(nw);
    free(want);
    strbuf_free(&dir);
    return hit;
}

static int is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int has_token(const char *text, size_t len, const char *tok)
{
    size_t n = strlen(tok);
    for (size_t i = 0; n && i + n <= len; i++)
        if (!memcmp(text + i, tok, n) && (i == 0 || !is_word(text[i - 1])) &&
            (i + n == len || !is_word(text[i + n])))
            return 1;
    return 0;
}

/* The table: [start, end) of the marker's block, its 1-based line. */
static int table(const char *src, size_t len, const char *marker, size_t *start, size_t *end,
                 unsigned *line)
{
    *start = 0;
    *end = len;
    *line = 1;
    if (!marker)
        return 0;
    const char *m = strstr(src, marker);
    if (!m)
        return -1;
    size_t at = (size_t)(m - src);
    while (at > 0 && src[at - 1] != '\n')
        at--;
    for (size_t i = 0; i < at; i++)
        *line += src[i] == '\n';
    *start = at;
    const char *p = strchr(src + at, '\n');
    while (p && (size_t)(p - src) + 1 < len) {
        char c = p[1];
        if (c == ']' || c == ')' || c == '}') {
            *end = (size_t)(p - src) + 2;
            return 0;
        }
        p = strchr(p + 1, '\n');
    }
    return 0;
}

static void check_table(const check_ctx *ctx, const proto_settings *s, const proto_packages *ps,
                        const char *rule, const char *file, const char *marker, const char *what,
                        findings *out)
{
    strbuf src = STRBUF_INIT;
    if (proto_read(ctx->ws, file, &src) < 0) {
        proto_add(out, s, rule, NULL, file, 0, "the %s file %s does not exist", what, file);
        strbuf_free(&src);
        return;
    }
    size_t a, b;
    unsigned line;
    if (table(src.buf, src.len, marker, &a, &b, &line) < 0) {
        proto_add(out, s, rule, NULL, file, 0, "no '%s' table in %s", marker, file);
        strbuf_free(&src);
        return;
    }
    for (size_t i = 0; i < ps->len; i++) {
        const proto_package *p = &ps->items[i];
        char *toy = s->toy_config_dir ? toy_dir(ctx->ws, s, p->model) : NULL;
        int found =
            has_token(src.buf + a, b - a, p->model) || (toy && has_token(src.buf + a, b - a, toy));
        if (!found)
            proto_add(out, s, rule, p->inputs.items[0]->module, file, line,
                      "%s is not in the %s%s%s%s", p->model, what, marker ? " (" : "",
                      marker ? marker : "", marker ? ")" : "");
        free(toy);
    }
    strbuf_free(&src);
}

static int run_tests(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    (void)why;
    proto_packages ps;
    proto_packages_build(&ps, ctx, s);
    if (s->toy_config_dir) {
        for (size_t i = 0; i < ps.len; i++) {
            char *toy = toy_dir(ctx->ws, s, ps.items[i].model);
            if (!toy) {
                char *want = proto_subst(s->toy_config_name, "model", ps.items[i].model);
                proto_add(out, s, "tests.toy-config", ps.items[i].inputs.items[0]->module,
                          s->toy_config_dir, 0, "no toy config directory %s/%s for %s",
                          s->toy_config_dir, want, ps.items[i].model);
                free(want);
            }
            free(toy);
        }
    }
    if (s->registry_test)
        check_table(ctx, s, &ps, "tests.registry", s->registry_test, s->registry_marker,
                    "registry test table", out);
    if (s->logits_test)
        check_table(ctx, s, &ps, "tests.logits", s->logits_test, s->logits_marker,
                    "logits-equality test table", out);
    proto_packages_free(&ps);
    return CHECK_RAN;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_tests);
}

const check_def check_protocol_tests = {
    .id = "protocol-tests",
    .summary = "the toy config directory and the registry and logits test tables list every model",
    .run = run};
