/*
 * keyword_calls.c - calls of a submodule's forward that pass a keyword by name
 * (keyword_calls.h). Plain text scans over one class's span at a time.
 */
#include "checks/keyword_calls.h"

#include <ctype.h>
#include <string.h>

#include "checks/source_text.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/vec.h"

#include <stdlib.h>

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The end of the string literal opening at s[i] (a quote), n the text's end. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    char q = s[i];
    int triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < n) {
        if (s[i] == '\\') {
            i += 2;
            continue;
        }
        if (s[i] == q && (!triple || (i + 2 < n && s[i + 1] == q && s[i + 2] == q)))
            return i + (triple ? 3 : 1);
        if (s[i] == '\n' && !triple)
            return i;
        i++;
    }
    return n;
}

int keyword_calls_passes(const char *s, size_t n, const char *kw)
{
    size_t kl = strlen(kw), i = 1;
    int depth = 1, arg_start = 1;
    while (i < n && depth > 0) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            i = skip_string(s, n, i);
            arg_start = 0;
            continue;
        }
        if (c == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
            arg_start = 0;
        } else if (c == ')' || c == ']' || c == '}') {
            depth--;
        } else if (c == ',' && depth == 1) {
            arg_start = 1;
        } else if (ident_char(c) && depth == 1 && arg_start) {
            size_t j = i;
            while (j < n && ident_char(s[j]))
                j++;
            size_t e = j;
            while (e < n && (s[e] == ' ' || s[e] == '\t' || s[e] == '\n'))
                e++;
            if (j - i == kl && !memcmp(s + i, kw, kl) && e < n && s[e] == '=' &&
                (e + 1 >= n || s[e + 1] != '='))
                return 1;
            arg_start = 0;
            i = j;
            continue;
        } else if (!isspace((unsigned char)c)) {
            arg_start = 0;
        }
        i++;
    }
    return 0;
}

/* The first `self.<attr>(` call in s[from..to) passing one of kws: its offset and
 * the keyword; -1 when none. */
static long find_call(const char *s, size_t to, size_t from, const char *attr,
                      const char *const *kws, size_t n_kws, const char **kw)
{
    strbuf needle = STRBUF_INIT;
    strbuf_addf(&needle, "self.%s", attr);
    long found = -1;
    for (size_t i = from; found < 0 && i + needle.len <= to;) {
        const char *p = memmem(s + i, to - i, needle.buf, needle.len);
        if (!p)
            break;
        size_t at = (size_t)(p - s), e = at + needle.len;
        i = e;
        if ((at > 0 && (ident_char(s[at - 1]) || s[at - 1] == '.')) || (e < to && ident_char(s[e])))
            continue;
        while (e < to && (s[e] == ' ' || s[e] == '\t'))
            e++;
        if (e >= to || s[e] != '(')
            continue;
        for (size_t k = 0; k < n_kws && found < 0; k++)
            if (keyword_calls_passes(s + e, to - e, kws[k])) {
                *kw = kws[k];
                found = (long)at;
            }
    }
    strbuf_free(&needle);
    return found;
}

static unsigned line_at(const char *s, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        line += s[i] == '\n';
    return line;
}

/* The attributes class d's `__init__` makes instances of cls: `self.<attr> =
 * cls(...)`. */
static void made_attrs(strvec *out, const index_def *d, const char *src, size_t len,
                       const char *cls)
{
    const index_def *init = index_member(d, "__init__");
    size_t cl = strlen(cls);
    for (size_t i = 0; init && i < d->n_init_attrs; i++) {
        char *v = source_attr_value(src, len, init, d->init_attrs[i]);
        if (v && !strncmp(v, cls, cl) && v[cl] == '(')
            strvec_push(out, d->init_attrs[i]);
        free(v);
    }
}

static const index_def *member_at(const index_def *d, size_t at)
{
    const index_def *in = NULL;
    for (size_t m = 0; m < d->n_members; m++)
        if (d->members[m]->start_byte <= at && at < d->members[m]->end_byte)
            in = d->members[m];
    return in;
}

/* One class's calls: its upstream span (but the methods the config replaces, which
 * no longer run), then the texts it owns. */
static char *class_calls(const index_def *d, const char *src, size_t len, const strvec *attrs,
                         const keyword_calls_ctx *k, char **call)
{
    const char *kw = NULL;
    int replaced = strvec_find(k->overridden, d->name) >= 0;
    for (size_t a = 0; a < attrs->len; a++) {
        size_t from = d->start_byte, to = d->end_byte < len ? d->end_byte : len;
        long at;
        while (!replaced && from < to &&
               (at = find_call(src, to, from, attrs->items[a], k->kws, k->n_kws, &kw)) >= 0) {
            const index_def *in = member_at(d, (size_t)at);
            if (!in || strvec_find(k->overridden, in->qualname) < 0) {
                *call = pgci_asprintf("self.%s()", attrs->items[a]);
                return pgci_asprintf("`%s` passes `%s=` (line %u)", in ? in->qualname : d->qualname,
                                     kw, line_at(src, (size_t)at));
            }
            from = in->end_byte; /* the config's method runs instead: its text, below */
        }
        for (size_t t = 0; t < k->n_texts; t++) {
            if (strcmp(k->texts[t].owner, d->name))
                continue;
            if (find_call(k->texts[t].text, k->texts[t].len, 0, attrs->items[a], k->kws, k->n_kws,
                          &kw) >= 0) {
                *call = pgci_asprintf("self.%s()", attrs->items[a]);
                return pgci_asprintf("%s passes `%s=`", k->texts[t].what, kw);
            }
        }
    }
    return NULL;
}

char *keyword_calls_find(const index_module *m, const char *src, size_t len, const char *cls,
                         const char *method, const keyword_calls_ctx *k, char **call)
{
    *call = NULL;
    if (!m || !src)
        return NULL;
    char *found = NULL;
    for (size_t i = 0; i < m->n_defs && !found; i++) {
        const index_def *d = m->defs[i];
        if (d->kind != INDEX_CLASS)
            continue;
        strvec attrs = STRVEC_INIT;
        if (!strcmp(method, "forward"))
            made_attrs(&attrs, d, src, len, cls); /* self.<attr>(...) */
        else if (!strcmp(d->name, cls))
            strvec_push(&attrs, method); /* the class's own self.<method>(...) */
        if (attrs.len)
            found = class_calls(d, src, len, &attrs, k, call);
        strvec_free(&attrs);
    }
    return found;
}
