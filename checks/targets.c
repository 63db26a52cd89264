/*
 * targets: what patchgen does without a word. A patch whose target class, method
 * or function is not upstream is dropped silently (error); a method the config
 * adds (info); two patches on one target, the earlier one lost (warning);
 * modify_init patches, listed in the header and never applied (warning); patch
 * decorators on a config object not named `config`, which patchgen does not strip
 * (warning); upstream top-level statements patchgen leaves out (info).
 *
 * The codegen records these as notes while generating (it is the one place that
 * knows); this check turns them into findings on the config file at the line
 * where the patch was registered.
 */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "cache/result_cache.h"
#include "checks/checks.h"
#include "checks/near_miss.h"
#include "core/error.h"

static const pg_patch *patch_of(const check_input *in, long i)
{
    if (!in->cfg || i < 0 || (size_t)i >= in->cfg->patches.len)
        return NULL;
    return &in->cfg->patches.items[i];
}

/* "if_statement" -> "an `if` block": statement kinds in words for titles. */
static const char *statement_words(const char *type)
{
    static const char *const names[][2] = {
        {"expression_statement", "an expression statement"},
        {"if_statement", "an `if` block"},
        {"try_statement", "a `try` block"},
        {"with_statement", "a `with` block"},
        {"for_statement", "a `for` loop"},
        {"while_statement", "a `while` loop"},
        {"annotated_assignment", "an annotated assignment"},
        {"assert_statement", "an `assert`"},
        {"delete_statement", "a `del`"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(type, names[i][0]))
            return names[i][1];
    return type;
}

/* near: the upstream name the target is a near miss of ("did you mean"), or NULL */
static void note_finding(findings *out, const check_input *in, const cg_note *n, const char *near)
{
    const pg_patch *p = patch_of(in, n->patch);
    unsigned line, col;
    const char *path = pg_patch_site(p, in->config_path, &line, &col);
    const char *kind = cg_note_kind_name(n->kind);
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string(kind));
    json_object_set_new(data, "target", json_string(n->target ? n->target : ""));
    if (n->line)
        json_object_set_new(data, "upstream_line", json_integer(n->line));
    const char *src = in->source_module ? in->source_module : "upstream";
    finding *f = NULL;
    switch (n->kind) {
    case CG_NOTE_MISSING_TARGET:
        json_object_set_new(data, "kind", json_string("missing-target"));
        if (near)
            json_object_set_new(data, "did_you_mean", json_string(near));
        f = findings_add(out, "targets", SEV_ERROR, in->module, path, line, col, data,
                         "patch target `%s` is not in %s: patchgen drops the patch without a "
                         "word%s%s%s",
                         n->target, src, near ? "; did you mean `" : "", near ? near : "",
                         near ? "`?" : "");
        break;
    case CG_NOTE_METHOD_ADDED:
        if (near) {
            /* a typo, most likely: the method it meant stays unpatched */
            json_object_set_new(data, "kind", json_string("near-miss"));
            json_object_set_new(data, "did_you_mean", json_string(near));
            f = findings_add(out, "targets", SEV_WARNING, in->module, path, line, col, data,
                             "`%s` is not defined upstream: did you mean `%s`? (the config adds "
                             "it as a new method, and `%s` stays unpatched)",
                             n->target, near, near);
            break;
        }
        f = findings_add(out, "targets", SEV_INFO, in->module, path, line, col, data,
                         "`%s` is not defined upstream; the config adds it", n->target);
        break;
    case CG_NOTE_SUPERSEDED:
        f = findings_add(out, "targets", SEV_WARNING, in->module, path, line, col, data,
                         "two patches on `%s`: a later registration replaces this one", n->target);
        break;
    case CG_NOTE_SHADOWED:
        f = findings_add(out, "targets", SEV_WARNING, in->module, path, line, col, data,
                         "override of `%s` never applies: its class is replaced whole", n->target);
        break;
    case CG_NOTE_UNAPPLIED_INIT:
        f = findings_add(out, "targets", SEV_WARNING, in->module, path, line, col, data,
                         "modify_init on `%s` is listed in the header but never applied by "
                         "patchgen",
                         n->target);
        break;
    case CG_NOTE_UNAPPLIED:
        f = findings_add(out, "targets", SEV_WARNING, in->module, path, line, col, data,
                         "patch on `%s` is listed but not applied", n->target);
        break;
    case CG_NOTE_DROPPED_STATEMENT:
        f = findings_add(out, "targets", SEV_INFO, in->module, in->config_path, 0, 0, data,
                         "%s at %s line %u is left out of the generated file (patchgen "
                         "keeps only classes, functions, assignments and the docstring)",
                         statement_words(n->target), src, n->line);
        break;
    case CG_NOTE_EXCLUDED_MISSING:
        f = findings_add(out, "targets", SEV_WARNING, in->module, in->config_path, 0, 0, data,
                         "exclude_from_output names `%s`, which is not defined in %s", n->target,
                         src);
        break;
    }
    if (f && n->detail && *n->detail)
        finding_set_detail(f, n->detail);
}

