/*
 * pytop.c - top-level statement starts from a scan of the tokens that decide
 * them: strings (prefixes, triple quotes, escapes, f-string fields), comments,
 * brackets and backslash continuations. Everything else is stepped over a byte at
 * a time. A scanner that guesses would make the structural comparison take one
 * file's statement for another's, so every doubt declines the whole text.
 */
#include "py/pytop.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"

/* f-strings nest (a field's string may be an f-string); deeper is declined */
#define MAX_NEST 16

typedef struct scan {
    const char *s;
    size_t len;
    uint32_t row;
} scan;

static bool ident_byte(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80;
}

/* The string prefix that ends at i (the quote): its flags, or false when the
 * letters before the quote are not one (an identifier's tail: a plain string,
 * which only an erroneous text has). t-strings are declined (*tstr). */
static void prefix_at(const scan *sc, size_t i, bool *raw, bool *fstr, bool *tstr)
{
    size_t j = i;
    while (j > 0 && i - j < 2 && ident_byte((unsigned char)sc->s[j - 1]) &&
           !((unsigned char)sc->s[j - 1] >= '0' && (unsigned char)sc->s[j - 1] <= '9'))
        j--;
    *raw = *fstr = *tstr = false;
    if (j > 0 && ident_byte((unsigned char)sc->s[j - 1]))
        return; /* longer than a prefix: an identifier's tail */
    bool r = false, f = false, b = false, u = false, t = false;
    for (size_t k = j; k < i; k++) {
        switch (sc->s[k] | 0x20) {
        case 'r':
            r = true;
            break;
        case 'f':
            f = true;
            break;
        case 'b':
            b = true;
            break;
        case 'u':
            u = true;
            break;
        case 't':
            t = true;
            break;
        default:
            return;
        }
    }
    *raw = r;
    *fstr = f;
    *tstr = t;
    (void)b, (void)u;
}

static long string_at(scan *sc, size_t i, char forbid, int nest);

/* A replacement field of an f-string quoted with q, from after its '{' to after
 * its '}'; -1 to decline. */
static long field_at(scan *sc, size_t i, char q, bool triple, int nest)
{
    int depth = 0;
    bool spec = false;
    while (i < sc->len) {
        char c = sc->s[i];
        if (c == q || c == '#' || c == '\\' || (c == '\n' && !triple))
            return -1; /* read differently before and after Python 3.12 */
        if (c == '\n') {
            sc->row++;
            i++;
        } else if (spec) {
            if (c == '{') {
                long e = field_at(sc, i + 1, q, triple, nest);
                if (e < 0)
                    return -1;
                i = (size_t)e;
            } else if (c == '}') {
                return (long)i + 1;
            } else {
                i++;
            }
        } else if (c == '\'' || c == '"') {
            long e = string_at(sc, i, q, nest + 1);
            if (e < 0)
                return -1;
            i = (size_t)e;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
            i++;
        } else if (c == ')' || c == ']') {
            if (--depth < 0)
                return -1;
            i++;
        } else if (c == '}') {
            if (depth == 0)
                return (long)i + 1;
            depth--;
            i++;
        } else if (c == ':' && depth == 0) {
            spec = true;
            i++;
        } else {
            i++;
        }
    }
    return -1;
}

/* The string whose quote is at i (its prefix before i): the offset after its
 * closing quote, or -1 to decline (unterminated; `forbid`, the quote of an
 * f-string it is inside, met anywhere in it). */
static long string_at(scan *sc, size_t i, char forbid, int nest)
{
    if (nest > MAX_NEST)
        return -1;
    bool raw, fstr, tstr;
    prefix_at(sc, i, &raw, &fstr, &tstr);
    if (tstr)
        return -1;
    const char *s = sc->s;
    size_t len = sc->len;
    char q = s[i];
    if (q == forbid)
        return -1;
    bool triple = i + 2 < len && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < len) {
        char c = s[i];
        if (c == forbid)
            return -1;
        if (c == '\\') {
            if (i + 1 >= len)
                return -1;
            char e = s[i + 1];
            if (fstr && (e == '{' || e == '}'))
                return -1;
            if (fstr && !raw && e == 'N' && i + 2 < len && s[i + 2] == '{') {
                /* \N{NAME}: an escape, not a field */
                size_t k = i + 3;
                while (k < len && s[k] != '}' && s[k] != '\n' && s[k] != q)
                    k++;
                if (k >= len || s[k] != '}')
                    return -1;
                i = k + 1;
                continue;
            }
            if (e == '\n')
                sc->row++;
            i += 2;
        } else if (c == '\n') {
            if (!triple)
                return -1;
            sc->row++;
            i++;
        } else if (c == q) {
            if (!triple)
                return (long)i + 1;
            if (i + 2 < len && s[i + 1] == q && s[i + 2] == q)
                return (long)i + 3;
            i++;
        } else if (fstr && c == '{') {
            if (i + 1 < len && s[i + 1] == '{') {
                i += 2;
                continue;
            }
            long e = field_at(sc, i + 1, q, triple, nest);
            if (e < 0)
                return -1;
            i = (size_t)e;
        } else {
            i++;
        }
    }
    return -1;
}

