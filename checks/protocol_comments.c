/*
 * protocol-comments: the comment style of patch configs.
 *
 *   # ================================================================
 *   # Patch: Qwen3VLModel.forward
 *   # 1. gather around the visual-embed masked_scatter
 *   # 2. precomputed image/video masks
 *   # ================================================================
 *   @config.override_method("Qwen3VLModel.forward", ...)
 *   def qwen3_vl_model_forward_patched(...):
 *       # --- Patch.1 ---
 *       ...
 *       # --- Patch.1 ---
 *
 * Every patch defined in a config that uses the convention has a header naming
 * its target; the inline markers come in opening/closing pairs, each number is
 * one of the header's items and each item is marked somewhere. A config that
 * uses neither headers nor markers is not held to them (comments.headers =
 * "auto"), so a workspace that never adopted the style gets no findings. The
 * module docstring carries the regeneration command for the config
 * (`patchgen <module>` by default).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "py/pystr.h"

typedef struct lines {
    const char **at; /* start of each line (1-based: at[1]) */
    size_t *len;
    size_t n;
} lines;

static void lines_split(lines *l, const char *src, size_t len)
{
    size_t cap = 64;
    l->at = pgci_malloc(cap * sizeof(*l->at));
    l->len = pgci_malloc(cap * sizeof(*l->len));
    l->n = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && src[j] != '\n')
            j++;
        if (l->n + 2 >= cap) {
            cap *= 2;
            l->at = pgci_realloc(l->at, cap * sizeof(*l->at));
            l->len = pgci_realloc(l->len, cap * sizeof(*l->len));
        }
        l->n++;
        l->at[l->n] = src + i;
        l->len[l->n] = j - i;
        i = j + 1;
    }
}

static void lines_free(lines *l)
{
    free(l->at);
    free(l->len);
}

static int line_starts(const lines *l, size_t k, const char *prefix)
{
    size_t n = strlen(prefix);
    return k >= 1 && k <= l->n && l->len[k] >= n && !memcmp(l->at[k], prefix, n);
}

/* "# --- Patch.12 ---" anywhere on the line (after indentation): the number, else -1 */
static long marker_number(const char *s, size_t n, const char *word)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i >= n || s[i] != '#')
        return -1;
    i++;
    while (i < n && s[i] == ' ')
        i++;
    if (n - i < 3 || memcmp(s + i, "---", 3))
        return -1;
    i += 3;
    while (i < n && s[i] == ' ')
        i++;
    size_t w = strlen(word);
    if (n - i < w + 1 || memcmp(s + i, word, w) || s[i + w] != '.')
        return -1;
    i += w + 1;
    if (i >= n || !isdigit((unsigned char)s[i]))
        return -1;
    long v = 0;
    while (i < n && isdigit((unsigned char)s[i]) && v < 100000)
        v = v * 10 + (s[i++] - '0');
    /* "# --- Patch.3 ---" or, opening with a title, "# --- Patch.3: what ---" */
    if (i < n && s[i] == ':') {
        while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\r'))
            n--;
        return n - i >= 4 && !memcmp(s + n - 3, "---", 3) ? v : -1;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (n - i < 3 || memcmp(s + i, "---", 3))
        return -1;
    return v;
}

/* "# 3. text" in a header block: 3, else -1 */
static long item_number(const char *s, size_t n)
{
    size_t i = 1;
    if (n < 2 || s[0] != '#')
        return -1;
    while (i < n && s[i] == ' ')
        i++;
    if (i >= n || !isdigit((unsigned char)s[i]))
        return -1;
    long v = 0;
    while (i < n && isdigit((unsigned char)s[i]) && v < 100000)
        v = v * 10 + (s[i++] - '0');
    return i < n && s[i] == '.' ? v : -1;
}

typedef struct hdr {
    size_t line; /* the "# Patch:" line, 0 when none */
    long nums[64];
    size_t num_lines[64];
    size_t n_nums;
} hdr;

/* The column-0 comment block directly above `start` (decorators included in the
 * object's span already). */
static void read_header(const lines *l, size_t start, const char *prefix, hdr *h)
{
    memset(h, 0, sizeof(*h));
    size_t top = start;
    while (top > 1 && l->len[top - 1] > 0 && l->at[top - 1][0] == '#')
        top--;
    for (size_t k = top; k < start; k++) {
        if (!h->line && line_starts(l, k, prefix)) {
            h->line = k;
            continue;
        }
        long v = h->line ? item_number(l->at[k], l->len[k]) : -1;
        if (v >= 0 && h->n_nums < 64) {
            h->nums[h->n_nums] = v;
            h->num_lines[h->n_nums++] = k;
        }
    }
}

