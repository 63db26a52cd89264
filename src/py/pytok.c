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
#include <utf8proc.h>

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
    size_t stmt_at;     /* the logical line's first token, and its line */
    unsigned stmt_line;
    size_t hdr_at; /* the last logical line that ended with ':' (a header): the same */
    unsigned hdr_line;
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
    /* a character past ASCII after it starts a name (verify_end_of_number's
     * c < 128): "1\u200b" is refused for the character, "1é" by the parser */
    if ((unsigned char)s[j] < 0x80 && is_ident((unsigned char)s[j]) && !keyword_after_number(s + j))
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

/* What CPython's "expected an indented block" adds after the header at `at` on
 * `line` (" after 'if' statement on line 3", " after function definition on line
 * 3"), into out[0..cap); "" for a line no compound statement starts. */
static void after_header(const char *s, size_t at, unsigned line, char *out, size_t cap)
{
    static const char *const kw[] = {"if",  "elif",   "else",    "while", "for", "with",
                                     "try", "except", "finally", "match", "case"};
    const char *p = s + at;
    size_t n = 0;
    out[0] = '\0';
    if (!strncmp(p, "async", 5) && (p[5] == ' ' || p[5] == '\t')) {
        p += 5;
        while (*p == ' ' || *p == '\t')
            p++;
    }
    while (is_ident((unsigned char)p[n]))
        n++;
    if (n == 3 && !strncmp(p, "def", 3)) {
        snprintf(out, cap, " after function definition on line %u", line);
        return;
    }
    if (n == 5 && !strncmp(p, "class", 5)) {
        snprintf(out, cap, " after class definition on line %u", line);
        return;
    }
    for (size_t k = 0; k < sizeof(kw) / sizeof(kw[0]); k++) {
        if (strlen(kw[k]) != n || strncmp(p, kw[k], n))
            continue;
        const char *q = p + n;
        while (*q == ' ' || *q == '\t')
            q++;
        int star = n == 6 && *q == '*'; /* except* */
        snprintf(out, cap, " after '%.*s%s' statement on line %u", (int)n, p, star ? "*" : "",
                 line);
        return;
    }
}

/* An indentation refusal of the logical line whose first token is at j, placed
 * and worded as CPython 3.11 reports it: TabError and "too many levels" at column
 * 1, a dedent to no outer level at the end of its line (ordered at its start),
 * "unexpected indent" at the indentation's width, "expected an indented block"
 * at the token, naming the header. -1 for a tokenizer error, which ends the scan. */
static int indent_error(scanner *sc, size_t j, const char *why, int parser)
{
    unsigned col = col_at(sc, j);
    if (!parser) {
        int dedent = !strcmp(why, "unindent does not match any outer indentation level");
        fail(&sc->out->error, sc->line, dedent ? col : 1, 0, "%s", why);
        if (dedent && sc->out->error.line == sc->line && !sc->out->error.shown_col)
            sc->out->error.shown_col = (unsigned)(strcspn(sc->s + sc->row, "\n") + 1);
        sc->out->error.late = 0; /* reported by the parser where it reaches it */
        return -1;
    }
    if (!strcmp(why, "unexpected indent"))
        return fail(&sc->out->parser_indent, sc->line, col - 1, 1, "%s", why);
    char after[80];
    after_header(sc->s, sc->hdr_at, sc->hdr_line, after, sizeof(after));
    return fail(&sc->out->parser_indent, sc->line, col, 1, "%s%s", why, after);
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
        if (why && indent_error(sc, j, why, parser) < 0)
            return -1;
        VEC_PUSH(&sc->out->lines, j);
        sc->last = 0;
        sc->stmt_at = j;
        sc->stmt_line = sc->line;
    }
    sc->i = j;
    return code;
}

/* Whether Python 3.11 does not print code point cp (Py_UNICODE_ISPRINTABLE):
 * its general category is Cc, Cf, Cs, Co, Cn, Zl, Zp or Zs. None of them can be
 * in an identifier. utf8proc's tables are Unicode 15's, Python 3.11's 14's: a
 * code point assigned since (4,482 of them) reads printable here, unprintable
 * there, so the test errs towards accepting; none the other way. */
