/*
 * pytok.c - CPython 3.11's tokenizer, as far as it refuses source.
 *
 * One pass over the bytes: comments, strings (prefixes, triple quotes, backslash
 * escapes), numbers (only to refuse leading zeros), brackets (a stack, for
 * "unmatched ')'" and "'(' was never closed"), backslash continuations, and the
 * indentation of each logical line (Parser/tokenizer.c's two columns). The
 * tokenizer stops at its first error; the parser's indentation rules
 * ("unexpected indent", "expected an indented block") are noted and the scan goes
 * on, because CPython reports a tokenizer error found later instead of most
 * parser errors (_PyPegen_tokenize_full_source_to_check_for_errors).
 */
#include "py/pytok.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pytok_indent_line(pytok_indent *s, const char *line, int opens_block, int *parser)
{
    int col = 0, alt = 0;
    for (const char *p = line;; p++) {
        if (*p == ' ')
            col++, alt++;
        else if (*p == '\t')
            col = (col / 8 + 1) * 8, alt++;
        else if (*p == '\f')
            col = alt = 0;
        else
            break;
    }
    const char *tab = "inconsistent use of tabs and spaces in indentation";
    *parser = 1;
    if (col == s->col[s->top]) {
        if (alt != s->alt[s->top])
            return *parser = 0, tab;
        return opens_block ? "expected an indented block" : NULL;
    }
    if (col > s->col[s->top]) {
        if (s->top + 1 >= PYTOK_MAX_INDENT)
            return *parser = 0, "too many levels of indentation";
        if (alt <= s->alt[s->top])
            return *parser = 0, tab;
        s->top++;
        s->col[s->top] = col;
        s->alt[s->top] = alt;
        return opens_block ? NULL : "unexpected indent";
    }
    while (s->top > 0 && col < s->col[s->top])
        s->top--;
    if (col != s->col[s->top])
        return *parser = 0, "unindent does not match any outer indentation level";
    if (alt != s->alt[s->top])
        return *parser = 0, tab;
    return opens_block ? "expected an indented block" : NULL;
}

#define MAX_BRACKETS 1024 /* deeper ones are counted, not kept (pysrc refuses > 200) */

typedef struct scanner {
    const char *s;
    size_t len, i;
    unsigned line;
    size_t row; /* offset of the current row's first byte */
    struct {
        char c;
        unsigned line, col;
    } br[MAX_BRACKETS];
    size_t level;
    pytok_indent ind;
    char last;          /* the last byte of code of the logical line */
    unsigned last_line; /* its line */
    pytok_result *out;
} scanner;

static unsigned col_at(const scanner *sc, size_t off)
{
    return (unsigned)(off - sc->row) + 1;
}

/* Records an error (the first of its kind); returns -1 for a tokenizer error,
 * which ends the scan. */
static int fail(pytok_error *e, unsigned line, unsigned col, int parser, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(pytok_error *e, unsigned line, unsigned col, int parser, const char *fmt, ...)
{
    if (!e->line) {
        e->line = line;
        e->col = col;
        e->parser = parser;
        e->late = !parser;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->why, sizeof(e->why), fmt, ap);
        va_end(ap);
    }
    return parser ? 0 : -1;
}

static void newline(scanner *sc)
{
    sc->line++;
    sc->row = sc->i + 1;
}

