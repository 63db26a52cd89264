/*
 * config_parse.c - what CPython's parser refuses in one node of a tree that
 * tree-sitter-python parsed without error.
 *
 *   x.None = 1, def f(None):   a keyword where tree-sitter read a name: CPython's
 *                              tokenizer makes it a keyword, its parser stops there
 *   b'a' 'b'                   cannot mix bytes and nonbytes literals
 *   b'\xe9' (the byte itself)  bytes can only contain ASCII literal characters
 *   f"{a!z}", f"{a!r }"        Python 3.11's f-string rules (Parser/string_parser.c):
 *                              the conversion, '}' after it, nesting, a backslash or
 *                              '#' in an expression, Python 3.12's nested quotes
 *   "\x4", b"\x4"              an escape Python cannot decode (a \N{NAME}'s name is
 *                              not looked up: pgci has no table of the names)
 *   f(a for a in b, c)         Generator expression must be parenthesized
 *   [a for a in b, c]          invalid syntax (tree-sitter takes a Python 2 tuple)
 *   return y := 1              an assignment expression where the grammar takes
 *                              none: invalid syntax at the `:=`, or its message
 *                              where an invalid_* rule reads it
 *
 * The string rules run in CPython's parser action that concatenates the literals,
 * and its errors point at the token after the last one (the one the parser read
 * to know the literals ended); an error in an f-string's expression is its
 * sub-parser's, which points into "(" + the expression + ")" from the string's
 * line ("f-string: invalid syntax").
 */
#include <stdio.h>
#include <string.h>

#include "core/vec.h"
#include "patchgen/config_compile.h"
#include "patchgen/config_internal.h"

static int is(TSNode n, const char *type)
{
    return !strcmp(ts_node_type(n), type);
}

int cc_is_keyword(const char *s, size_t n)
{
    /* by length: the walk asks this of every name */
    static const char *const by_len[9] = {NULL,
                                          NULL,
                                          "as if in is or ",
                                          "and def del for not try ",
                                          "None True elif else from pass with ",
                                          "False async await break class raise while yield ",
                                          "assert except global import lambda return ",
                                          "finally ",
                                          "continue nonlocal "};
    if (n < 2 || n > 8)
        return 0;
    for (const char *k = by_len[n]; *k; k += n + 1)
        if (k[0] == s[0] && !memcmp(k, s, n))
            return 1;
    return 0;
}

/* An error: at a byte of the source, or (mapped) at a point already. */
typedef struct perr {
    int mapped;
    uint32_t at;
    TSPoint pt;
    char why[200];
} perr;

static int fail(perr *e, uint32_t at, const char *prefix, const char *why)
{
    e->mapped = 0;
    e->at = at;
    snprintf(e->why, sizeof(e->why), "%s%s", prefix, why);
    return 1;
}

/* The point of byte `at`, counted on from byte `from` at point p. */
static TSPoint point_of(const py_tree *t, uint32_t from, TSPoint p, uint32_t at)
{
    for (uint32_t i = from; i < at && i < t->len; i++) {
        if (t->src[i] == '\n')
            p.row++, p.column = 0;
        else
            p.column++;
    }
    return p;
}

/* Whether n, a descendant of up, is inside brackets up has. */
static int inside(TSNode up, TSNode n)
{
    uint32_t k = ts_node_child_count(up);
    if (k < 2)
        return 0;
    const char *first = ts_node_type(ts_node_child(up, 0));
    if (first[0] && !first[1] && strchr("([{", first[0]))
        return 1; /* a list, a call's arguments, a parenthesized expression... */
    if (is(up, "subscript"))
        return ts_node_start_byte(n) >= ts_node_end_byte(ts_node_child(up, 0));
    if (k > 16) /* a concatenation of many strings: no bracket of its own */
        return 0;
    int depth = 0;
    uint32_t at = ts_node_start_byte(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(up, i);
        if (ts_node_start_byte(c) >= at)
            break;
        const char *s = ts_node_type(c);
        if (s[0] && !s[1] && strchr("([{", s[0]))
            depth++;
        else if (s[0] && !s[1] && strchr(")]}", s[0]))
            depth--;
    }
    return depth > 0;
}

/* Whether n is inside brackets of its logical line (newlines there are no tokens). */
static int in_brackets(TSNode n)
{
    for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); n = up, up = ts_node_parent(up)) {
        const char *type = ts_node_type(up);
        if (!strcmp(type, "module") || !strcmp(type, "block"))
            return 0;
        if (inside(up, n))
            return 1;
    }
    return 0;
}

/* in_brackets(n), found once (*known: -1 until then). */
static int brackets_at(TSNode n, int *known)
{
    if (*known < 0)
        *known = in_brackets(n);
    return *known;
}

/* The byte where CPython's next token begins from byte i (`stop`: the end of an
 * f-string expression, where its sub-parser's ')' is): a NEWLINE token outside
 * brackets is where the comment or the line break is. */
