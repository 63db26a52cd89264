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
#include "py/py.h"

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
    if (i >= sc->len || sc->s[i] < 'a' || sc->s[i] > 'z')
        return false; /* every keyword is lowercase */
    for (size_t w = 0; w < n; w++) {
        if (words[w][0] != sc->s[i])
            continue;
        size_t k = strlen(words[w]);
        if (i + k <= sc->len && !memcmp(sc->s + i, words[w], k) &&
            (i + k == sc->len || !ident_byte((unsigned char)sc->s[i + k])))
            return true;
    }
    return false;
}

/* in the order of the C_* bits below */
static const char *const clauses[] = {"elif", "else", "except", "finally"};
#define N_CLAUSES (sizeof(clauses) / sizeof(clauses[0]))

/* The clauses a statement may go on with, after its keyword (or its last
 * clause's) at s[i..]; (CPython refuses `def f(): pass` then `else:`, where
 * tree-sitter may read an else of its own). */
enum { C_ELIF = 1, C_ELSE = 2, C_EXCEPT = 4, C_FINALLY = 8 };

static unsigned clauses_after(const scan *sc, size_t i)
{
    static const struct {
        const char *word;
        unsigned next;
    } t[] = {{"if", C_ELIF | C_ELSE},
             {"elif", C_ELIF | C_ELSE},
             {"for", C_ELSE},
             {"while", C_ELSE},
             {"try", C_EXCEPT | C_FINALLY},
             {"except", C_EXCEPT | C_ELSE | C_FINALLY}};
    for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
        if (word_at(sc, i, &t[k].word, 1))
            return t[k].next;
    return 0;
}

