/*
 * Facts read from an upstream definition's text. The index keeps names and
 * fingerprints; a few survey judgements need a little more (the value behind an
 * attribute, to call two attributes one renamed; the width of a returned tuple;
 * whether anything still builds a class by name), and a line scan over one span
 * is enough for each.
 */
#include "checks/source_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"

static int ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Appends the expression starting at s to out, up to the newline where its brackets
 * balance, with whitespace runs folded and comments left out. */
static void fold_value(strbuf *out, const char *s, const char *end)
{
    int depth = 0, space = 0;
    char quote = 0;
    for (const char *p = s; p < end; p++) {
        if (quote) {
            strbuf_addc(out, *p);
            if (*p == '\\' && p + 1 < end)
                strbuf_addc(out, *++p);
            else if (*p == quote)
                quote = 0;
            continue;
        }
        if (*p == '#') { /* a comment: to the end of its line */
            while (p + 1 < end && p[1] != '\n')
                p++;
            continue;
        }
        if (*p == '\n' && depth <= 0)
            break;
        if (*p == '(' || *p == '[' || *p == '{')
            depth++;
        else if (*p == ')' || *p == ']' || *p == '}')
            depth--;
        if (isspace((unsigned char)*p)) {
            space = 1;
            continue;
        }
        if (space && out->len && out->buf[out->len - 1] != '(' && out->buf[out->len - 1] != '[' &&
            *p != ')' && *p != ']')
            strbuf_addc(out, ' ');
        space = 0;
        if (*p == '"' || *p == '\'')
            quote = *p;
        strbuf_addc(out, *p);
    }
}

char *source_attr_value(const char *src, size_t len, const index_def *def, const char *attr)
{
    if (!src || !def || def->end_byte > len || def->start_byte >= def->end_byte)
        return NULL;
    const char *s = src + def->start_byte, *end = src + def->end_byte;
    size_t an = strlen(attr);
    for (const char *p = s; p && p < end; p = memchr(p, '\n', (size_t)(end - p))) {
        while (p < end && (*p == '\n' || *p == ' ' || *p == '\t'))
            p++;
        if ((size_t)(end - p) <= 5 + an || strncmp(p, "self.", 5) || strncmp(p + 5, attr, an) ||
            ident_char(p[5 + an]))
            continue;
        const char *q = p + 5 + an;
        if (*q == ':') /* an annotation: self.x: T = v */
            while (q < end && *q != '=' && *q != '\n')
                q++;
        while (q < end && *q == ' ')
            q++;
        if (q >= end || *q != '=' || (q + 1 < end && q[1] == '='))
            continue;
        q++;
        strbuf v = STRBUF_INIT;
        fold_value(&v, q, end);
        if (!v.len) {
            strbuf_free(&v);
            continue;
        }
        return strbuf_detach(&v, NULL);
    }
    return NULL;
}

/* Top-level commas of one expression, up to the end of its logical line. */
static int value_width(const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    int paren = *p == '(';
    int depth = 0, commas = 0, trailing = 0;
    for (; p < end; p++) {
        if ((*p == '\n' || *p == '#') && depth == 0)
            break;
        if (*p == '(' || *p == '[' || *p == '{')
            depth++;
        else if (*p == ')' || *p == ']' || *p == '}')
            depth--;
        else if (*p == ',' && depth == (paren ? 1 : 0)) {
            commas++;
            trailing = 1;
            continue;
        } else if (*p == '"' || *p == '\'') {
            char qch = *p;
            for (p++; p < end && *p != qch; p++)
                p += *p == '\\';
        }
        if (!isspace((unsigned char)*p) && *p != ')')
            trailing = 0;
    }
    if (!commas)
        return 1;
    return commas + 1 - trailing;
}

/* The next occurrence of name (n bytes) in [p, end), or NULL: within len, whether
 * or not a NUL follows. */
static const char *next_in(const char *p, const char *end, const char *name, size_t n)
{
    return p < end && n ? memmem(p, (size_t)(end - p), name, n) : NULL;
}

/* 1 when [q, end) starts with the n bytes of w. */
static int starts(const char *q, const char *end, const char *w, size_t n)
{
    return (size_t)(end - q) >= n && !memcmp(q, w, n);
}

int source_return_arity(const char *src, size_t len, const index_def *def)
{
    if (!src || !def || def->end_byte > len || def->start_byte >= def->end_byte)
        return 0;
    const char *s = src + def->start_byte, *end = src + def->end_byte;
    int best = 0;
    long nested = -1; /* indentation of a nested def being skipped */
    /* the first line is the def (or a decorator) itself: start after the `def` */
    const char *p = next_in(s, end, "def ", 4);
    for (p = p ? memchr(p, '\n', (size_t)(end - p)) : NULL; p && p + 1 < end;
         p = memchr(p + 1, '\n', (size_t)(end - p - 1))) {
        const char *l = p + 1;
        long ind = 0;
        while (l + ind < end && l[ind] == ' ')
            ind++;
        if (l + ind >= end || l[ind] == '\n' || l[ind] == '#')
            continue;
        if (nested >= 0 && ind > nested)
            continue;
        nested = -1;
        if (starts(l + ind, end, "def ", 4) || starts(l + ind, end, "async def ", 10)) {
            nested = ind;
            continue;
        }
        if (!starts(l + ind, end, "return", 6) || l + ind + 6 >= end || ident_char(l[ind + 6]) ||
            l[ind + 6] == '\n')
            continue;
        int w = value_width(l + ind + 6, end);
        if (w > best)
            best = w;
    }
    return best;
}

int source_instantiates(const char *src, size_t len, const char *name)
{
    if (!src)
        return 0;
    size_t n = strlen(name);
    const char *end = src + len;
    for (const char *p = src; (p = next_in(p, end, name, n)); p += n) {
        if (p > src && (ident_char(p[-1]) || p[-1] == '.'))
            continue;
        const char *q = p + n;
        if (!(starts(q, end, "(", 1) || starts(q, end, ".from_config(", 13) ||
              starts(q, end, "._from_config(", 14)))
            continue;
        /* `class name(` is the definition, not an instantiation */
        const char *l = p;
        while (l > src && l[-1] != '\n')
            l--;
        while (*l == ' ')
            l++;
        if (!strncmp(l, "class ", 6) && l + 6 == p)
            continue;
        return 1;
    }
    return 0;
}

int source_references(const char *src, size_t len, const char *name)
{
    if (!src)
        return 0;
    size_t n = strlen(name);
    const char *end = src + len;
    for (const char *p = src; (p = next_in(p, end, name, n)); p += n) {
        char after = p + n < end ? p[n] : '\0';
        if ((p > src && ident_char(p[-1])) || ident_char(after))
            continue;
        if (p > src && (p[-1] == '"' || p[-1] == '\'') && after == p[-1])
            continue;
        const char *l = p;
        while (l > src && l[-1] != '\n')
            l--;
        while (*l == ' ')
            l++;
        if (!strncmp(l, "class ", 6) && l + 6 == p)
            continue;
        return 1;
    }
    return 0;
}

const char *source_string_end(const char *p, const char *end)
{
    char q = *p;
    size_t n = end - p >= 3 && p[1] == q && p[2] == q ? 3 : 1;
    for (p += n; p < end; p++) {
        if (*p == '\\') {
            p++;
            continue;
        }
        if (*p == q && (n == 1 || (end - p >= 3 && p[1] == q && p[2] == q)))
            return p + n;
    }
    return end;
}