static int uses_convention(const lines *l, const proto_settings *s)
{
    for (size_t k = 1; k <= l->n; k++)
        if (line_starts(l, k, s->header_prefix) ||
            marker_number(l->at[k], l->len[k], s->marker_word) >= 0)
            return 1;
    return 0;
}

/* 1 when the header's target (the text after the prefix up to a space or '(')
 * names `target`; one header may name several: "Model.{get_image_features,
 * get_video_features}" covers both methods. */
static int header_names_at(const lines *l, size_t line, const char *prefix, const char *target)
{
    const char *p = l->at[line] + strlen(prefix);
    const char *e = l->at[line] + l->len[line];
    while (p < e && *p == ' ')
        p++;
    size_t n = 0;
    int brace = 0; /* "M.{a, b}": spaces inside braces belong to the target */
    while (p + n < e && (brace || (p[n] != ' ' && p[n] != '('))) {
        brace += p[n] == '{';
        brace -= p[n] == '}' && brace;
        n++;
    }
    const char *lb = memchr(p, '{', n), *rb = lb ? memchr(lb, '}', (size_t)(p + n - lb)) : NULL;
    if (!lb || !rb)
        return strlen(target) == n && !memcmp(p, target, n);
    size_t pre = (size_t)(lb - p), post = (size_t)(p + n - rb - 1), tl = strlen(target);
    if (tl < pre + post || memcmp(target, p, pre) || memcmp(target + tl - post, rb + 1, post))
        return 0;
    const char *mid = target + pre;
    size_t ml = tl - pre - post;
    for (const char *a = lb + 1; a < rb;) {
        const char *c = memchr(a, ',', (size_t)(rb - a));
        const char *ae = c ? c : rb;
        while (a < ae && *a == ' ')
            a++;
        if ((size_t)(ae - a) == ml && !memcmp(a, mid, ml))
            return 1;
        a = ae + 1;
    }
    return 0;
}

static int header_names(const lines *l, const hdr *h, const char *prefix, const char *target)
{
    return header_names_at(l, h->line, prefix, target);
}

/* The patch's header: the comment block right above it, or else the nearest
 * header above that names this target among several (a shared header). */
static void find_header(const lines *l, const pg_object *o, const char *target, const char *prefix,
                        hdr *h)
{
    read_header(l, o->start_line, prefix, h);
    if (h->line)
        return;
    for (size_t k = o->start_line; k-- > 1;) {
        if (!line_starts(l, k, prefix))
            continue;
        if (!header_names_at(l, k, prefix, target))
            return;
        /* read it as if the patch sat right under its block */
        size_t end = k + 1;
        while (end <= l->n && l->len[end] > 0 && l->at[end][0] == '#')
            end++;
        read_header(l, end, prefix, h);
        return;
    }
}

static void check_object(const check_input *in, const proto_settings *s, const lines *l,
                         const pg_object *o, const char *target, int require, findings *out)
{
    hdr h;
    find_header(l, o, target, s->header_prefix, &h);
    if (!h.line && require) {
        proto_add(out, s, "comments.header", in->module, in->config_path, o->start_line,
                  "the patch for %s has no '%s %s' header with numbered items above it", target,
                  s->header_prefix, target);
    } else if (h.line && !header_names(l, &h, s->header_prefix, target)) {
        /* the header as written, and what would name the patch */
        int n = (int)l->len[h.line];
        while (n > 0 && (l->at[h.line][n - 1] == ' ' || l->at[h.line][n - 1] == '\r'))
            n--;
        proto_add(out, s, "comments.header", in->module, in->config_path, (unsigned)h.line,
                  "the header '%.*s%s' does not name the patch below it: write '%s %s'",
                  n > 80 ? 77 : n, l->at[h.line], n > 80 ? "..." : "", s->header_prefix, target);
    }
    /* markers inside the definition */
    long open_num[64];
    size_t open_line[64], n_open = 0;
    long used[256];
    size_t n_used = 0;
    for (size_t k = o->start_line; k <= o->end_line && k <= l->n; k++) {
        long v = marker_number(l->at[k], l->len[k], s->marker_word);
        if (v < 0)
            continue;
        if (n_used < 256)
            used[n_used++] = v;
        size_t j = 0;
        while (j < n_open && open_num[j] != v)
            j++;
        if (j < n_open) { /* closes */
            open_num[j] = open_num[n_open - 1];
            open_line[j] = open_line[n_open - 1];
            n_open--;
        } else if (n_open < 64) {
            open_num[n_open] = v;
            open_line[n_open++] = k;
            int reported = 0; /* one finding per number, at its first opening */
            for (size_t q = 0; q + 1 < n_used; q++)
                reported |= used[q] == v;
            if (h.line && h.n_nums && !reported) {
                int listed = 0;
                for (size_t q = 0; q < h.n_nums; q++)
                    listed |= h.nums[q] == v;
                if (!listed)
                    proto_add(out, s, "comments.markers", in->module, in->config_path, (unsigned)k,
                              "marker %s.%ld is not an item of the '%s %s' header", s->marker_word,
                              v, s->header_prefix, target);
            }
        }
    }
    for (size_t j = 0; j < n_open; j++)
        proto_add(out, s, "comments.markers", in->module, in->config_path, (unsigned)open_line[j],
                  "marker %s.%ld opens here and is never closed", s->marker_word, open_num[j]);
    if (n_used == 0)
        return; /* items without markers: the header alone documents the patch */
    if (h.line && h.n_nums == 0) {
        proto_add(out, s, "comments.markers", in->module, in->config_path, (unsigned)h.line,
                  "the body has %s.N markers but the '%s %s' header lists no numbered items",
                  s->marker_word, s->header_prefix, target);
        return;
    }
    for (size_t q = 0; q < h.n_nums; q++) {
        int hit = 0;
        for (size_t j = 0; j < n_used; j++)
            hit |= used[j] == h.nums[q];
        if (!hit)
            proto_add(out, s, "comments.markers", in->module, in->config_path,
                      (unsigned)h.num_lines[q],
                      "header item %ld of %s has no %s.%ld marker in the patch body", h.nums[q],
                      target, s->marker_word, h.nums[q]);
    }
}

