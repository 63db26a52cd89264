/*
 * regen_causes.c - a regeneration's failure as comparable keys (regen_causes.h).
 */
#include "checks/regen_causes.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "patchgen/normalize.h"

#define RUFF_FAILED "ruff normalisation failed: "
#define EXITED " exited with status "
#define CUT "more line"
#define POSITIONED "positioned helper target(s) not found in generated output: "

static int word_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* s[0..n) with each number outside backquotes one '#': a run of digits that is
 * not part of a name (`Qwen3_5Model` stays). */
static void push_key(regen_causes *c, const char *s, size_t n)
{
    strbuf k = STRBUF_INIT;
    int quoted = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`')
            quoted = !quoted;
        if (!quoted && isdigit((unsigned char)s[i]) && (i == 0 || !word_char(s[i - 1]))) {
            size_t j = i;
            while (j + 1 < n && isdigit((unsigned char)s[j + 1]))
                j++;
            if (j + 1 == n || !word_char(s[j + 1])) {
                strbuf_addc(&k, '#');
                i = j;
                continue;
            }
        }
        strbuf_addc(&k, s[i]);
    }
    strbuf_rtrim(&k);
    if (k.len && strvec_find(&c->keys, k.buf) < 0) {
        strvec_push(&c->keys, k.buf);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
            n--;
        strvec_push_owned(&c->heads, pgci_strndup(s, n));
    }
    strbuf_free(&k);
}

static void read_ruff(regen_causes *c, const char *out)
{
    size_t before = c->keys.len;
    const char *first = out;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        const char *d = normalize_ruff_diagnostic(p, end);
        if (d)
            push_key(c, d, (size_t)(end - d));
        /* cut: the lines past it are unknown, unless their diagnostics follow
         * in full (normalize.h) */
        if (!strncmp(p, "... (", 5) && strstr(p, CUT) && strstr(p, CUT) < end) {
            const char *listed = strstr(p, NORMALIZE_CUT_LISTED);
            const char *none = strstr(p, NORMALIZE_CUT_NONE);
            c->cut = (!listed || listed > end) && (!none || none > end);
        }
        if ((size_t)(end - p) == strlen(NORMALIZE_CUT_UNLISTED) &&
            !strncmp(p, NORMALIZE_CUT_UNLISTED, (size_t)(end - p)))
            c->cut = 1;
        if (!nl)
            break;
        p = nl + 1;
    }
    if (c->keys.len == before) { /* no diagnostic (a file ruff cannot parse): its first line */
        const char *nl = strchr(first, '\n');
        push_key(c, first, nl ? (size_t)(nl - first) : strlen(first));
    }
}

/* The code generator's message less the paths before it ("cfg.py: /abs/cfg.py: "). */
static const char *past_paths(const char *s)
{
    for (;;) {
        const char *colon = strstr(s, ": ");
        const char *space = strchr(s, ' ');
        if (!colon || (space && space < colon) || colon - s < 3 || memcmp(colon - 3, ".py", 3))
            return s;
        s = colon + 2;
    }
}

void regen_causes_read(regen_causes *c, const char *error)
{
    *c = (regen_causes){STRVEC_INIT, STRVEC_INIT, REGEN_STAGE_CODEGEN, 0};
    if (!error)
        return;
    const char *r = strstr(error, RUFF_FAILED);
    const char *x = r ? strstr(r, EXITED) : NULL;
    const char *colon = x ? strstr(x, ": ") : NULL;
    if (colon) {
        c->stage = REGEN_STAGE_RUFF;
        read_ruff(c, colon + 2);
        return;
    }
    c->stage = REGEN_STAGE_CODEGEN;
    const char *m = past_paths(error);
    const char *nl = strchr(m, '\n');
    size_t n = nl ? (size_t)(nl - m) : strlen(m);
    const char *list = strstr(m, POSITIONED);
    if (list && list < m + n) {
        const char *p = list + strlen(POSITIONED), *end = strstr(p, " (");
        if (!end || end > m + n)
            end = m + n;
        while (p < end) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            const char *e = comma ? comma : end;
            char *key = pgci_asprintf("positioned helper target not found: %.*s", (int)(e - p), p);
            push_key(c, key, strlen(key));
            free(key);
            p = comma ? comma + 2 : end;
        }
        return;
    }
    push_key(c, m, n);
}

void regen_causes_free(regen_causes *c)
{
    strvec_free(&c->keys);
    strvec_free(&c->heads);
    memset(c, 0, sizeof(*c));
}

int regen_causes_new(const regen_causes *a, const regen_causes *b, strvec *fresh)
{
    if (b->stage == REGEN_STAGE_RUFF && (a->stage != REGEN_STAGE_RUFF || a->cut))
        return 0;
    for (size_t i = 0; i < b->keys.len; i++)
        if (strvec_find(&a->keys, b->keys.items[i]) < 0)
            strvec_push(fresh, b->keys.items[i]);
    return 1;
}

char *regen_cause_short(const char *head)
{
    const char *d = normalize_ruff_diagnostic(head, head + strlen(head));
    const char *q = d ? strchr(d, '`') : NULL;
    const char *qe = q ? strchr(q + 1, '`') : NULL;
    if (!qe)
        return pgci_strdup(head);
    return pgci_asprintf("%.*s %.*s", (int)strcspn(d, " "), d, (int)(qe + 1 - q), q);
}

void regen_causes_others(const regen_causes *c, const char *line, size_t n, strvec *out)
{
    if (c->stage != REGEN_STAGE_RUFF)
        return;
    /* the first line's diagnostic, after "exited with status N: " */
    regen_causes first = {STRVEC_INIT, STRVEC_INIT, REGEN_STAGE_RUFF, 0};
    char *l = pgci_strndup(line, n);
    const char *x = strstr(l, EXITED);
    const char *colon = x ? strstr(x, ": ") : NULL;
    const char *d = colon ? normalize_ruff_diagnostic(colon + 2, l + n) : NULL;
    if (d)
        push_key(&first, d, strlen(d));
    for (size_t i = 0; i < c->keys.len; i++)
        if (!first.keys.len || strcmp(first.keys.items[0], c->keys.items[i]))
            strvec_push_owned(out, regen_cause_short(c->heads.items[i]));
    regen_causes_free(&first);
    free(l);
}