static const char *const patch_decorators[] = {"replace_class",
                                               "override_method",
                                               "replace_function",
                                               "modify_init",
                                               "add_helper",
                                               "add_helper_after",
                                               NULL};

/* Where a line of a text starts (its end when the text is shorter; *line then
 * says which line that is), seeking from where the last seek in the same text
 * ended when that is not past it: a config's replacements come in file order, and
 * each seek from the start of the file made their scan quadratic. */
typedef struct line_seek {
    const char *text, *at;
    unsigned line;
} line_seek;

static const char *seek_line(line_seek *s, const char *text, unsigned *line)
{
    if (s->text != text || s->line > *line) {
        s->text = s->at = text;
        s->line = 1;
    }
    while (*s->at && s->line < *line) {
        const char *nl = strchr(s->at, '\n');
        s->at = nl ? nl + 1 : s->at + strlen(s->at);
        s->line += nl != NULL;
    }
    *line = s->line;
    return s->at;
}

/* Where an object's lines are: its file, workspace-relative (the config's file
 * when no file is recorded); NULL when its file is outside the workspace. */
static const char *object_path(const pg_object *o, const check_input *in)
{
    if (!o->file)
        return in->config_path;
    return pg_workspace_relative(o->file, in->cfg->file, in->config_path);
}

/* A patch decorator written on another name (`@gpu_config.override_method(...)`)
 * registers the patch, but patchgen strips only `@config.` lines from the
 * replacement's source, so the decorator lands in the generated file. The
 * finding is at the decorator's line in the file that holds it. */
static void foreign_decorators(findings *out, const check_input *in)
{
    const pg_config *cfg = in->cfg;
    line_seek seek = {0};
    for (size_t i = 0; cfg && i < cfg->patches.len; i++) {
        const pg_object *o = cfg->patches.items[i].replacement;
        const char *path = o ? object_path(o, in) : NULL;
        if (!o || !o->text || (o->file && !path))
            continue;
        unsigned line = o->start_line;
        const char *p = seek_line(&seek, o->text, &line);
        for (; *p && line <= o->end_line; line++) {
            const char *q = p;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '@') {
                const char *name = q + 1, *dot = name;
                while (isalnum((unsigned char)*dot) || *dot == '_')
                    dot++;
                if (*dot == '.' && ((size_t)(dot - name) != 6 || strncmp(name, "config", 6))) {
                    for (size_t k = 0; patch_decorators[k]; k++) {
                        size_t n = strlen(patch_decorators[k]);
                        if (!strncmp(dot + 1, patch_decorators[k], n) &&
                            !isalnum((unsigned char)dot[1 + n]) && dot[1 + n] != '_') {
                            findings_add(out, "targets", SEV_WARNING, in->module, path, line,
                                         (unsigned)(q - p) + 1, NULL,
                                         "patch decorator `@%.*s.%s` is on a config not named "
                                         "`config`: patchgen will not strip it from the output",
                                         (int)(dot - name), name, patch_decorators[k]);
                            break;
                        }
                    }
                }
            }
            while (*p && *p != '\n')
                p++;
            if (*p)
                p++;
        }
    }
}

