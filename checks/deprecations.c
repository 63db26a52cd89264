/*
 * deprecations: upstream code the patches override or call that announces its
 * own removal. Read from tag B's source: the target's decorators
 * (`@deprecate_kwarg(..., version="1.2.0")`) and body (FutureWarning,
 * DeprecationWarning, "will be removed in v1.2"), and the same for every upstream
 * function or class a patch body calls by name, and every method it calls through
 * `self`/`cls` (resolved on the patched class and its bases).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/contracts.h"
#include "checks/deprecate_kwarg.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/version.h"
#include "core/vec.h"
#include "py/py.h"

char *contracts_removal_version(const char *text, size_t len)
{
    static const char *const keys[] = {"removed in", "removal in", "version=\"", "version='", NULL};
    for (size_t k = 0; keys[k]; k++) {
        size_t kl = strlen(keys[k]);
        for (size_t i = 0; i + kl <= len; i++) {
            if (strncasecmp(text + i, keys[k], kl))
                continue;
            size_t j = i + kl;
            while (j < len && (text[j] == ' ' || text[j] == 'v' || text[j] == 'V'))
                j++;
            size_t s = j;
            while (j < len && (isdigit((unsigned char)text[j]) || text[j] == '.'))
                j++;
            /* "5.x" / "6.*": a whole series; kept as written, compared as 5 */
            if (j >= s + 2 && text[j - 1] == '.' && isdigit((unsigned char)text[j - 2]) &&
                j < len && (text[j] == 'x' || text[j] == '*') &&
                (j + 1 == len || !isalnum((unsigned char)text[j + 1])))
                j++;
            while (j > s && text[j - 1] == '.')
                j--;
            if (j > s && isdigit((unsigned char)text[s]))
                return pgci_strndup(text + s, j - s);
        }
    }
    return NULL;
}

/* The first "deprecated" in [p, end) on a line that names `name` before it. */
static const char *deprecated_naming(const char *p, const char *end, const char *name)
{
    size_t nl = strlen(name);
    for (const char *dep; p < end && (dep = memmem(p, (size_t)(end - p), "deprecated", 10));
         p = dep + 10) {
        const char *bol = dep;
        while (bol > p && bol[-1] != '\n')
            bol--;
        const char *at = nl ? memmem(bol, (size_t)(dep - bol), name, nl) : NULL;
        if (at && (at == bol || (!isalnum((unsigned char)at[-1]) && at[-1] != '_')) &&
            !isalnum((unsigned char)at[nl]) && at[nl] != '_')
            return dep;
    }
    return NULL;
}

char *contracts_deprecation_advice(const char *text, size_t len, const char *name)
{
    const char *end = text + len;
    const char *dep = len ? deprecated_naming(text, end, name) : NULL;
    if (!dep)
        return NULL;
    /* the string the notice is in ends at its line's end, or at a quote that
     * follows the sentence */
    const char *eol = memchr(dep, '\n', (size_t)(end - dep));
    if (!eol)
        eol = end;
    static const char *const starts[] = {"Please use `", "Use `", "use `", NULL};
    const char *from = NULL;
    for (size_t k = 0; starts[k] && !from; k++)
        from = memmem(dep, (size_t)(eol - dep), starts[k], strlen(starts[k]));
    if (!from)
        return NULL;
    const char *to = from;
    while (to < eol && *to != '"' && *to != '\'' && *to)
        to++;
    while (to > from && to[-1] == ' ')
        to--;
    return to - from > 6 ? pgci_strndup(from, (size_t)(to - from)) : NULL;
}

void contracts_note_advice(strbuf *title, json_t *data, const survey_pair *p, const index_def *d)
{
    if (!d || !p->src_a || d->end_byte > p->src_a_len || d->start_byte >= d->end_byte)
        return;
    char *advice = contracts_deprecation_advice(p->src_a + d->start_byte,
                                                d->end_byte - d->start_byte, d->name);
    if (!advice)
        return;
    strbuf_addf(title, "; upstream deprecated it at %s: \"%s\"", p->tag_a, advice);
    json_object_set_new(data, "advice", json_string(advice));
    free(advice);
}

static int mentions_deprecation(const char *t, size_t n)
{
    static const char *const words[] = {"FutureWarning",   "DeprecationWarning", "deprecate_kwarg",
                                        "will be removed", "is deprecated",      NULL};
    for (size_t k = 0; words[k]; k++)
        if (n && memmem(t, n, words[k], strlen(words[k])))
            return 1;
    return 0;
}