/* The module docstring of a config: its text and line (0 when none); the
 * evaluator's when the config evaluated (it parsed the file already). */
static unsigned docstring(const check_input *in, const char *src, size_t len, strbuf *out)
{
    if (in->cfg) {
        if (in->cfg->docstring)
            strbuf_adds(out, in->cfg->docstring);
        return in->cfg->docstring_line;
    }
    py_tree t;
    if (py_parse(&t, src, len, in->config_path) < 0) {
        pgci_error_clear();
        return 0;
    }
    unsigned line = pystr_module_docstring(out, &t);
    py_tree_free(&t);
    return line;
}

static void check_regen_command(const check_input *in, const proto_settings *s, const char *src,
                                size_t len, findings *out)
{
    strbuf doc = STRBUF_INIT;
    unsigned line = docstring(in, src, len, &doc);
    char *dir = fs_dirname(in->config_path);
    char *m = proto_subst(s->regen_command, "module", in->module);
    char *want = proto_subst(m, "dir", dir);
    free(m);
    free(dir);
    if (!line) {
        proto_add(out, s, "comments.regen-command", in->module, in->config_path, 1,
                  "no module docstring with the regeneration command (%s)", want);
    } else if (!strstr(doc.buf ? doc.buf : "", want)) {
        proto_add(out, s, "comments.regen-command", in->module, in->config_path, line,
                  "the docstring does not carry the regeneration command '%s'", want);
    }
    free(want);
    strbuf_free(&doc);
}

static int run_comments(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    (void)why;
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        const check_input *in = &ctx->inputs[i];
        if (!in->config_path)
            continue;
        strbuf src = STRBUF_INIT;
        if (proto_read(ctx->ws, in->config_path, &src) < 0) {
            strbuf_free(&src);
            continue;
        }
        check_regen_command(in, s, src.buf, src.len, out);
        lines l;
        lines_split(&l, src.buf, src.len);
        int on = s->headers == PROTO_MODE_ON ||
                 (s->headers == PROTO_MODE_AUTO && uses_convention(&l, s));
        const pg_config *c = in->cfg;
        /* the patches defined in this file (one object may serve several patches) */
        VEC(size_t) own = VEC_INIT;
        size_t with_header = 0;
        for (size_t k = 0; on && c && k < c->patches.len; k++) {
            const pg_object *o = c->patches.items[k].replacement;
            if (!o || !o->file || strcmp(o->file, c->file))
                continue; /* defined in another config: checked there */
            int seen = 0;
            for (size_t j = 0; j < own.len; j++)
                seen |= c->patches.items[own.items[j]].replacement == o;
            if (seen)
                continue;
            VEC_PUSH(&own, k);
            hdr h;
            find_header(&l, o, c->patches.items[k].target, s->header_prefix, &h);
            with_header += h.line != 0;
        }
        /* auto: a header on every patch only where most patches have one; elsewhere the
         * headers and markers that are there must still be consistent */
        int require = s->headers == PROTO_MODE_ON || 2 * with_header > own.len;
        for (size_t j = 0; j < own.len; j++) {
            const pg_patch *pt = &c->patches.items[own.items[j]];
            check_object(in, s, &l, pt->replacement, pt->target, require, out);
        }
        VEC_FREE(&own);
        lines_free(&l);
        strbuf_free(&src);
    }
    return CHECK_RAN;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_comments);
}

const check_def check_protocol_comments = {
    .id = "protocol-comments",
    .summary = "patch headers, Patch.N markers and the regeneration command in configs",
    .run = run};
