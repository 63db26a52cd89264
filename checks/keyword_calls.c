/*
 * keyword_calls.c - calls of a submodule's forward (directly or as a ModuleList's
 * elements), of a class's own method or of a module-level function that pass a
 * keyword by name or too many arguments by position (keyword_calls.h). Plain text
 * scans, strings and comments skipped, over one class's span at a time or the
 * module's.
 */
#include "checks/keyword_calls.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/source_text.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/vec.h"

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* One argument at the top level of a call: `*x`/`**x`, `name=...` or positional. */
typedef struct call_arg {
    int star;
    const char *kw; /* the keyword's name (not NUL-terminated), or NULL */
    size_t kw_len;
} call_arg;

/* The next argument of the call whose list opens at s[0] == '(' (within s[0..n)),
 * from *pos (1 at first): 1 and *a when one starts (*pos then past it), 0 at the
 * list's ')', -1 when the text ends first. Strings and comments are skipped, and
 * nested brackets are inside the argument. */
static int next_arg(const char *s, size_t n, size_t *pos, call_arg *a)
{
    size_t i = *pos;
    for (;;) { /* to the argument's first byte */
        while (i < n && (isspace((unsigned char)s[i]) || s[i] == ','))
            i++;
        if (i < n && s[i] == '#') {
            const char *e = memchr(s + i, '\n', n - i);
            i = e ? (size_t)(e - s) : n;
            continue;
        }
        break;
    }
    if (i >= n)
        return -1;
    if (s[i] == ')' || s[i] == ']' || s[i] == '}') {
        *pos = i;
        return 0;
    }
    memset(a, 0, sizeof(*a));
    a->star = s[i] == '*';
    size_t j = i;
    while (j < n && ident_char(s[j]))
        j++;
    size_t e = j;
    while (e < n && (s[e] == ' ' || s[e] == '\t' || s[e] == '\n'))
        e++;
    if (j > i && !isdigit((unsigned char)s[i]) && e < n && s[e] == '=' &&
        (e + 1 >= n || s[e + 1] != '=')) {
        a->kw = s + i;
        a->kw_len = j - i;
    }
    for (int depth = 0; i < n; i++) { /* past the argument: its ',' or the list's ')' */
        char c = s[i];
        if (c == '"' || c == '\'') {
            i = (size_t)(source_string_end(s + i, s + n) - s) - 1;
        } else if (c == '#') {
            const char *nl = memchr(s + i, '\n', n - i);
            i = nl ? (size_t)(nl - s) : n;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth-- == 0) {
            break;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    *pos = i;
    return 1;
}

int keyword_calls_passes(const char *s, size_t n, const char *kw)
{
    size_t kl = strlen(kw), pos = 1;
    call_arg a;
    while (next_arg(s, n, &pos, &a) == 1)
        if (a.kw && a.kw_len == kl && !memcmp(a.kw, kw, kl))
            return 1;
    return 0;
}

long keyword_calls_positional(const char *s, size_t n)
{
    size_t pos = 1;
    long count = 0;
    call_arg a;
    int r;
    while ((r = next_arg(s, n, &pos, &a)) == 1) {
        if (a.star)
            return -1; /* *args or **kwargs: how many, the call does not say */
        count += !a.kw;
    }
    return r == 0 ? count : -1;
}

/* The next `word` in s[from..to), outside strings and comments, word a whole name
 * or dotted name (not preceded by a name character or a '.', not followed by a
 * name character): its offset; -1 when none. from is where code may start (not
 * inside a string). */
static long next_word(const char *s, size_t to, size_t from, const char *word)
{
    size_t nl = strlen(word);
    for (size_t i = from; i < to;) {
        char c = s[i];
        if (c == '#') {
            const char *e = memchr(s + i, '\n', to - i);
            i = e ? (size_t)(e - s) : to;
        } else if (c == '"' || c == '\'') {
            i = (size_t)(source_string_end(s + i, s + to) - s);
        } else if (ident_char(c)) {
            size_t e = i + nl;
            if ((i == 0 || s[i - 1] != '.') && e <= to && !memcmp(s + i, word, nl) &&
                (e == to || !ident_char(s[e])))
                return (long)i;
            while (i < to && ident_char(s[i])) /* the name; a string prefix's quote next */
                i++;
        } else {
            i++;
        }
    }
    return -1;
}

/* The next call `needle(` in s[from..to) (next_word): the offset of needle, *paren
 * that of its '('; -1 when none. */
static long next_call(const char *s, size_t to, size_t from, const char *needle, size_t *paren)
{
    size_t nl = strlen(needle);
    for (long at; (at = next_word(s, to, from, needle)) >= 0; from = (size_t)at + nl) {
        size_t e = (size_t)at + nl;
        while (e < to && (s[e] == ' ' || s[e] == '\t'))
            e++;
        if (e < to && s[e] == '(') {
            *paren = e;
            return at;
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

/* The ':' ending a `for` statement's header whose `in` is at s[at] (outside
 * brackets and strings, before the line ends); 0 when there is none (a
 * comprehension's `for`, inside its brackets). */
static size_t header_colon(const char *s, size_t to, size_t at)
{
    int depth = 0;
    for (size_t i = at; i < to;) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            i = (size_t)(source_string_end(s + i, s + to) - s);
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0)
            return 0;
        else if (depth == 0 && (c == '\n' || c == '#'))
            return 0;
        else if (depth == 0 && c == ':')
            return i;
        i++;
    }
    return 0;
}

/* The end of the block whose header's colon is at s[colon], the header's line
 * indented by col: the start of the first line after it, neither blank nor a
 * comment, indented by col or less; or the line's end for a body on the header's
 * line. */
static size_t block_end(const char *s, size_t to, size_t colon, size_t col)
{
    size_t i = colon + 1;
    while (i < to && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < to && s[i] != '\n' && s[i] != '#') { /* `for x in y: x(...)` */
        const char *nl = memchr(s + i, '\n', to - i);
        return nl ? (size_t)(nl - s) : to;
    }
    const char *nl = memchr(s + i, '\n', to - i);
    for (size_t line = nl ? (size_t)(nl - s) + 1 : to; line < to;) {
        size_t j = line;
        while (j < to && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j < to && s[j] != '\n' && s[j] != '#' && j - line <= col)
            return line;
        nl = memchr(s + j, '\n', to - j);
        line = nl ? (size_t)(nl - s) + 1 : to;
    }
    return to;
}

/* The first call of an element of self.<attr> in s[from..to) that passes what k
 * looks for: in the body of a loop `for NAME in ...self.<attr>...:` (NAME the last
 * name of the loop's target: `for i, layer in enumerate(self.layers)`), a call
 * `NAME(...)`. Its offset; -1 when none. */
static long find_element_call(const char *s, size_t to, size_t from, const char *attr,
                              const keyword_calls_ctx *k, call_hit *hit)
{
    char *container = pgci_asprintf("self.%s", attr);
    long found = -1;
    for (long f; found < 0 && (f = next_word(s, to, from, "for")) >= 0; from = (size_t)f + 3) {
        size_t ls = (size_t)f;
        while (ls > 0 && s[ls - 1] != '\n')
            ls--;
        int stmt = 1; /* `for` starts its line's code */
        for (size_t i = ls; i < (size_t)f; i++)
            stmt &= s[i] == ' ' || s[i] == '\t';
        long in = stmt ? next_word(s, to, (size_t)f + 3, "in") : -1;
        size_t colon = in > f ? header_colon(s, to, (size_t)in + 2) : 0;
        if (!colon || next_word(s, colon, (size_t)in + 2, container) < 0)
            continue;
        size_t e = (size_t)in; /* the target's last name */
        while (e > (size_t)f + 3 && !ident_char(s[e - 1]))
            e--;
        size_t b = e;
        while (b > (size_t)f + 3 && ident_char(s[b - 1]))
            b--;
        if (b == e)
            continue;
        char *var = pgci_strndup(s + b, e - b);
        found = find_call(s, block_end(s, to, colon, (size_t)f - ls), colon + 1, var, k, hit);
        free(var);
    }
    free(container);
    return found;
}

static unsigned line_at(const char *s, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        line += s[i] == '\n';
    return line;
}

/* `None if <test> else cls(...)`: an instance of cls where the test fails (a
 * layer that shares its neighbour's, GLM-MoE-DSA's indexer at 5.12.1). */
static int none_else_made(const char *v, const char *cls, size_t cl)
{
    if (strncmp(v, "None if ", 8))
        return 0;
    const char *e = strstr(v, " else ");
    return e && !strstr(e + 6, " else ") && !strncmp(e + 6, cls, cl) && e[6 + cl] == '(';
}

/* The attributes class d's `__init__` makes instances of cls: `self.<attr> =
 * cls(...)` (or `None if <test> else cls(...)`); into *elements those it makes a
 * ModuleList of: `self.<attr> = nn.ModuleList([cls(...) for ...])`. */
static void made_attrs(strvec *out, strvec *elements, const index_def *d, const char *src,
                       size_t len, const char *cls)
{
    const index_def *init = index_member(d, "__init__");
    size_t cl = strlen(cls);
    for (size_t i = 0; init && i < d->n_init_attrs; i++) {
        char *v = source_attr_value(src, len, init, d->init_attrs[i]);
        if (v && ((!strncmp(v, cls, cl) && v[cl] == '(') || none_else_made(v, cls, cl))) {
            strvec_push(out, d->init_attrs[i]);
        } else if (v && strstr(v, "ModuleList(")) {
            for (const char *p = v; (p = strstr(p, cls)); p += cl)
                if ((p == v || (!ident_char(p[-1]) && p[-1] != '.')) && p[cl] == '(') {
                    strvec_push(elements, d->init_attrs[i]);
                    break;
                }
        }
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

/* A call site `self.<attr>(...)`, or with element a call of each element of
 * self.<attr> in a loop over it: the first in s[from..to) passing what k looks
 * for. */
static long find_site(const char *s, size_t to, size_t from, const char *attr, int element,
                      const keyword_calls_ctx *k, call_hit *hit)
{
    if (element)
        return find_element_call(s, to, from, attr, k, hit);
    char *needle = pgci_asprintf("self.%s", attr);
    long at = find_call(s, to, from, needle, k, hit);
    free(needle);
    return at;
}

/* One class's calls of the sites attrs (element: of their elements): its upstream
 * span (but the methods the config replaces, which no longer run), then the texts
 * it owns. */
static char *class_calls(const index_def *d, const char *src, size_t len, const strvec *attrs,
                         int element, const keyword_calls_ctx *k, char **call)
{
    call_hit hit = {0};
    int replaced = strvec_find(k->overridden, d->name) >= 0;
    char *found = NULL;
    for (size_t a = 0; a < attrs->len && !found; a++) {
        size_t from = d->start_byte, to = d->end_byte < len ? d->end_byte : len;
        const char *attr = attrs->items[a];
        long at;
        while (!replaced && !found && from < to &&
               (at = find_site(src, to, from, attr, element, k, &hit)) >= 0) {
            const index_def *in = member_at(d, (size_t)at);
            if (!in || strvec_find(k->overridden, in->qualname) < 0) {
                char *what = passes(&hit);
                *call = pgci_asprintf(element ? "self.%s[i]()" : "self.%s()", attr);
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
            if (find_site(k->texts[t].text, k->texts[t].len, 0, attr, element, k, &hit) >= 0) {
                char *what = passes(&hit);
                *call = pgci_asprintf(element ? "self.%s[i]()" : "self.%s()", attr);
                found = pgci_asprintf("%s passes %s", k->texts[t].what, what);
                free(what);
            }
        }
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
        strvec attrs = STRVEC_INIT, elements = STRVEC_INIT;
        if (!strcmp(method, "forward"))
            made_attrs(&attrs, &elements, d, src, len, cls); /* self.<attr>(...) */
        else if (!strcmp(d->name, cls))
            strvec_push(&attrs, method); /* the class's own self.<method>(...) */
        if (attrs.len)
            found = class_calls(d, src, len, &attrs, 0, k, call);
        if (!found && elements.len) /* for layer in self.layers: layer(...) */
            found = class_calls(d, src, len, &elements, 1, k, call);
        strvec_free(&attrs);
        strvec_free(&elements);
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