/* t[0..n) without its `@...deprecate_kwarg(...)` decorator lines. */
static void without_kwarg_shims(strbuf *out, const char *t, size_t n)
{
    const char *end = t + n;
    for (const char *l = t; l < end;) {
        const char *e = memchr(l, '\n', (size_t)(end - l));
        size_t len = e ? (size_t)(e - l) + 1 : (size_t)(end - l);
        const char *q = l;
        while (q < l + len && (*q == ' ' || *q == '\t'))
            q++;
        int shim = *q == '@' && memmem(q, len - (size_t)(q - l), "deprecate_kwarg(", 16);
        if (!shim)
            strbuf_add(out, l, len);
        l += len;
    }
}

/* The shim's argument is a parameter of the patch's own target at A that B no
 * longer has: the signature check reports it, renamed (param-renamed, to the
 * parameter the shim names in its place) or removed (param-removed), with the shim
 * and its removal version. One fact, one finding. */
static int reported_by_signatures(const survey_pair *p, const pg_patch *patch, const index_def *fn,
                                  const deprecated_kwarg *k)
{
    const index_def *a = patch && p->a && !strcmp(patch->target, fn->qualname)
                             ? index_find(p->a, fn->qualname)
                             : NULL;
    return a && a->kind == INDEX_FUNCTION && index_param_find(a, k->old_name) &&
           !index_param_find(fn, k->old_name);
}

/* "removal in 5.40", or, for a release the tag already is past, "removal announced
 * for 5.11, overdue at v5.12.1" (upstream's message was not updated: the next
 * release may drop it). */
static const char *removal_phrase(const char *ver, const char *tag_b, char *buf, size_t n)
{
    if (version_cmp(ver, tag_b) < 0)
        snprintf(buf, n, "removal announced for %s, overdue at %s", ver, tag_b);
    else
        snprintf(buf, n, "removal in %s", ver);
    return buf;
}

/* One finding per argument fn deprecates through @deprecate_kwarg. */
static void report_kwargs(findings *out, const survey_pair *p, const pg_patch *patch,
                          const index_def *fn)
{
    for (size_t i = 0; fn && i < fn->n_decorators; i++) {
        deprecated_kwarg k;
        if (!deprecated_kwarg_parse(&k, fn->decorators[i]))
            continue;
        if (reported_by_signatures(p, patch, fn, &k)) {
            deprecated_kwarg_free(&k);
            continue;
        }
        const char *v = deprecated_kwarg_version(&k);
        severity sev = v && version_cmp(v, p->tag_b) <= 0 ? SEV_WARNING : SEV_INFO;
        json_t *data = json_object();
        json_object_set_new(data, "kind", json_string("kwarg-deprecated"));
        json_object_set_new(data, "target", json_string(fn->qualname));
        json_object_set_new(data, "module", json_string(p->cfg->source_module));
        json_object_set_new(data, "parameter", json_string(k.old_name));
        json_object_set_new(data, "new_parameter",
                            k.new_name ? json_string(k.new_name) : json_null());
        json_object_set_new(data, "removal_version", v ? json_string(v) : json_null());
        strbuf t = STRBUF_INIT;
        char when[96];
        strbuf_addf(&t, "`%s`: argument `%s` is deprecated upstream at %s", fn->qualname,
                    k.old_name, p->tag_b);
        if (k.new_name)
            strbuf_addf(&t, " in favour of `%s`", k.new_name);
        if (v)
            strbuf_addf(&t, " (%s)", removal_phrase(v, p->tag_b, when, sizeof(when)));
        unsigned line, col;
        const char *path = pg_patch_site(patch, p->config_path, &line, &col);
        findings_add(out, "deprecations", sev, p->config, path, line, col, data, "%s", t.buf);
        strbuf_free(&t);
        deprecated_kwarg_free(&k);
    }
}

#define OVERRIDES_A_METHOD_OF "a patch overrides a method of"