/* One of words[0..n) at s[i..], a whole word. */
static bool word_at(const scan *sc, size_t i, const char *const *words, size_t n)
{
    for (size_t w = 0; w < n; w++) {
        size_t k = strlen(words[w]);
        if (i + k <= sc->len && !memcmp(sc->s + i, words[w], k) &&
            (i + k == sc->len || !ident_byte((unsigned char)sc->s[i + k])))
            return true;
    }
    return false;
}

static const char *const clauses[] = {"else", "elif", "except", "finally"};
#define N_CLAUSES (sizeof(clauses) / sizeof(clauses[0]))

/* A word at s[i..] that continues the statement before at column 0. */
static bool clause_at(const scan *sc, size_t i)
{
    return word_at(sc, i, clauses, N_CLAUSES);
}

/* A compound statement's header starts at s[i..] (or a clause's): its body may
 * be indented on the lines after it. */
static bool compound_at(const scan *sc, size_t i)
{
    static const char *const words[] = {"if",   "for",   "while",  "try",    "with",
                                        "def",  "class", "async",  "match",  "case",
                                        "else", "elif",  "except", "finally"};
    return word_at(sc, i, words, sizeof(words) / sizeof(words[0]));
}

int py_top_split(const char *src, size_t len, py_top **tops, size_t *n)
{
    *tops = NULL;
    *n = 0;
    if (len > UINT32_MAX / 2 || memchr(src, '\r', len) || memchr(src, '\0', len) ||
        (len >= 3 && !memcmp(src, "\xef\xbb\xbf", 3)))
        return PGCI_EUNSUPPORTED;
    VEC(py_top) out = VEC_INIT;
    scan sc = {src, len, 0};
    int depth = 0;
    bool line_start = true, continued = false, decorator = false;
    /* header: in the first logical line of a compound statement (or a clause of
     * it); compound: that line ended with ':' (a body may follow, indented) */
    bool header = false, compound = false;
    char last = 0; /* the last byte of code of the logical line */
    size_t i = 0;
    while (i < len) {
        char c = src[i];
        if (line_start) {
            line_start = false;
            if (depth == 0 && !continued) {
                if (((unsigned char)c < 0x20 && c != '\t' && c != '\n') || c == '\\')
                    goto decline; /* a control byte, or a line joined to the next */
                if (c == ' ' || c == '\t') {
                    /* an indented line of code belongs to a compound statement's
                     * body: after a simple one, CPython refuses it and
                     * tree-sitter reads a statement of its own */
                    size_t k = i;
                    while (k < len && (src[k] == ' ' || src[k] == '\t' || src[k] == '\f'))
                        k++;
                    if (k < len && src[k] != '\n' && src[k] != '#' && !compound)
                        goto decline;
                }
                if (c != '\n' && c != ' ' && c != '\t' && c != '#') {
                    /* code at column 0 */
                    if (!(out.len && (decorator || clause_at(&sc, i)))) {
                        py_top t = {(uint32_t)i, (uint32_t)i, sc.row};
                        VEC_PUSH(&out, t);
                    }
                    decorator = c == '@';
                    header = compound_at(&sc, i);
                    compound = false;
                    last = 0;
                }
            }
            continued = false;
        }
        switch (c) {
        case '\n':
            if (header && depth == 0) {
                /* the end of a header's logical line */
                compound = last == ':';
                header = false;
            }
            sc.row++;
            line_start = true;
            i++;
            continue;
        case ' ':
        case '\t':
        case '\f':
            i++;
            continue;
        case '#': {
            const char *nl = memchr(src + i, '\n', len - i);
            i = nl ? (size_t)(nl - src) : len;
            continue;
        }
        case '\\':
            if (i + 1 < len && src[i + 1] == '\n') {
                continued = true;
                sc.row++;
                line_start = true;
                i += 2;
                continue;
            }
            goto decline; /* a backslash outside a string ends no line */
        case '\'':
        case '"': {
            long e = string_at(&sc, i, 0, 0);
            if (e < 0)
                goto decline;
            i = (size_t)e;
            break;
        }
        case '(':
        case '[':
        case '{':
            depth++;
            i++;
            break;
        case ')':
        case ']':
        case '}':
            if (--depth < 0)
                goto decline;
            i++;
            break;
        default:
            i++;
            break;
        }
        /* a byte of code: the statement's so far */
        if (!out.len)
            goto decline; /* code before the first statement: an indented line */
        out.items[out.len - 1].code_end = (uint32_t)i;
        last = src[i - 1];
    }
    if (depth || continued)
        goto decline;
    *tops = out.items;
    *n = out.len;
    return 0;
decline:
    VEC_FREE(&out);
    return PGCI_EUNSUPPORTED;
}