static uint32_t next_token(const py_tree *t, TSNode n, uint32_t i, int *brackets, uint32_t stop)
{
    const char *s = t->src;
    while (i < t->len && i < stop) {
        char ch = s[i];
        if (ch == ' ' || ch == '\t' || ch == '\f' || ch == '\r')
            i++;
        else if (ch == '\\' && i + 1 < t->len && s[i + 1] == '\n')
            i += 2;
        else if (ch == '\\' && i + 2 < t->len && s[i + 1] == '\r' && s[i + 2] == '\n')
            i += 3;
        else if (ch == '#' && brackets_at(n, brackets))
            while (i < t->len && s[i] != '\n')
                i++;
        else if (ch == '\n' && brackets_at(n, brackets))
            i++;
        else
            break;
    }
    return i < stop ? i : stop;
}

/* A string literal's prefix at src[i..]: its length (0 when none) and flags. */
enum { S_BYTES = 1, S_RAW = 2, S_F = 4 };
static int string_prefix(const py_tree *t, uint32_t i, int *flags)
{
    int n = 0;
    *flags = 0;
    while (n < 3 && i + n < t->len && strchr("rRbBuUfF", t->src[i + n]) && t->src[i + n])
        n++;
    if (n > 2 || i + n >= t->len || (t->src[i + n] != '\'' && t->src[i + n] != '"'))
        return -1;
    int u = 0;
    for (int k = 0; k < n; k++) {
        char ch = (char)(t->src[i + k] | 0x20);
        int bit = ch == 'b' ? S_BYTES : ch == 'r' ? S_RAW : ch == 'f' ? S_F : 0;
        if (ch == 'u')
            u++;
        else if (*flags & bit)
            return -1;
        *flags |= bit;
    }
    if ((u && n > 1) || ((*flags & S_BYTES) && (*flags & S_F)))
        return -1;
    return n;
}

/* The end of the string token whose quote is at src[q] as Python 3.11's tokenizer
 * ends it (the first matching quote not escaped: it knows no nested f-string), or
 * 0 when it does not end. */
static uint32_t string_token_end(const py_tree *t, uint32_t q, uint32_t *body, uint32_t *body_end)
{
    const char *s = t->src;
    char quote = s[q];
    int triple = q + 2 < t->len && s[q + 1] == quote && s[q + 2] == quote;
    uint32_t i = q + (triple ? 3 : 1);
    *body = i;
    while (i < t->len) {
        if (s[i] == '\\') {
            i += 2;
        } else if (s[i] == quote &&
                   (!triple || (i + 2 < t->len && s[i + 1] == quote && s[i + 2] == quote))) {
            *body_end = i;
            return i + (triple ? 3 : 1);
        } else if (s[i] == '\n' && !triple) {
            return 0;
        } else {
            i++;
        }
    }
    return 0;
}

/* --- the f-string scanner of Python 3.11 (fstring_find_literal, _expr) -------- */

typedef struct fscan {
    const py_tree *t;
    TSNode string;       /* tree-sitter's node for the token (its interpolations) */
    uint32_t token, end; /* the token's first byte and the body's end */
    int raw;
    perr *e;
    uint32_t after; /* where the top-level errors point: the token after the literals */
} fscan;

static int parse_sub(const py_tree *t, TSNode n, uint32_t stop, perr *e);

/* The sub-parser's point for byte p of the expression that begins at r0: it parses
 * "(" + the expression + ")" from the line of the string's token (and the lines
 * before the '{'), its column the offset in that text. */
static void map_sub(const fscan *f, uint32_t r0, uint32_t p, perr *e)
{
    TSPoint at = ts_node_start_point(f->string);
    uint32_t from = ts_node_start_byte(f->string);
    for (uint32_t i = from; i < r0; i++)
        at.row += f->t->src[i] == '\n';
    uint32_t col = 1 + (p - r0);
    for (uint32_t i = r0; i < p; i++)
        if (f->t->src[i] == '\n')
            at.row++, col = p - i - 1;
    at.column = col;
    e->mapped = 1;
    e->pt = at;
}

/* The tree-sitter node of the expression that begins at byte r0 in the string. */
static int find_expr(TSNode n, uint32_t r0, uint32_t r1, TSNode *out)
{
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ts_node_end_byte(c) <= r0 || ts_node_start_byte(c) >= r1)
            continue;
        if ((is(c, "interpolation") || is(c, "format_expression")) &&
            ts_node_start_byte(c) + 1 == r0) {
            *out = ts_node_child_by_field_name(c, "expression", 10);
            return !ts_node_is_null(*out);
        }
        if (find_expr(c, r0, r1, out))
            return 1;
    }
    return 0;
}