static int unprintable(utf8proc_int32_t cp)
{
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_ZS:
        return 1;
    default:
        return 0;
    }
}

/* Whether code point cp, which prints, is certainly no identifier's: a symbol,
 * punctuation but a connector, another number or an enclosing mark, less the
 * few Unicode adds to identifiers anyway (Other_ID_Start, Other_ID_Continue).
 * Checked against Python 3.11 on every code point: none of them is one its
 * identifiers may hold. Letters and marks are left to the parser. */
static int never_in_name(utf8proc_int32_t cp)
{
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_SM:
    case UTF8PROC_CATEGORY_SC:
    case UTF8PROC_CATEGORY_SK:
    case UTF8PROC_CATEGORY_SO:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_ME:
        return cp != 0xB7 && cp != 0x387 && !(cp >= 0x1369 && cp <= 0x1371) && cp != 0x19DA &&
               cp != 0x2118 && cp != 0x212E;
    default:
        return 0;
    }
}

/* A name's bytes [a, b) as CPython's verify_identifier() refuses them: at the
 * first character no identifier may hold, "invalid non-printable character
 * U+200B" or "invalid character '€' (U+20AC)", at its column. tree-sitter-python
 * skips four unprintable ones as blank (U+000B, U+FEFF, U+2060, U+200B: a config
 * holding one parsed clean) and stops on the others with its own "invalid
 * syntax". A character this cannot tell (a letter or mark Python's tables may
 * not take) is passed over and left to the parser, so where one comes first
 * CPython names it and this a later one (both refuse). */
static int bad_name_char(scanner *sc, size_t a, size_t b)
{
    for (size_t i = a; i < b;) {
        if ((unsigned char)sc->s[i] < 0x80) {
            i++;
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)sc->s + i, (utf8proc_ssize_t)(b - i), &cp);
        if (n <= 0)
            return 0; /* not UTF-8: pysrc_prepare refuses it first */
        if (unprintable(cp))
            return fail(&sc->out->error, sc->line, col_at(sc, i), 0,
                        "invalid non-printable character U+%04X", (unsigned)cp);
        if (never_in_name(cp))
            return fail(&sc->out->error, sc->line, col_at(sc, i), 0,
                        "invalid character '%.*s' (U+%04X)", (int)n, sc->s + i, (unsigned)cp);
        i += (size_t)n;
    }
    return 0;
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
        if (bad_name_char(sc, a, sc->i) < 0)
            return -1;
        if ((s[sc->i] == '"' || s[sc->i] == '\'') && string_prefix(s + a, sc->i - a))
            return scan_string(sc, a);
        return 0;
    }
    if (((unsigned char)c < 0x20 && c != '\0') || c == 0x7f)
        return fail(&sc->out->error, sc->line, col_at(sc, sc->i), 0,
                    "invalid non-printable character U+%04X", (unsigned)c);
    int r = strchr("()[]{}", c) ? scan_bracket(sc, c) : 0;
    sc->i++;
    return r;
}

/* A header ends the text: CPython reports the missing block at the end of the
 * text's last line (a final line break ends that line, it starts none). */
static void block_at_end(scanner *sc, int in_line)
{
    if (in_line) {
        sc->hdr_at = sc->stmt_at;
        sc->hdr_line = sc->stmt_line;
    }
    size_t end = sc->len && sc->s[sc->len - 1] == '\n' ? sc->len - 1 : sc->len, start = end;
    unsigned line = 1;
    while (start > 0 && sc->s[start - 1] != '\n')
        start--;
    for (size_t k = 0; k < start; k++)
        line += sc->s[k] == '\n';
    char after[80];
    after_header(sc->s, sc->hdr_at, sc->hdr_line, after, sizeof(after));
    fail(&sc->out->parser_indent, line, (unsigned)(end - start) + 1, 1,
         "expected an indented block%s", after);
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
                if (opens) {
                    sc->hdr_at = sc->stmt_at;
                    sc->hdr_line = sc->stmt_line;
                }
            }
            newline(sc);
            sc->i++;
            at_start = 1;
            continue;
        }
        r = scan_token(sc);
    }
    if (r == 0 && sc->level == 0 && (in_line ? sc->last == ':' : opens))
        block_at_end(sc, in_line);
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