/* The clause at s[i..] (one of C_*), 0 for none. */
static unsigned clause_kind(const scan *sc, size_t i)
{
    for (size_t k = 0; k < N_CLAUSES; k++)
        if (word_at(sc, i, &clauses[k], 1))
            return 1u << k;
    return 0;
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

/* The deepest indentation this scan follows. */
#define MAX_INDENT 100

/* The scan of one split: where it is, and what it has found. */
typedef struct splitter {
    scan sc;
    VEC(py_top) out;
    size_t base;                 /* the statements' column (SIZE_MAX: the first line's) */
    size_t cols[MAX_INDENT + 1]; /* the open blocks' columns, base's first */
    int open;
    int depth; /* brackets */
    bool decorator;
    /* in a logical line: stmt, at the statements' column; header, that starts
     * a compound statement or a clause (the keyword), class a class */
    bool stmt, header, class;
    bool opens;      /* the logical line before ended a header: a block opens */
    unsigned may;    /* the clauses the statement may go on with (C_*) */
    char last;       /* the last byte of code of the logical line */
    unsigned colons; /* its colons outside brackets (not :=) */
} splitter;

/* A logical line's indentation, as CPython's tokenizer takes it: an indented
 * block only after a header's colon, a dedent only to an enclosing block's
 * column. w is its width; 0, or -1 to decline. */
static int indent_line(splitter *p, size_t w)
{
    if (p->base == SIZE_MAX) {
        /* a body's first line of code: its column */
        if (!w)
            return -1;
        p->base = p->cols[0] = w;
    } else if (p->opens) {
        if (w <= p->cols[p->open] || p->open == MAX_INDENT)
            return -1; /* "expected an indented block" */
        p->cols[++p->open] = w;
    } else if (w > p->cols[p->open]) {
        return -1; /* "unexpected indent" */
    } else {
        while (p->open > 0 && w < p->cols[p->open])
            p->open--;
        if (w != p->cols[p->open])
            return -1; /* "unindent does not match" */
    }
    return 0;
}

/* The start of a logical line of code at k (its indentation from i): a
 * statement at the statements' column, a clause or a decorated definition's
 * next line, or a line inside one. 0, or -1 to decline. */
static int begin_line(splitter *p, size_t i, size_t k)
{
    const char *src = p->sc.s;
    char c = src[k];
    if ((unsigned char)c < 0x20 || c == '\\')
        return -1; /* a control byte, or a line joined to the next */
    if (indent_line(p, k - i) < 0)
        return -1;
    p->stmt = k - i == p->base;
    p->header = compound_at(&p->sc, k);
    p->last = 0;
    p->colons = 0;
    if (!p->stmt)
        return 0;
    unsigned cl = clause_kind(&p->sc, k);
    if (cl && !p->decorator) {
        if (!(p->may & cl))
            return -1;
        /* else after a try's except: only finally may follow */
        p->may = cl == C_ELSE && (p->may & C_EXCEPT) ? C_FINALLY : clauses_after(&p->sc, k);
    } else if (!p->decorator) {
        p->may = clauses_after(&p->sc, k);
    }
    if (!(p->out.len && (p->decorator || cl))) {
        py_top t = {(uint32_t)k, (uint32_t)k, p->sc.row, 0, 0};
        VEC_PUSH(&p->out, t);
    }
    p->decorator = c == '@';
    p->class = p->header && word_at(&p->sc, k, (const char *const[]){"class"}, 1);
    return 0;
}

/* 1 when the logical line ends where Python wants more: after an operator, a
 * comma (`import a,`) or a keyword that takes an operand. Python refuses the
 * text; tree-sitter reads on into the next line, which is no statement of its own
 * there. */
static bool incomplete(const splitter *p)
{
    static const char *const words[] = {"and",    "as",       "assert", "async",  "await",  "class",
                                        "def",    "del",      "elif",   "else",   "except", "for",
                                        "from",   "global",   "if",     "import", "in",     "is",
                                        "lambda", "nonlocal", "not",    "or",     "while",  "with"};
    const char *src = p->sc.s;
    size_t e = p->out.items[p->out.len - 1].code_end, b;
    if (p->last == '*' || p->last == '.') {
        /* `from m import *`, an ellipsis, a float such as `1.` */
        b = e - 1;
        if (p->last == '.' && b > 0 && src[b - 1] == '.')
            return false;
        while (p->last == '*' && b > 0 && src[b - 1] == ' ')
            b--;
        size_t w = b;
        while (w > 0 && ident_byte((unsigned char)src[w - 1]))
            w--;
        if (p->last == '*')
            return !(b - w == 6 && !memcmp(src + w, "import", 6));
        return !(w < b && src[w] >= '0' && src[w] <= '9');
    }
    if (p->last && strchr("=+-/%@&|^~<>!,", p->last))
        return true;
    if (!ident_byte((unsigned char)p->last))
        return false;
    b = e;
    while (b > 0 && ident_byte((unsigned char)src[b - 1]))
        b--;
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
        if (strlen(words[w]) == e - b && !memcmp(src + b, words[w], e - b))
            return true;
    return false;
}

/* The end of a logical line, its newline just read (i after it). A colon ends a
 * compound statement's header, once: after its first it is an inline body's, and
 * on a simple statement nothing's (CPython refuses `class A: x:` and `x = e:`,
 * where tree-sitter reads on). 0, or -1 to decline. */
static int end_line(splitter *p, size_t i)
{
    if (p->colons > 1 || (!p->header && p->last == ':') || incomplete(p))
        return -1;
    p->opens = p->header && p->last == ':';
    py_top *t = &p->out.items[p->out.len - 1];
    if (p->opens && p->stmt && p->class && !t->body) {
        t->body = (uint32_t)i;
        t->body_row = p->sc.row;
    }
    p->last = 0;
    return 0;
}

/* A byte of code that step() only steps over: not a blank, line break, comment,
 * backslash, quote, bracket, colon or semicolon. */
static bool plain_byte(char c)
{
    static const bool special[256] = {
        ['\0'] = 1, ['\n'] = 1, [' '] = 1, ['\t'] = 1, ['\f'] = 1, ['#'] = 1,
        ['\\'] = 1, ['\''] = 1, ['"'] = 1, ['('] = 1,  ['['] = 1,  ['{'] = 1,
        [')'] = 1,  [']'] = 1,  ['}'] = 1, [':'] = 1,  [';'] = 1};
    return !special[(unsigned char)c];
}

/* One byte (or string, or comment) of a logical line at i: the offset after it,
 * or -1 to decline. */
static long step(splitter *p, size_t i, bool *line_start, bool *continued)
{
    const char *src = p->sc.s;
    size_t to = p->sc.len;
    switch (src[i]) {
    case '\n':
        p->sc.row++;
        *line_start = true;
        if (p->depth == 0 && p->last && end_line(p, i + 1) < 0)
            return -1;
        return (long)i + 1;
    case ' ':
    case '\t':
    case '\f':
        return (long)i + 1;
    case '#': {
        const char *nl = memchr(src + i, '\n', to - i);
        return nl ? nl - src : (long)to;
    }
    case '\\':
        if (i + 1 < to && src[i + 1] == '\n') {
            *continued = true;
            p->sc.row++;
            *line_start = true;
            return (long)i + 2;
        }
        return -1; /* a backslash outside a string ends no line */
    case '\'':
    case '"':
        return string_at(&p->sc, i, 0, 0);
    case '(':
    case '[':
    case '{':
        p->depth++;
        return (long)i + 1;
    case ')':
    case ']':
    case '}':
        return --p->depth < 0 ? -1 : (long)i + 1;
    case ':':
        p->colons += p->depth == 0 && !(i + 1 < to && src[i + 1] == '=');
        return (long)i + 1;
    case ';':
        /* `a; b`: tree-sitter's statements, one line (fuzz_pytop's find) */
        return p->depth == 0 ? -1 : (long)i + 1;
    default:
        return (long)i + 1;
    }
}

/* The statements of src[from..to) at one indentation: column 0 (body false), or
 * the indentation of its first line of code, which must be deeper (a class's
 * body). row is from's row. Every logical line's indentation is checked as
 * CPython's tokenizer checks it: where Python refuses the text, tree-sitter may
 * still read it, and not always as statements of their own where this scan would
 * see them. */
static int split(const char *src, size_t from, size_t to, uint32_t row, bool body, py_top **tops,
                 size_t *n)
{
    *tops = NULL;
    *n = 0;
    splitter *p = pgci_calloc(1, sizeof(*p));
    p->sc = (scan){src, to, row};
    p->base = body ? SIZE_MAX : 0;
    bool line_start = true, continued = false;
    size_t i = from;
    while (i < to) {
        if (line_start && p->depth == 0 && !continued) {
            line_start = false;
            size_t k = i;
            while (k < to && src[k] == ' ')
                k++;
            char c = k < to ? src[k] : '\n';
            if (c == '\t' || c == '\f' || c == '\v')
                goto decline; /* tabs and form feeds: other columns for CPython */
            if (c != '\n' && c != '#' && begin_line(p, i, k) < 0)
                goto decline;
            i = k;
            continue;
        }
        line_start = continued = false;
        char c = src[i];
        if (plain_byte(c)) {
            /* a run of code bytes and blanks that step() would take one by one */
            if (!p->out.len)
                goto decline; /* code before the first statement */
            size_t code = i++;
            while (i < to && (plain_byte(src[i]) || src[i] == ' '))
                if (src[i++] != ' ')
                    code = i - 1;
            p->out.items[p->out.len - 1].code_end = (uint32_t)code + 1;
            p->last = src[code];
            continue;
        }
        long e = step(p, i, &line_start, &continued);
        if (e < 0)
            goto decline;
        i = (size_t)e;
        if (c == '\n' || c == ' ' || c == '\t' || c == '\f' || c == '#' || line_start)
            continue;
        /* a byte of code: the statement's so far */
        if (!p->out.len)
            goto decline; /* code before the first statement */
        p->out.items[p->out.len - 1].code_end = (uint32_t)i;
        p->last = src[i - 1];
    }
    /* an open bracket or backslash; a header with no body (or the last line's
     * colon, read as at a line's end) */
    if (p->depth || continued || p->opens || (p->last && (p->colons > 1 || p->last == ':')))
        goto decline;
    *tops = p->out.items;
    *n = p->out.len;
    free(p);
    return 0;
decline:
    VEC_FREE(&p->out);
    free(p);
    return PGCI_EUNSUPPORTED;
}

static bool readable(const char *src, size_t len)
{
    /* a character tree-sitter skips as blank where the scan sees code: a statement
     * whose line starts with one starts past it in the tree (fuzz_pytop: a byte
     * order mark on line 2); the real corpus has none anywhere */
    return len <= UINT32_MAX / 2 && !memchr(src, '\r', len) && !memchr(src, '\0', len) &&
           !py_next_ts_blank(src, src + len, NULL);
}

int py_top_split(const char *src, size_t len, py_top **tops, size_t *n)
{
    *tops = NULL;
    *n = 0;
    if (!readable(src, len))
        return PGCI_EUNSUPPORTED;
    return split(src, 0, len, 0, false, tops, n);
}

int py_top_split_body(const char *src, size_t len, const py_top *t, size_t end, py_top **members,
                      size_t *n)
{
    *members = NULL;
    *n = 0;
    if (!t->body || t->body > end || end > len || !readable(src, len))
        return PGCI_EUNSUPPORTED;
    return split(src, t->body, end, t->body_row, true, members, n);
}