/* tree-sitter's error in the expression x of an interpolation, between r0 and r1,
 * as the f-string's sub-parser reports it, which reads "(" + the expression + ")":
 * two expressions side by side ("invalid syntax. Perhaps you forgot a comma?" at
 * the first), one cut off (at the ')'), or at tree-sitter's error. */
static int expr_error(fscan *f, TSNode x, uint32_t r0, uint32_t r1)
{
    TSNode in = ts_node_parent(x);
    if (!ts_node_has_error(in))
        return 0;
    TSNode err = cc_deepest_error(in);
    uint32_t at = ts_node_start_byte(err);
    if (at < r0 || at > r1 || (at == r1 && !ts_node_is_missing(err)))
        return 0;       /* past the expression: the conversion's or the format spec's */
    uint32_t last = r1; /* the expression's end, without the spaces */
    while (last > r0 && strchr(" \t\f\r\n", f->t->src[last - 1]))
        last--;
    TSNode prev = ts_node_prev_named_sibling(err);
    if (is(err, "ERROR") && !ts_node_is_null(prev) && ts_node_child_count(err) > 0 &&
        !is(prev, "lambda") && !is(prev, "conditional_expression") &&
        ts_node_start_byte(prev) >= r0) {
        /* invalid_expression: a disjunction, and another expression after it */
        if (is(prev, "expression_list") && ts_node_named_child_count(prev) > 0)
            prev = ts_node_named_child(prev, ts_node_named_child_count(prev) - 1);
        TSNode first = ts_node_child(err, 0);
        if (is(first, "if") && ts_node_named_child_count(err) > 0)
            return fail(f->e, ts_node_start_byte(prev), "",
                        "expected 'else' after 'if' expression");
        if (ts_node_is_named(first))
            return fail(f->e, ts_node_start_byte(prev), "",
                        "invalid syntax. Perhaps you forgot a comma?");
    }
    if (ts_node_end_byte(err) >= last)
        at = r1;
    return fail(f->e, at, "", "invalid syntax");
}

/* The expression between r0 and r1: empty, or what its sub-parser refuses. */
static int compile_expr(fscan *f, uint32_t r0, uint32_t r1)
{
    const char *s = f->t->src;
    uint32_t i = r0;
    while (i < r1 && strchr(" \t\f\r\n", s[i]))
        i++;
    if (i == r1 && r1 < f->end && strchr("!:=", s[r1])) {
        char why[64];
        snprintf(why, sizeof(why), "f-string: expression required before '%c'", s[r1]);
        return fail(f->e, f->after, "", why);
    }
    if (i == r1)
        return fail(f->e, f->after, "", "f-string: empty expression not allowed");
    TSNode x;
    if (!find_expr(f->string, r0, r1, &x))
        return 0;
    int bad = 0;
    if (expr_error(f, x, r0, r1))
        bad = 1;
    else if (is(x, "lambda") && ts_node_end_byte(x) > r1) /* its ':' ends the expression */
        bad = fail(f->e, r1, "", "invalid syntax");
    else if (is(x, "list_splat"))
        bad = fail(f->e, ts_node_start_byte(x), "", "cannot use starred expression here");
    else if (ts_node_end_byte(x) > r1)
        return 0;
    if (bad || parse_sub(f->t, x, r1, f->e)) {
        char why[sizeof(f->e->why)];
        memcpy(why, f->e->why, sizeof(why));
        snprintf(f->e->why, sizeof(f->e->why), "f-string: %.180s", why);
        if (!f->e->mapped)
            map_sub(f, r0, f->e->at, f->e);
        return 1;
    }
    return 0;
}

static int find_literal_and_expr(fscan *f, uint32_t *str, int recurse);