static void report(findings *out, const survey_pair *p, const pg_patch *patch, const index_def *d,
                   const char *how, strvec *seen)
{
    if (!p->src_b || d->end_byte > p->src_b_len || d->start_byte >= d->end_byte)
        return;
    const char *t = p->src_b + d->start_byte;
    size_t n = d->end_byte - d->start_byte;
    /* a class counts through its decorators, class body head and __init__, not
     * through every method (those are targets of their own) */
    if (d->kind == INDEX_CLASS) {
        const index_def *init = index_member(d, "__init__");
        if (init && init->end_byte <= p->src_b_len)
            n = init->end_byte - d->start_byte;
        else if (d->n_members)
            n = d->members[0]->start_byte - d->start_byte;
    }
    if (strvec_find(seen, d->qualname) >= 0)
        return;
    strvec_push(seen, d->qualname);
    report_kwargs(out, p, patch, d);
    /* the arguments its __init__ deprecates matter to a patch that builds the class
     * or stands in for it, not to one that overrides another of its methods (5.16.1
     * -> 5.18.0: `DeepseekV4RotaryEmbedding.__init__`'s `device`, reaching its 5.18
     * removal, was a warning on the DeepSeek-V4 configs' override of `forward`) */
    if (d->kind == INDEX_CLASS && strcmp(how, OVERRIDES_A_METHOD_OF))
        report_kwargs(out, p, patch, index_member(d, "__init__"));
    /* @deprecate_kwarg lines deprecate an argument (above), not the definition */
    strbuf body = STRBUF_INIT;
    without_kwarg_shims(&body, t, n);
    if (!mentions_deprecation(body.buf, body.len)) {
        strbuf_free(&body);
        return;
    }
    char *ver = contracts_removal_version(body.buf, body.len);
    char *advice = contracts_deprecation_advice(body.buf, body.len, d->name);
    strbuf_free(&body);
    severity sev = SEV_INFO;
    if (ver && version_cmp(ver, p->tag_b) <= 0)
        sev = SEV_WARNING;
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string("deprecation"));
    json_object_set_new(data, "target", json_string(d->qualname));
    json_object_set_new(data, "module", json_string(p->cfg->source_module));
    json_object_set_new(data, "removal_version", ver ? json_string(ver) : json_null());
    if (advice)
        json_object_set_new(data, "advice", json_string(advice));
    char when[96];
    unsigned line, col;
    const char *path = pg_patch_site(patch, p->config_path, &line, &col);
    findings_add(out, "deprecations", sev, p->config, path, line, col, data,
                 "`%s`, which %s, is deprecated upstream at %s%s%s%s%s%s", d->qualname, how,
                 p->tag_b, ver ? ": " : "",
                 ver ? removal_phrase(ver, p->tag_b, when, sizeof(when)) : "",
                 advice ? "; it says: \"" : "", advice ? advice : "", advice ? "\"" : "");
    free(ver);
    free(advice);
}

/* self.m(...) / cls.m(...): m as the patched class resolves it upstream at B. */
/* `self.m(...)` in an override of a method of class C (or in a replacement of C):
 * the method C has at B, when it is a function. */
static void self_call(findings *out, const survey_pair *p, const pg_patch *patch, const char *m,
                      strvec *seen)
{
    const char *dot = strchr(patch->target, '.');
    char *cls = patch->type == PG_METHOD_OVERRIDE && dot
                    ? pgci_strndup(patch->target, (size_t)(dot - patch->target))
                : patch->type == PG_CLASS_REPLACEMENT && !dot ? pgci_strdup(patch->target)
                                                              : NULL;
    const index_def *d = cls ? callees_resolve(p->b, cls, m) : NULL;
    if (d && d->kind == INDEX_FUNCTION)
        report(out, p, patch, d, "a patch calls", seen);
    free(cls);
}

/* Upstream definitions a patch body calls by name (the body's calls are read once a
 * run: survey_object_calls). */
static void report_calls(findings *out, const survey_pair *p, const pg_patch *patch,
                         const char *text, strvec *seen)
{
    survey_calls own;
    const survey_calls *calls =
        survey_object_calls(p, patch->replacement, text, strlen(text), &own);
    for (size_t i = 0; i < calls->len; i++) {
        const survey_call *c = &calls->items[i];
        if (c->self_) {
            self_call(out, p, patch, c->name, seen);
            continue;
        }
        const index_def *d = index_find(p->b, c->name);
        if (d)
            report(out, p, patch, d, "a patch calls", seen);
    }
    survey_calls_free(&own);
}

void check_deprecations(findings *out, const survey_pair *p)
{
    if (!p->b || !p->src_b)
        return;
    strvec seen = STRVEC_INIT;
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *patch = &p->cfg->patches.items[i];
        const index_def *d = index_find(p->b, patch->target);
        if (d) {
            report(out, p, patch, d, "a patch overrides", &seen);
            if (d->parent)
                report(out, p, patch, d->parent, OVERRIDES_A_METHOD_OF, &seen);
        }
        char *text = signatures_object_text(patch->replacement);
        if (text)
            report_calls(out, p, patch, text, &seen);
        free(text);
    }
    strvec_free(&seen);
}