/* 1 when note n can carry a "did you mean" (near_miss.h). */
static int can_suggest(const cg_note *n)
{
    return n->target && (n->kind == CG_NOTE_MISSING_TARGET || n->kind == CG_NOTE_METHOD_ADDED);
}

/* The indexes a run's suggestions read: one per distinct upstream text, made only
 * when a config's suggestions are not in the result cache, from the run's parse
 * set (a cold run's regeneration parsed the module already). Suggestions read only
 * names: the indexes are names-only ones (index_module_build_names), a fraction of
 * a full index's cost, with the same definitions and members in the same order. */
typedef struct upstream_index {
    const char *src;
    size_t len;
    index_module *m; /* NULL: not indexable (no suggestions then) */
} upstream_index;
/* The configs are checked on ctx->jobs threads: the indexes are shared under a
 * lock, built outside it (two threads may build one; the first kept wins). */
typedef struct upstream_indexes {
    pthread_mutex_t lock;
    VEC(upstream_index) items;
} upstream_indexes;

static index_module *index_seen(upstream_indexes *seen, const check_input *in, int *found)
{
    *found = 0;
    for (size_t i = 0; i < seen->items.len; i++) {
        const upstream_index *u = &seen->items.items[i];
        if (u->len == in->upstream_len &&
            (u->src == in->upstream || !memcmp(u->src, in->upstream, in->upstream_len))) {
            *found = 1;
            return u->m;
        }
    }
    return NULL;
}

static index_module *index_for(upstream_indexes *seen, const check_ctx *ctx, const check_input *in)
{
    int found;
    pthread_mutex_lock(&seen->lock);
    index_module *m = index_seen(seen, in, &found);
    pthread_mutex_unlock(&seen->lock);
    if (found)
        return m;
    upstream_index u = {in->upstream, in->upstream_len, NULL};
    if (index_module_names_from_parse_set(&u.m, ctx->parses, in->upstream, in->upstream_len,
                                          in->source_module, in->source_module) < 0) {
        pgci_error_clear(); /* no suggestions then; the regeneration read it */
        u.m = NULL;
    }
    pthread_mutex_lock(&seen->lock);
    m = index_seen(seen, in, &found);
    if (!found)
        VEC_PUSH(&seen->items, u);
    pthread_mutex_unlock(&seen->lock);
    if (!found)
        return u.m;
    index_module_free(u.m);
    return m;
}