static int hex_value(char ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* Python 3.11's decoding of a literal's escapes in src[a..b) (not raw): sets why on
 * one it cannot decode. Positions are in the text the decoder reads, where a str's
 * every non-ASCII character is a 10-byte \UXXXXXXXX and a backslash before one is
 * 6 bytes (decode_unicode_with_escapes). A \N{NAME}'s name is not looked up. */
static int bad_escape(const char *s, uint32_t a, uint32_t b, int bytes, char *why, size_t n)
{
    const char *codec = "(unicode error) 'unicodeescape' codec can't decode bytes in position";
    uint32_t pos = 0;
    for (uint32_t i = a; i < b;) {
        unsigned char ch = (unsigned char)s[i];
        if (!bytes && ch >= 0x80) {
            for (i++; i < b && ((unsigned char)s[i] & 0xC0) == 0x80; i++)
                ;
            pos += 10;
            continue;
        }
        if (ch != '\\' || i + 1 >= b) {
            i++, pos++;
            continue;
        }
        uint32_t start = pos;
        char c = s[i + 1];
        if (!bytes && (unsigned char)c >= 0x80) {
            i++, pos += 6;
            continue;
        }
        i += 2, pos += 2;
        int digits = c == 'x' ? 2 : bytes ? 0 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
        if (digits) {
            uint32_t v = 0;
            int k = 0;
            for (; k < digits && i < b && hex_value(s[i]) >= 0; k++, i++, pos++)
                v = v * 16 + (uint32_t)hex_value(s[i]);
            if (k < digits && bytes) {
                snprintf(why, n, "(value error) invalid \\x escape at position %u", start);
                return 1;
            }
            if (k < digits) {
                snprintf(why, n, "%s %u-%u: truncated \\%s escape", codec, start, pos - 1,
                         c == 'x'   ? "xXX"
                         : c == 'u' ? "uXXXX"
                                    : "UXXXXXXXX");
                return 1;
            }
            if (v > 0x10FFFF) {
                snprintf(why, n, "%s %u-%u: illegal Unicode character", codec, start, pos - 1);
                return 1;
            }
        } else if (c == 'N' && !bytes) {
            uint32_t name = i + 1;
            if (i < b && s[i] == '{') {
                i++, pos++;
                while (i < b && s[i] != '}')
                    i++, pos++;
            }
            if (i >= b || name > i || s[i] != '}' || i == name) {
                snprintf(why, n, "%s %u-%u: malformed \\N character escape", codec, start, pos - 1);
                return 1;
            }
            i++, pos++;
        }
    }
    return 0;
}

/* An f-string's literal text between a and b. */
static int decode(fscan *f, uint32_t a, uint32_t b)
{
    char why[200];
    if (f->raw || !bad_escape(f->t->src, a, b, 0, why, sizeof(why)))
        return 0;
    return fail(f->e, f->after, "", why);
}

/* The expression's end (fstring_find_expr's loop over its brackets and strings). */
static int scan_expr(fscan *f, uint32_t *str)
{
    const char *s = f->t->src;
    uint32_t end = f->end;
    char parens[200];
    int depth = 0;
    char quote = 0;
    int strtype = 0;
    for (; *str < end; (*str)++) {
        char ch = s[*str];
        if (ch == '\\')
            return fail(f->e, f->after, "", "f-string expression part cannot include a backslash");
        if (quote) {
            if (ch == quote) {
                if (strtype == 3) {
                    if (*str + 2 < end && s[*str + 1] == ch && s[*str + 2] == ch) {
                        *str += 2;
                        strtype = quote = 0;
                        continue;
                    }
                } else {
                    strtype = quote = 0;
                    continue;
                }
            }
            continue;
        }
        if (ch == '\'' || ch == '"') {
            if (*str + 2 < end && s[*str + 1] == ch && s[*str + 2] == ch) {
                strtype = 3;
                *str += 2;
            } else {
                strtype = 1;
            }
            quote = ch;
            continue;
        }
        if (ch == '[' || ch == '{' || ch == '(') {
            if (depth >= (int)sizeof(parens))
                return fail(f->e, f->after, "", "f-string: too many nested parenthesis");
            parens[depth++] = ch;
            continue;
        }
        if (ch == '#')
            return fail(f->e, f->after, "", "f-string expression part cannot include '#'");
        if (depth == 0 && strchr("!:}=<>", ch)) {
            if (*str + 1 < end) {
                char next = s[*str + 1];
                if (next == '=' && strchr("!=<>", ch)) {
                    (*str)++;
                    continue;
                }
            }
            if (ch == '>' || ch == '<')
                continue;
            break;
        }
        if (ch == ']' || ch == '}' || ch == ')') {
            char why[80];
            if (!depth) {
                snprintf(why, sizeof(why), "f-string: unmatched '%c'", ch);
                return fail(f->e, f->after, "", why);
            }
            char open = parens[--depth];
            if (!((open == '(' && ch == ')') || (open == '[' && ch == ']') ||
                  (open == '{' && ch == '}'))) {
                snprintf(why, sizeof(why),
                         "f-string: closing parenthesis '%c' does not match opening "
                         "parenthesis '%c'",
                         ch, open);
                return fail(f->e, f->after, "", why);
            }
        }
    }
    if (quote)
        return fail(f->e, f->after, "", "f-string: unterminated string");
    if (depth) {
        char why[40];
        snprintf(why, sizeof(why), "f-string: unmatched '%c'", parens[depth - 1]);
        return fail(f->e, f->after, "", why);
    }
    return 0;
}

/* fstring_find_expr: *str is just past the '{'. */
static int find_expr_part(fscan *f, uint32_t *str, int recurse)
{
    const char *s = f->t->src;
    uint32_t end = f->end;
    if (recurse >= 2)
        return fail(f->e, f->after, "", "f-string: expressions nested too deeply");
    uint32_t r0 = *str;
    if (scan_expr(f, str))
        return 1;
    const char *expecting = "f-string: expecting '}'";
    if (*str >= end)
        return fail(f->e, f->after, "", expecting);
    if (compile_expr(f, r0, *str))
        return 1;
    if (s[*str] == '=') {
        (*str)++;
        while (*str < end && strchr(" \t\n\r\f\v", s[*str]))
            (*str)++;
        if (*str >= end)
            return fail(f->e, f->after, "", expecting);
    }
    if (s[*str] == '!') {
        (*str)++;
        if (*str >= end)
            return fail(f->e, f->after, "", expecting);
        char conv = s[(*str)++];
        if (conv != 's' && conv != 'r' && conv != 'a')
            return fail(f->e, f->after, "",
                        "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    }
    if (*str >= end)
        return fail(f->e, f->after, "", expecting);
    if (s[*str] == ':') {
        (*str)++;
        /* the format spec: literals and expressions, one level deeper */
        for (;;) {
            int r = find_literal_and_expr(f, str, recurse + 1);
            if (r < 0)
                return 1;
            if (r == 0)
                break;
        }
    }
    if (*str >= end || s[*str] != '}')
        return fail(f->e, f->after, "", expecting);
    (*str)++;
    return 0;
}

/* fstring_find_literal then fstring_find_expr: -1 on an error, 1 when an
 * expression was read (more may follow), 0 at the end (of the string, or of a
 * format spec at its '}'). */
static int find_literal_and_expr(fscan *f, uint32_t *str, int recurse)
{
    const char *s = f->t->src;
    uint32_t chunk = *str; /* the literal text's start, decoded at its end */
    while (*str < f->end) {
        char ch = s[*str];
        uint32_t at = *str;
        if (!f->raw && ch == '\\' && *str + 1 < f->end) {
            ch = s[*str + 1];
            *str += 2;
            if (ch == 'N') { /* \N{NAME}: its braces are no expression */
                if (*str < f->end && s[(*str)++] == '{')
                    while (*str < f->end && s[(*str)++] != '}')
                        ;
                continue;
            }
            if (ch != '{' && ch != '}')
                continue;
            at = *str - 1; /* `\{` begins an expression (with a warning) */
        }
        if (ch == '{' || ch == '}') {
            if (recurse == 0 && at + 1 < f->end && s[at + 1] == ch) {
                if (decode(f, chunk, at + 1))
                    return -1;
                *str = chunk = at + 2;
                continue;
            }
            if (ch == '}' && recurse == 0) {
                fail(f->e, f->after, "", "f-string: single '}' is not allowed");
                return -1;
            }
            if (decode(f, chunk, at))
                return -1;
            if (ch == '}') {
                *str = at;
                return 0; /* the format spec's end */
            }
            *str = at + 1;
            return find_expr_part(f, str, recurse) ? -1 : 1;
        }
        (*str)++;
    }
    return decode(f, chunk, *str) ? -1 : 0;
}

static int check_fstring(fscan *f, uint32_t body)
{
    uint32_t str = body;
    for (;;) {
        int r = find_literal_and_expr(f, &str, 0);
        if (r < 0)
            return 1;
        if (r == 0)
            return 0;
    }
}

/* A string token of a run of literals: where it, its text and its text's end are;
 * its prefix's flags. */
typedef struct str_tok {
    uint32_t start, body, body_end;
    int flags;
} str_tok;

/* The first of the checks below that literal j of the run fails: 1 and e set, else
 * 0. `after` is where the token after the run is, where CPython reports most. */
static int check_one_string(const py_tree *t, TSNode n, const str_tok *toks, size_t j,
                            uint32_t after, perr *e)
{
    const str_tok *k = &toks[j];
    if (k->flags & S_BYTES)
        for (uint32_t b = k->body; b < k->body_end; b++)
            if ((unsigned char)t->src[b] >= 0x80)
                return fail(e, k->start, "", "bytes can only contain ASCII literal characters");
    char why[200];
    if (!(k->flags & (S_RAW | S_F)) &&
        bad_escape(t->src, k->body, k->body_end, k->flags & S_BYTES, why, sizeof(why)))
        return fail(e, after, "", why);
    if (j > 0 && (k->flags & S_BYTES) != (toks[0].flags & S_BYTES))
        return fail(e, after, "", "cannot mix bytes and nonbytes literals");
    if (!(k->flags & S_F))
        return 0;
    /* tree-sitter's node of this token, for its expressions */
    TSNode s = n;
    if (is(n, "concatenated_string")) {
        s = (TSNode){0};
        for (uint32_t c = 0; c < ts_node_named_child_count(n); c++)
            if (ts_node_start_byte(ts_node_named_child(n, c)) == k->start)
                s = ts_node_named_child(n, c);
    }
    fscan f = {t, s, k->start, k->body_end, (k->flags & S_RAW) != 0, e, after};
    if (ts_node_is_null(s))
        f.string = n;
    return check_fstring(&f, k->body);
}

/* The string literals that begin at node n's first byte, as Python 3.11 tokenizes
 * them (it ends a string at its quote where tree-sitter-python reads Python 3.12's
 * nested f-string), checked as its parser's action does: the first error, however
 * many literals the run has (a codec's table of 256 lines is one). `stop`: the end
 * of the f-string expression n is in (its sub-parser's ')'), or UINT32_MAX. */
static int check_strings(const py_tree *t, TSNode n, uint32_t stop, perr *e)
{
    int brackets = stop != UINT32_MAX ? 1 : -1;
    /* the tokens and, first, where the one after them is */
    VEC(str_tok) toks = VEC_INIT;
    uint32_t i = ts_node_start_byte(n);
    int r = 0;
    for (;;) {
        int fl;
        int len = string_prefix(t, i, &fl);
        if (len < 0 || i >= stop)
            break;
        str_tok k = {i, 0, 0, fl};
        uint32_t end = string_token_end(t, i + (uint32_t)len, &k.body, &k.body_end);
        if (!end) {
            VEC_FREE(&toks);
            return 0; /* the tokenizer's error, not the parser's */
        }
        VEC_PUSH(&toks, k);
        i = next_token(t, n, end, &brackets, stop);
    }
    for (size_t j = 0; j < toks.len && !r; j++)
        r = check_one_string(t, n, toks.items, j, i, e);
    VEC_FREE(&toks);
    return r;
}

/* `for x in a, b` in a comprehension (tree-sitter takes Python 2's tuple). */
static int comp_comma(const py_tree *t, TSNode clause, perr *e)
{
    uint32_t k = ts_node_child_count(clause);
    int in = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(clause, i);
        if (is(c, "in"))
            in = 1;
        if (!in || !is(c, ","))
            continue;
        TSNode comp = ts_node_parent(clause);
        TSNode up = ts_node_parent(comp);
        if (is(comp, "generator_expression") && !ts_node_is_null(up) && is(up, "call")) {
            TSNode body = ts_node_named_child(comp, 0);
            return fail(e, ts_node_start_byte(body), "",
                        "Generator expression must be parenthesized");
        }
        (void)t;
        return fail(e, ts_node_start_byte(c), "", "invalid syntax");
    }
    return 0;
}

/* Whether CPython's parser takes keyword n and stops at the token after it: `async`
 * beginning a statement (`async def`, `async for` and `async with` begin so),
 * `await` where an expression may be (`await x`). */
static int consumed(TSNode n, const char *s, size_t len)
{
    if (len == 5 && !memcmp(s, "async", 5)) {
        uint32_t at = ts_node_start_byte(n);
        for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up)) {
            if (ts_node_start_byte(up) != at)
                return 0;
            if (is(up, "expression_statement"))
                return 1;
        }
        return 0;
    }
    if (len != 5 || memcmp(s, "await", 5))
        return 0;
    TSNode up = ts_node_parent(n);
    if (ts_node_is_null(up))
        return 0;
    static const char *const names[] = {"parameters",
                                        "lambda_parameters",
                                        "default_parameter",
                                        "typed_parameter",
                                        "typed_default_parameter",
                                        "list_splat_pattern",
                                        "dictionary_splat_pattern",
                                        "dotted_name",
                                        "aliased_import",
                                        "function_definition",
                                        "class_definition",
                                        "keyword_argument",
                                        "global_statement",
                                        "nonlocal_statement",
                                        "keyword_pattern",
                                        "splat_pattern",
                                        "as_pattern"};
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (is(up, names[i]))
            return is(up, "keyword_argument") &&
                   !ts_node_eq(n, ts_node_child_by_field_name(up, "name", 4));
    if (is(up, "attribute"))
        return !ts_node_eq(n, ts_node_child_by_field_name(up, "attribute", 9));
    return 1;
}

