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

long keyword_calls_positional(const char *s, size_t n)
{
    size_t i = 1;
    int depth = 1, arg_start = 1;
    long count = 0;
    while (i < n && depth > 0) {
        char c = s[i];
        if (c == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (depth == 1 && arg_start && !isspace((unsigned char)c) && c != ')' && c != ',') {
            arg_start = 0;
            if (c == '*')
                return -1; /* *args or **kwargs: how many, the call does not say */
            size_t j = i;
            while (j < n && ident_char(s[j]))
                j++;
            size_t e = j;
            while (e < n && (s[e] == ' ' || s[e] == '\t' || s[e] == '\n'))
                e++;
            int keyword = j > i && !isdigit((unsigned char)c) && e < n && s[e] == '=' &&
                          (e + 1 >= n || s[e + 1] != '=');
            count += !keyword;
        }
        if (c == '"' || c == '\'') {
            i = skip_string(s, n, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        else if (c == ',' && depth == 1)
            arg_start = 1;
        i++;
    }
    return depth == 0 ? count : -1;
}

/* The next call `needle(` in s[from..to), outside strings and comments, needle a
 * whole name or dotted name (not preceded by a name character or a '.', not
 * followed by a name character): the offset of needle, *paren that of its '(';
 * -1 when none. from is where a statement may start (not inside a string). */
static long next_call(const char *s, size_t to, size_t from, const char *needle, size_t *paren)
{
    size_t nl = strlen(needle);
    for (size_t i = from; i < to;) {
        char c = s[i];
        if (c == '#') {
            const char *e = memchr(s + i, '\n', to - i);
            i = e ? (size_t)(e - s) : to;
        } else if (c == '"' || c == '\'') {
            i = (size_t)(source_string_end(s + i, s + to) - s);
        } else if (ident_char(c)) {
            size_t e = i + nl;
            if ((i == 0 || s[i - 1] != '.') && e <= to && !memcmp(s + i, needle, nl) &&
                (e == to || !ident_char(s[e]))) {
                while (e < to && (s[e] == ' ' || s[e] == '\t'))
                    e++;
                if (e < to && s[e] == '(') {
                    *paren = e;
                    return (long)i;
                }
            }
            while (i < to && ident_char(s[i])) /* the name; a string prefix's quote next */
                i++;
        } else {
            i++;
        }
    }
    return -1;
}

/* What a call found passes: a keyword, or so many arguments by position. */
typedef struct call_hit {
    const char *kw;
    long positional;
} call_hit;

/* The first call `needle(` in s[from..to) that passes one of k's keywords, or more
 * arguments by position than k allows: its offset and what it passes; -1 when
 * none. */
static long find_call(const char *s, size_t to, size_t from, const char *needle,
                      const keyword_calls_ctx *k, call_hit *hit)
{
    size_t paren;
    for (long at; (at = next_call(s, to, from, needle, &paren)) >= 0; from = paren + 1) {
        for (size_t i = 0; i < k->n_kws; i++)
            if (keyword_calls_passes(s + paren, to - paren, k->kws[i])) {
                hit->kw = k->kws[i];
                return at;
            }
        long n;
        if (k->check_positional && (n = keyword_calls_positional(s + paren, to - paren)) >= 0 &&
            (size_t)n > k->max_positional) {
            hit->kw = NULL;
            hit->positional = n;
            return at;
        }
    }
    return -1;
}

/* "`kw=`" or "N arguments by position" (malloc'ed). */
static char *passes(const call_hit *hit)
{
    return hit->kw ? pgci_asprintf("`%s=`", hit->kw)
                   : pgci_asprintf("%ld argument%s by position", hit->positional,
                                   hit->positional == 1 ? "" : "s");
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
    call_hit hit = {0};
    int replaced = strvec_find(k->overridden, d->name) >= 0;
    char *found = NULL;
    for (size_t a = 0; a < attrs->len && !found; a++) {
        size_t from = d->start_byte, to = d->end_byte < len ? d->end_byte : len;
        char *needle = pgci_asprintf("self.%s", attrs->items[a]);
        long at;
        while (!replaced && !found && from < to &&
               (at = find_call(src, to, from, needle, k, &hit)) >= 0) {
            const index_def *in = member_at(d, (size_t)at);
            if (!in || strvec_find(k->overridden, in->qualname) < 0) {
                char *what = passes(&hit);
                *call = pgci_asprintf("%s()", needle);
                found = pgci_asprintf("`%s` passes %s (line %u)", in ? in->qualname : d->qualname,
                                      what, line_at(src, (size_t)at));
                free(what);
            } else {
                from = in->end_byte; /* the config's method runs instead: its text, below */
            }
        }
        for (size_t t = 0; t < k->n_texts && !found; t++) {
            if (!k->texts[t].owner || strcmp(k->texts[t].owner, d->name))
                continue;
            if (find_call(k->texts[t].text, k->texts[t].len, 0, needle, k, &hit) >= 0) {
                char *what = passes(&hit);
                *call = pgci_asprintf("%s()", needle);
                found = pgci_asprintf("%s passes %s", k->texts[t].what, what);
                free(what);
            }
        }
        free(needle);
    }
    return found;
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

/* The top-level definition of m holding offset at; NULL at the module's level. */
static const index_def *top_def_at(const index_module *m, size_t at)
{
    for (size_t i = 0; i < m->n_defs; i++)
        if (m->defs[i]->start_byte <= at && at < m->defs[i]->end_byte)
            return m->defs[i];
    return NULL;
}

/* Where a call at offset at of the module runs: "`D.m`", "`f`", "the module"
 * (malloc'ed); NULL when the code there no longer runs (fn itself, a function the
 * config replaces, a class it replaces, a method it overrides). */
static char *caller_at(const index_module *m, size_t at, const char *fn, const strvec *overridden)
{
    const index_def *d = top_def_at(m, at);
    if (!d)
        return pgci_strdup("the module");
    if (!strcmp(d->name, fn) || strvec_find(overridden, d->name) >= 0)
        return NULL;
    const index_def *in = d->kind == INDEX_CLASS ? member_at(d, at) : NULL;
    if (in && strvec_find(overridden, in->qualname) >= 0)
        return NULL;
    return pgci_asprintf("`%s`", in ? in->qualname : d->qualname);
}

char *keyword_calls_find_function(const index_module *m, const char *src, size_t len,
                                  const char *fn, const keyword_calls_ctx *k, char **call)
{
    *call = NULL;
    if (!m || !src)
        return NULL;
    call_hit hit = {0};
    char *found = NULL;
    long at;
    for (size_t from = 0; !found && (at = find_call(src, len, from, fn, k, &hit)) >= 0;
         from = (size_t)at + strlen(fn)) {
        char *where = caller_at(m, (size_t)at, fn, k->overridden);
        if (where) {
            char *what = passes(&hit);
            found = pgci_asprintf("%s passes %s (line %u)", where, what, line_at(src, (size_t)at));
            free(what);
        }
        free(where);
    }
    for (size_t t = 0; t < k->n_texts && !found; t++)
        if (find_call(k->texts[t].text, k->texts[t].len, 0, fn, k, &hit) >= 0) {
            char *what = passes(&hit);
            found = pgci_asprintf("%s passes %s", k->texts[t].what, what);
            free(what);
        }
    if (found)
        *call = pgci_asprintf("%s()", fn);
    return found;
}