static int is_ident(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A string whose quote is at sc->i (its prefix from start). */
static int scan_string(scanner *sc, size_t start)
{
    const char *s = sc->s;
    unsigned line = sc->line, col = col_at(sc, start);
    char q = s[sc->i];
    int triple = s[sc->i + 1] == q && s[sc->i + 2] == q;
    sc->i += triple ? 3 : 1;
    for (;;) {
        if (sc->i >= sc->len || (!triple && s[sc->i] == '\n'))
            return fail(&sc->out->error, line, col, 0,
                        "unterminated %sstring literal (detected at line %u)",
                        triple ? "triple-quoted " : "",
                        sc->line -
                            (sc->row == sc->len && sc->line > 1)); /* not the empty last row */
        char c = s[sc->i];
        if (c == '\\') {
            sc->i++;
            if (sc->i < sc->len && s[sc->i] == '\n')
                newline(sc);
            if (sc->i < sc->len)
                sc->i++;
            continue;
        }
        if (c == '\n')
            newline(sc);
        else if (c == q && (!triple || (s[sc->i + 1] == q && s[sc->i + 2] == q))) {
            sc->i += triple ? 3 : 1;
            return 0;
        }
        sc->i++;
    }
}

/* A string prefix CPython knows: r, u, b, f and rb, rf in any order and case. */
static int string_prefix(const char *p, size_t n)
{
    char a = (char)(p[0] | 0x20), b = n > 1 ? (char)(p[1] | 0x20) : 0;
    if (n == 1)
        return strchr("rubf", a) != NULL;
    return n == 2 && ((a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f')));
}

/* Whether the identifier at p may follow a number: the keywords CPython 3.11
 * still accepts there ("1if x else 2", with a DeprecationWarning). */
static int keyword_after_number(const char *p)
{
    static const char *const kw[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
        size_t n = strlen(kw[i]);
        if (!strncmp(p, kw[i], n) && !is_ident((unsigned char)p[n]))
            return 1;
    }
    return 0;
}

static size_t digits(const char *s, size_t j, const char *set)
{
    while (s[j] && (strchr(set, s[j]) || (s[j] == '_' && s[j + 1] && strchr(set, s[j + 1]))))
        j++;
    return j;
}

/* A number at sc->i, refused as CPython's tokenizer refuses it: leading zeros, a
 * base prefix without digits, a letter or '_' right after it. */
static int scan_number(scanner *sc)
{
    const char *s = sc->s;
    size_t a = sc->i, j = a;
    const char *kind = "decimal";
    char x = (char)(s[a + 1] | 0x20);
    if (s[a] == '0' && (x == 'x' || x == 'o' || x == 'b')) {
        const char *set = x == 'x' ? "0123456789abcdefABCDEF" : x == 'o' ? "01234567" : "01";
        kind = x == 'x' ? "hexadecimal" : x == 'o' ? "octal" : "binary";
        j = a + 2;
        if (s[j] == '_')
            j++;
        size_t k = digits(s, j, set);
        j = k > j ? k : a + 1; /* no digit: refused below */
    } else {
        j = digits(s, a, "0123456789");
        int nonzero = 0;
        for (size_t k = a; s[a] == '0' && k < j; k++)
            nonzero |= s[k] >= '1' && s[k] <= '9';
        if (nonzero && !strchr(".eEjJ", s[j]))
            return fail(&sc->out->error, sc->line, col_at(sc, a), 0,
                        "leading zeros in decimal integer literals are not permitted; use an 0o "
                        "prefix for octal integers");
        if (s[j] == '.')
            j = digits(s, j + 1, "0123456789");
        if ((s[j] | 0x20) == 'e') { /* s[j + 1] is in the text or its NUL */
            size_t e = j + 1 + (s[j + 1] == '+' || s[j + 1] == '-');
            if (is_digit(s[e]))
                j = digits(s, e, "0123456789");
        }
        if ((s[j] | 0x20) == 'j')
            j++;
    }
    if (is_ident((unsigned char)s[j]) && !keyword_after_number(s + j))
        return fail(&sc->out->error, sc->line, col_at(sc, a), 0, "invalid %s literal", kind);
    sc->i = j;
    return 0;
}

static int scan_bracket(scanner *sc, char c)
{
    unsigned col = col_at(sc, sc->i);
    if (strchr("([{", c)) {
        if (sc->level < MAX_BRACKETS) {
            sc->br[sc->level].c = c;
            sc->br[sc->level].line = sc->line;
            sc->br[sc->level].col = col;
        }
        sc->level++;
        return 0;
    }
    if (sc->level == 0)
        return fail(&sc->out->error, sc->line, col, 0, "unmatched '%c'", c);
    sc->level--;
    if (sc->level >= MAX_BRACKETS)
        return 0;
    char o = sc->br[sc->level].c;
    if ((o == '(' && c == ')') || (o == '[' && c == ']') || (o == '{' && c == '}'))
        return 0;
    if (sc->br[sc->level].line != sc->line)
        return fail(&sc->out->error, sc->line, col, 0,
                    "closing parenthesis '%c' does not match opening parenthesis '%c' on line %u",
                    c, o, sc->br[sc->level].line);
    return fail(&sc->out->error, sc->line, col, 0,
                "closing parenthesis '%c' does not match opening parenthesis '%c'", c, o);
}

/* At the start of a row that may start a logical line: its indentation, unless it
 * holds no code. Returns 1 when a logical line starts, -1 on a tokenizer error. */
static int scan_line_start(scanner *sc, int opens)
{
    size_t j = sc->i;
    while (sc->s[j] == ' ' || sc->s[j] == '\t' || sc->s[j] == '\f')
        j++;
    int code = j < sc->len && sc->s[j] != '#' && sc->s[j] != '\n' && sc->s[j] != '\\';
    if (code) {
        int parser = 0;
        const char *why = pytok_indent_line(&sc->ind, sc->s + sc->i, opens, &parser);
        if (why && fail(parser ? &sc->out->parser_indent : &sc->out->error, sc->line, col_at(sc, j),
                        parser, "%s", why) < 0) {
            sc->out->error.late = 0; /* reported by the parser where it reaches it */
            return -1;
        }
        VEC_PUSH(&sc->out->lines, j);
        sc->last = 0;
    }
    sc->i = j;
    return code;
}

/* One token (or byte of white space) at sc->i, not at a row's start. */
static int scan_token(scanner *sc)
{
    const char *s = sc->s;
    char c = s[sc->i];
    if (c == '#') {
        while (sc->i < sc->len && s[sc->i] != '\n')
            sc->i++;
        return 0;
    }
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        sc->i++;
        return 0;
    }
    if (c == '\\') {
        if (s[sc->i + 1] != '\n')
            return fail(&sc->out->error, sc->line, col_at(sc, sc->i), 0,
                        "unexpected character after line continuation character");
        sc->i++;
        newline(sc);
        sc->i++;
        return 0;
    }
    sc->last = c;
    sc->last_line = sc->line;
    if (c == '"' || c == '\'')
        return scan_string(sc, sc->i);
    if (is_digit(c) || (c == '.' && is_digit(s[sc->i + 1])))
        return scan_number(sc);
    if (is_ident((unsigned char)c)) {
        size_t a = sc->i;
        while (sc->i < sc->len && is_ident((unsigned char)s[sc->i]))
            sc->i++;
        if ((s[sc->i] == '"' || s[sc->i] == '\'') && string_prefix(s + a, sc->i - a))
            return scan_string(sc, a);
        return 0;
    }
    int r = strchr("()[]{}", c) ? scan_bracket(sc, c) : 0;
    sc->i++;
    return r;
}

int pytok_scan(const char *src, size_t len, pytok_result *out)
{
    memset(out, 0, sizeof(*out));
    scanner *sc = pgci_calloc(1, sizeof(*sc));
    sc->s = src;
    sc->len = len;
    sc->line = 1;
    sc->out = out;
    int at_start = 1, in_line = 0, opens = 0, r = 0;
    while (r == 0) {
        if (at_start && sc->level == 0) {
            r = scan_line_start(sc, opens);
            if (r < 0)
                break;
            in_line |= r;
            r = 0;
        }
        at_start = 0;
        if (sc->i >= sc->len)
            break;
        if (src[sc->i] == '\n') {
            if (sc->level == 0 && in_line) {
                opens = sc->last == ':';
                in_line = 0;
            }
            newline(sc);
            sc->i++;
            at_start = 1;
            continue;
        }
        r = scan_token(sc);
    }
    if (r == 0 && sc->level == 0 && (in_line ? sc->last == ':' : opens))
        fail(&out->parser_indent, sc->last_line, 1, 1, "expected an indented block");
    if (r == 0 && sc->level > 0) {
        size_t k = sc->level <= MAX_BRACKETS ? sc->level - 1 : MAX_BRACKETS - 1;
        fail(&out->unclosed, sc->br[k].line, sc->br[k].col, 1, "'%c' was never closed",
             sc->br[k].c);
    }
    free(sc);
    return out->error.line || out->parser_indent.line || out->unclosed.line;
}

void pytok_result_free(pytok_result *r)
{
    VEC_FREE(&r->lines);
}