/* Whether CPython 3.11's grammar takes an assignment expression as the whole of
 * child n of `up`: where it reads a named_expression (a group, a display's element,
 * a list or set comprehension's element, a subscript, a condition, a match subject
 * or guard, a decorator; an f-string's expression, which it parses in parentheses)
 * or an assignment_expression (a call's argument, a generator's element). 2 for the
 * first: its invalid_named_expression reads an expression before the `:=` there. */
static int takes_walrus(TSNode up, TSNode n)
{
    static const char *const groups[] = {
        "parenthesized_expression", "list", "set", "tuple", "decorator", "interpolation"};
    for (size_t i = 0; i < sizeof(groups) / sizeof(*groups); i++)
        if (is(up, groups[i]))
            return 2;
    TSNode body = ts_node_child_by_field_name(up, "body", 4);
    if (is(up, "list_comprehension") || is(up, "set_comprehension"))
        return ts_node_eq(body, n) ? 2 : 0;
    if (is(up, "generator_expression")) /* a call's own: an argument */
        return !ts_node_eq(body, n) ? 0 : is(ts_node_parent(up), "call") ? 1 : 2;
    if (is(up, "argument_list"))
        return 1;
    if (is(up, "subscript"))
        return ts_node_eq(n, ts_node_child_by_field_name(up, "value", 5)) ? 0 : 2;
    if (is(up, "if_statement") || is(up, "elif_clause") || is(up, "while_statement"))
        return ts_node_eq(n, ts_node_child_by_field_name(up, "condition", 9)) ? 2 : 0;
    if (is(up, "match_statement"))
        return ts_node_eq(n, ts_node_child_by_field_name(up, "subject", 7)) ? 2 : 0;
    if (is(up, "if_clause")) /* a case's guard, not a comprehension's condition */
        return is(ts_node_parent(up), "case_clause") ? 2 : 0;
    if (is(up, "with_item")) { /* `with (a := 1, b):` is a tuple, each a named_expression */
        TSNode clause = ts_node_parent(up);
        int group = !ts_node_is_null(clause) && ts_node_child_count(clause) > 0 &&
                    is(ts_node_child(clause, 0), "(");
        return group ? 2 : 0;
    }
    return 0;
}