/* The key of a config's suggestions: the upstream text and each note's target. */
static void suggestions_key(const check_input *in, uint8_t key[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    rcache_key_begin(&c, "near-miss");
    rcache_key_add(&c, in->upstream, in->upstream_len);
    rcache_key_adds(&c, in->source_module);
    rcache_key_addu(&c, in->n_notes);
    for (size_t k = 0; k < in->n_notes; k++) {
        rcache_key_addu(&c, (unsigned long long)can_suggest(&in->notes[k]));
        rcache_key_adds(&c, can_suggest(&in->notes[k]) ? in->notes[k].target : NULL);
    }
    sha256_final(&c, key);
}

/* Reads a cached payload (one line per note, empty: no suggestion) into near. */
static int suggestions_decode(const strbuf *hit, size_t n, strvec *near)
{
    const char *p = hit->buf, *end = hit->buf + hit->len;
    for (size_t k = 0; k < n; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return -1;
        strvec_pushn(near, p, (size_t)(nl - p));
        p = nl + 1;
    }
    return p == end ? 0 : -1;
}

/* Pushes the "did you mean" of each note of in ("" where none; all "" when m is
 * NULL) onto near; 1 when there is one. */
static int suggest_all(const check_input *in, const index_module *m, strvec *near)
{
    int found = 0;
    for (size_t k = 0; k < in->n_notes; k++) {
        const char *s =
            m && can_suggest(&in->notes[k]) ? near_miss_suggest(m, in->notes[k].target) : NULL;
        strvec_push(near, s ? s : "");
        found |= s != NULL;
    }
    return found;
}

/* 0 when a full index refuses the upstream module (index_module_build: nested too
 * deeply), which a names-only one may not: no suggestion from it then, as before
 * names-only indexes. A walk of the whole tree, made only when there is a
 * suggestion to withhold. */
static int indexable(const check_ctx *ctx, const check_input *in)
{
    int deep =
        index_source_too_deep(ctx->parses, in->upstream, in->upstream_len, in->source_module);
    if (deep < 0)
        pgci_error_clear();
    return deep == 0;
}

/* The "did you mean" of each note of a config ("" where none), from the result
 * cache when an earlier run computed them for the same upstream text and targets
 * (a warm run parses no upstream module for them). */
static void suggestions(const check_ctx *ctx, const check_input *in, upstream_indexes *seen,
                        strvec *near)
{
    int any = 0;
    for (size_t k = 0; k < in->n_notes; k++)
        any |= can_suggest(&in->notes[k]);
    uint8_t key[SHA256_DIGEST_LEN];
    strbuf hit = STRBUF_INIT;
    if (any && in->upstream && ctx->cache) {
        suggestions_key(in, key);
        if (rcache_get(ctx->cache, "near-miss", key, &hit) &&
            suggestions_decode(&hit, in->n_notes, near) == 0) {
            strbuf_free(&hit);
            return;
        }
        strvec_free(near);
        strbuf_reset(&hit);
    }
    index_module *m = any && in->upstream ? index_for(seen, ctx, in) : NULL;
    if (suggest_all(in, m, near) && !indexable(ctx, in)) {
        m = NULL;
        strvec_free(near);
        suggest_all(in, NULL, near);
    }
    for (size_t k = 0; k < in->n_notes; k++)
        strbuf_addf(&hit, "%s\n", near->items[k]);
    if (any && in->upstream && m && ctx->cache)
        rcache_put(ctx->cache, "near-miss", key, hit.buf, hit.len);
    strbuf_free(&hit);
}

/* One config's findings. arg: the run's upstream_indexes. */
static int one_targets(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    strvec near = STRVEC_INIT;
    suggestions(ctx, in, arg, &near);
    for (size_t k = 0; k < in->n_notes; k++)
        note_finding(out, in, &in->notes[k], *near.items[k] ? near.items[k] : NULL);
    strvec_free(&near);
    foreign_decorators(out, in);
    return 0;
}

static int begin_targets(const check_ctx *ctx, void **arg, strbuf *why)
{
    (void)ctx, (void)why;
    upstream_indexes *seen = pgci_calloc(1, sizeof(*seen));
    pthread_mutex_init(&seen->lock, NULL);
    *arg = seen;
    return CHECK_RAN;
}

static int end_targets(const check_ctx *ctx, void *arg, strbuf *why)
{
    (void)ctx, (void)why;
    upstream_indexes *seen = arg;
    for (size_t i = 0; i < seen->items.len; i++)
        if (seen->items.items[i].m)
            index_module_free(seen->items.items[i].m);
    VEC_FREE(&seen->items);
    pthread_mutex_destroy(&seen->lock);
    free(seen);
    return CHECK_RAN;
}

static const check_each_def targets_each = {
    .begin = begin_targets, .one = one_targets, .end = end_targets};

const check_def check_targets = {.id = "targets",
                                 .summary =
                                     "patch targets missing upstream, duplicated or never applied",
                                 .each = &targets_each};