/* An assignment expression where CPython 3.11's grammar takes none (tree-sitter-
 * python takes one wherever an expression may be): `return y := 1`, `f(a=b := 1)`,
 * `x = lambda: a := 1`. Its parser stops at the `:=` ("invalid syntax"), or at the
 * token after the expression where another of its rules takes it whole (`{a := 1:
 * b}` is a set's first element to it, `a[b := 1:2]` a subscript); where it reads a
 * named_expression, the expression that ends at the `:=` is refused ("cannot use
 * assignment expressions with lambda"), and in an `if` expression's condition it
 * expects the `else` (invalid_expression). With `operand` set, n's name stands for
 * an operand that is no name, ending at byte `operand` (config_target.c: `(a.b :=
 * 1)`): 2 where CPython's invalid_named_expression reads it (the caller's "cannot
 * use assignment expressions with attribute"), "invalid syntax" at the `:=` where
 * only a name may be (a call's argument). */
static int walrus_place(const py_tree *t, TSNode n, uint32_t operand, perr *e)
{
    /* the expression CPython reads up to the `:=`: n, or one that n ends (slot);
     * the child of `up` that holds it (cur): tree-sitter-python binds `a := 1`
     * tighter than `if`, where CPython's conditional is the value (`(a := 1 if b
     * else c)`) */
    TSNode slot = n, cur = n, up = ts_node_parent(n);
    while (!ts_node_is_null(up)) {
        if (is(up, "conditional_expression") && ts_node_named_child_count(up) == 3 &&
            ts_node_eq(cur, ts_node_named_child(up, 1)))
            return fail(e, ts_node_start_byte(up), "", "expected 'else' after 'if' expression");
        if (is(up, "conditional_expression") && ts_node_eq(cur, ts_node_named_child(up, 0))) {
            cur = up;
            up = ts_node_parent(up);
            continue;
        }
        int ends = ts_node_end_byte(up) == ts_node_end_byte(cur);
        if (ends && is(up, "conditional_expression") &&
            is(ts_node_named_child(up, 0), "named_expression"))
            /* `(a := 1 if b else c := 2)`: a named expression's value, and a `:=` */
            return fail(e, ts_node_start_byte(ts_node_child(n, 1)), "", "invalid syntax");
        if (!ends || !(is(up, "not_operator") || is(up, "boolean_operator") || is(up, "lambda") ||
                       is(up, "conditional_expression")))
            break;
        slot = cur = up;
        up = ts_node_parent(up);
    }
    if (ts_node_is_null(up))
        return 0;
    TSNode op = ts_node_child(n, 1); /* the `:=` */
    uint32_t at = ts_node_is_null(op) ? ts_node_start_byte(n) : ts_node_start_byte(op);
    if (is(up, "type") && is(ts_node_parent(up), "function_definition") &&
        ts_node_eq(up, ts_node_child_by_field_name(ts_node_parent(up), "return_type", 11)))
        /* `-> a := 1`: the def's `:` is a forced token */
        return fail(e, at, "", "expected ':'");
    /* a dictionary's first key is a set's first element to CPython; after that */
    TSNode outer = ts_node_parent(up);
    int first_key = 0;
    if (is(up, "pair") && ts_node_eq(cur, ts_node_child_by_field_name(up, "key", 3)) &&
        !ts_node_is_null(outer)) {
        first_key = ts_node_eq(up, is(outer, "dictionary_comprehension")
                                       ? ts_node_child_by_field_name(outer, "body", 4)
                                       : ts_node_named_child(outer, 0));
        if (!first_key) /* invalid_kvpair, at the expression's last character */
            return fail(e, (operand ? operand : ts_node_end_byte(ts_node_child(n, 0))) - 1, "",
                        "':' expected after dictionary key");
    }
    /* a slice's start is a subscript's named_expression to CPython, as the first key
     * is a set's element: it reads the expression to the `:` first */
    int slice_start = is(up, "slice") && ts_node_eq(cur, ts_node_child(up, 0));
    int takes = first_key || slice_start ? 2 : takes_walrus(up, cur);
    if (operand && ts_node_eq(slot, n) && (takes == 2 || is(up, "expression_statement")))
        return 2;
    if (ts_node_eq(slot, n) && takes && !first_key && !slice_start)
        return operand ? fail(e, at, "", "invalid syntax") : 0;
    if (!ts_node_eq(slot, n) && (takes == 2 || is(up, "expression_statement"))) {
        char why[96];
        snprintf(why, sizeof(why), "cannot use assignment expressions with %s",
                 cc_expr_name(t, slot));
        return fail(e, ts_node_start_byte(slot), "", why);
    }
    if (ts_node_eq(slot, n)) {
        TSNode next = ts_node_next_sibling(cur);
        if ((first_key || slice_start) && !ts_node_is_null(next))
            at = ts_node_start_byte(next);
    }
    return fail(e, at, "", "invalid syntax");
}

/* The checks of one node; `stop` as in check_strings. */
static int check_node(const py_tree *t, TSNode n, uint32_t stop, perr *e)
{
    const char *type = ts_node_type(n);
    if (!strcmp(type, "identifier")) {
        size_t len;
        const char *s = py_text(t, n, &len);
        if (!cc_is_keyword(s, len))
            return 0;
        uint32_t at = ts_node_start_byte(n);
        if (consumed(n, s, len)) {
            int brackets = stop != UINT32_MAX ? 1 : -1;
            at = next_token(t, n, ts_node_end_byte(n), &brackets, stop);
        }
        return fail(e, at, "", "invalid syntax");
    }
    if (!strcmp(type, "concatenated_string") || !strcmp(type, "string"))
        return check_strings(t, n, stop, e);
    if (!strcmp(type, "for_in_clause"))
        return comp_comma(t, n, e);
    if (!strcmp(type, "named_expression"))
        return walrus_place(t, n, 0, e);
    return 0;
}

/* The checks of the nodes of an f-string's expression n, in order. */
static int parse_sub(const py_tree *t, TSNode n, uint32_t stop, perr *e)
{
    if (check_node(t, n, stop, e))
        return 1;
    const char *type = ts_node_type(n);
    if (!strcmp(type, "string") || !strcmp(type, "concatenated_string"))
        return 0; /* its own checks read its expressions */
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        if (parse_sub(t, ts_node_child(n, i), stop, e))
            return 1;
    return 0;
}

int cc_parse_node(const py_tree *t, TSNode n, TSPoint *at, char *why, size_t size)
{
    perr e = {0};
    if (!check_node(t, n, UINT32_MAX, &e))
        return 0;
    *at = e.mapped ? e.pt : point_of(t, 0, (TSPoint){0, 0}, e.at);
    snprintf(why, size, "%s", e.why);
    return 1;
}

int cc_walrus_operand(const py_tree *t, TSNode n, uint32_t operand, uint32_t *at, char *why,
                      size_t size)
{
    perr e = {0};
    int r = walrus_place(t, n, operand, &e);
    if (r == 1) {
        *at = e.at;
        snprintf(why, size, "%s", e.why);
    }
    return r;
}

int cc_string_error(const py_tree *t, TSNode err, TSPoint *at, char *why, size_t size)
{
    TSNode s = {0};
    for (TSNode up = cc_deepest_error(err); !ts_node_is_null(up); up = ts_node_parent(up))
        if (is(up, "string") || is(up, "concatenated_string"))
            s = up;
    perr e = {0};
    if (ts_node_is_null(s) || !check_strings(t, s, UINT32_MAX, &e))
        return 0;
    *at = e.mapped ? e.pt : point_of(t, 0, (TSPoint){0, 0}, e.at);
    snprintf(why, size, "%s", e.why);
    return 1;
}

int cc_parse_error_before(const py_tree *t, uint32_t limit, TSPoint *at, char *why, size_t size)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int found = 0;
    for (int enter = 1; py_cursor_next(&cur, enter);) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        enter = 1;
        if (ts_node_start_byte(n) >= limit)
            break;
        if (is(n, "ERROR") || ts_node_is_missing(n) || ts_node_end_byte(n) > limit) {
            /* what holds the error, or runs past it: only its first nodes */
            enter = !is(n, "ERROR") && !ts_node_is_missing(n);
            continue;
        }
        if (cc_parse_node(t, n, at, why, size)) {
            found = 1;
            break;
        }
        /* a literal's checks read its parts and its f-strings' expressions */
        enter = !is(n, "string") && !is(n, "concatenated_string");
    }
    ts_tree_cursor_delete(&cur);
    return found;
}
