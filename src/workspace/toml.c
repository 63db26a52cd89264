/*
 * A recursive-descent TOML 1.0 reader (minus dates and times).
 *
 * The grammar is line-oriented at the top: each line is blank, a comment, a table
 * header ([a.b] or [[a.b]]) or a key/value pair. Values nest (arrays, inline
 * tables), and that is the only recursion, bounded by TOML_MAX_DEPTH so that hostile
 * input cannot exhaust the stack.
 *
 * TOML forbids defining a table twice, and which redefinitions count depends on
 * how a table came to exist, so every table remembers it in `flags`:
 *   IMPLICIT  created as a parent by a header ([a.b] creates a), may still be
 *             defined by its own header later;
 *   DEFINED   named by its own [header];
 *   DOTTED    created by a dotted key (a.b = 1 creates a); no header may define it;
 *   INLINE    an inline table or static array: frozen, nothing may add to it;
 *   AOT       an array made by [[header]]s, which later [[header]]s extend.
 */
#include "workspace/toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"

enum {
    F_IMPLICIT = 1,
    F_DEFINED = 2,
    F_DOTTED = 4,
    F_INLINE = 8,
    F_AOT = 16,
};

typedef struct parser {
    const char *s;
    size_t len;
    size_t pos;
    unsigned line;
    const char *name;
    int depth;
} parser;

/* --- values ---------------------------------------------------------------------- */

static toml_value *value_new(toml_type type, unsigned line)
{
    toml_value *v = pgci_calloc(1, sizeof(*v));
    v->type = type;
    v->line = line;
    return v;
}

void toml_free(toml_value *v)
{
    if (!v)
        return;
    free(v->str);
    for (size_t i = 0; i < v->items.len; i++)
        toml_free(v->items.items[i]);
    VEC_FREE(&v->items);
    for (size_t i = 0; i < v->entries.len; i++) {
        free(v->entries.items[i].key);
        toml_free(v->entries.items[i].value);
    }
    VEC_FREE(&v->entries);
    free(v);
}

const toml_value *toml_get(const toml_value *t, const char *key)
{
    if (!t || t->type != TOML_TABLE)
        return NULL;
    for (size_t i = 0; i < t->entries.len; i++)
        if (!strcmp(t->entries.items[i].key, key))
            return t->entries.items[i].value;
    return NULL;
}

const toml_value *toml_get_path(const toml_value *t, const char *path)
{
    const char *s = path;
    while (t) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        char *key = pgci_strndup(s, n);
        t = toml_get(t, key);
        free(key);
        if (!dot)
            return t;
        s = dot + 1;
    }
    return NULL;
}

const char *toml_str(const toml_value *v)
{
    return v && v->type == TOML_STRING ? v->str : NULL;
}

const char *toml_type_name(toml_type type)
{
    switch (type) {
    case TOML_STRING:
        return "string";
    case TOML_INTEGER:
        return "integer";
    case TOML_FLOAT:
        return "float";
    case TOML_BOOL:
        return "boolean";
    case TOML_ARRAY:
        return "array";
    case TOML_TABLE:
        return "table";
    }
    return "value";
}

/* "an integer", "a string", ... for messages. */
static const char *type_with_article(toml_type type)
{
    switch (type) {
    case TOML_INTEGER:
        return "an integer";
    case TOML_ARRAY:
        return "an array";
    case TOML_STRING:
        return "a string";
    case TOML_FLOAT:
        return "a float";
    case TOML_BOOL:
        return "a boolean";
    case TOML_TABLE:
        return "a table";
    }
    return "a value";
}

static toml_value *table_lookup(toml_value *t, const char *key)
{
    return (toml_value *)toml_get(t, key);
}

static void table_add(toml_value *t, char *key, toml_value *v)
{
    toml_entry e = {key, v};
    VEC_PUSH(&t->entries, e);
}

/* --- errors and low-level scanning --------------------------------------------- */

__attribute__((format(printf, 2, 3))) static int perr(parser *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* Keys quoted in messages may hold any character; an error stays one line. */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return pgci_error_set(PGCI_EINVALID, "%s:%u: %s", p->name, p->line, msg);
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int peek_at(const parser *p, size_t off)
{
    return p->pos + off < p->len ? (unsigned char)p->s[p->pos + off] : -1;
}

static int at(const parser *p, const char *lit)
{
    size_t n = strlen(lit);
    return p->len - p->pos >= n && !memcmp(p->s + p->pos, lit, n);
}

static void skip_ws(parser *p)
{
    while (peek(p) == ' ' || peek(p) == '\t')
        p->pos++;
}

/* A character TOML allows neither in comments nor in strings. */
static int is_bad_control(int c)
{
    return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

/* Describes a character for messages. */
static const char *char_desc(int c, char buf[16])
{
    if (c < 0)
        snprintf(buf, 16, "end of file");
    else if (c == '\n')
        snprintf(buf, 16, "end of line");
    else if (c < 0x20 || c >= 0x7f)
        snprintf(buf, 16, "byte 0x%02x", c);
    else
        snprintf(buf, 16, "'%c'", c);
    return buf;
}

/* Skips a comment to the end of the line (not the newline itself). */
static int skip_comment(parser *p)
{
    if (peek(p) != '#')
        return 0;
    while (p->pos < p->len && p->s[p->pos] != '\n') {
        int c = (unsigned char)p->s[p->pos];
        if (c == '\r' && peek_at(p, 1) == '\n')
            break;
        if (is_bad_control(c))
            return perr(p, "control character 0x%02x in a comment", c);
        p->pos++;
    }
    return 0;
}

/* Consumes a newline (\n or \r\n); 1 when one was there. */
static int eat_newline(parser *p)
{
    if (peek(p) == '\n') {
        p->pos++;
        p->line++;
        return 1;
    }
    if (peek(p) == '\r' && peek_at(p, 1) == '\n') {
        p->pos += 2;
        p->line++;
        return 1;
    }
    return 0;
}

/* After a header or a key/value pair: whitespace, an optional comment, then a
 * newline or the end of the file. */
static int end_of_line(parser *p, const char *after)
{
    skip_ws(p);
    int r = skip_comment(p);
    if (r < 0)
        return r;
    if (p->pos >= p->len || eat_newline(p))
        return 0;
    char b[16];
    return perr(p, "expected end of line after %s, found %s", after, char_desc(peek(p), b));
}

/* Skips whitespace, newlines and comments (inside arrays). */
static int skip_ws_nl(parser *p)
{
    for (;;) {
        skip_ws(p);
        int r = skip_comment(p);
        if (r < 0)
            return r;
        if (!eat_newline(p))
            return 0;
    }
}

/* --- strings --------------------------------------------------------------------- */

static void add_utf8(strbuf *sb, unsigned long cp)
{
    if (cp < 0x80) {
        strbuf_addc(sb, (char)cp);
    } else if (cp < 0x800) {
        strbuf_addc(sb, (char)(0xc0 | (cp >> 6)));
        strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        strbuf_addc(sb, (char)(0xe0 | (cp >> 12)));
        strbuf_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
        strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
    } else {
        strbuf_addc(sb, (char)(0xf0 | (cp >> 18)));
        strbuf_addc(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
        strbuf_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
        strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
    }
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One escape after the backslash of a basic string. */
static int parse_escape(parser *p, strbuf *out)
{
    int c = peek(p);
    p->pos++;
    switch (c) {
    case 'b':
        strbuf_addc(out, '\b');
        return 0;
    case 't':
        strbuf_addc(out, '\t');
        return 0;
    case 'n':
        strbuf_addc(out, '\n');
        return 0;
    case 'f':
        strbuf_addc(out, '\f');
        return 0;
    case 'r':
        strbuf_addc(out, '\r');
        return 0;
    case '"':
        strbuf_addc(out, '"');
        return 0;
    case '\\':
        strbuf_addc(out, '\\');
        return 0;
    case 'u':
    case 'U': {
        int n = c == 'u' ? 4 : 8;
        unsigned long cp = 0;
        for (int i = 0; i < n; i++) {
            int h = hexval(peek(p));
            if (h < 0)
                return perr(p, "\\%c escape needs %d hex digits", c, n);
            cp = cp * 16 + (unsigned long)h;
            p->pos++;
        }
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return perr(p, "\\%c escape U+%04lX is not a Unicode scalar value", c, cp);
        if (cp == 0)
            return perr(p, "\\%c0000 (NUL) is not supported in strings", c);
        add_utf8(out, cp);
        return 0;
    }
    default: {
        char b[16];
        p->pos--;
        return perr(p, "invalid escape '\\' followed by %s", char_desc(c, b));
    }
    }
}

/* The length of the well-formed UTF-8 sequence at s, or 0 with *why set. */
static size_t utf8_seq(const unsigned char *s, size_t left, char why[64])
{
    unsigned c = s[0];
    size_t n;
    unsigned long cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        snprintf(why, 64, "invalid UTF-8 (byte 0x%02x)", c);
        return 0;
    }
    if (n > left) {
        snprintf(why, 64, "invalid UTF-8 (truncated sequence)");
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            snprintf(why, 64, "invalid UTF-8 (byte 0x%02x)", s[i]);
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    static const unsigned long min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        snprintf(why, 64, "invalid UTF-8 (overlong or out-of-range sequence)");
        return 0;
    }
    return n;
}

/* tomllib decodes the whole file before parsing, so a bad byte anywhere (a comment
 * included) makes the document invalid; the error names its line. */
static int check_utf8(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->s;
    unsigned line = 1;
    char why[64];
    for (size_t i = 0; i < p->len;) {
        if (s[i] == '\n')
            line++;
        size_t n = utf8_seq(s + i, p->len - i, why);
        if (!n) {
            p->line = line;
            return perr(p, "%s", why);
        }
        i += n;
    }
    return 0;
}

/* Copies the UTF-8 sequence at p->pos (the document was checked by check_utf8). */
static int copy_char(parser *p, strbuf *out)
{
    char why[64];
    size_t n = utf8_seq((const unsigned char *)p->s + p->pos, p->len - p->pos, why);
    if (!n)
        return perr(p, "%s", why);
    strbuf_add(out, p->s + p->pos, n);
    p->pos += n;
    return 0;
}

/* A string of any kind; p->pos is at its opening quote. */
static int parse_string(parser *p, strbuf *out, int allow_multiline)
{
    char q = p->s[p->pos];
    int literal = q == '\'';
    int multi = at(p, literal ? "'''" : "\"\"\"");
    if (multi && !allow_multiline)
        return perr(p, "a multi-line string cannot be a key");
    unsigned start_line = p->line;
    p->pos += multi ? 3 : 1;
    /* A newline right after the opening delimiter is trimmed. */
    if (multi)
        eat_newline(p);
    for (;;) {
        int c = peek(p);
        if (c < 0) {
            p->line = start_line;
            return perr(p, "unterminated string");
        }
        if (c == q) {
            if (!multi) {
                p->pos++;
                return 0;
            }
            if (peek_at(p, 1) == q && peek_at(p, 2) == q) {
                /* Up to two more quotes belong to the content: """a""""" is a"". */
                int extra = 0;
                while (extra < 2 && peek_at(p, 3 + (size_t)extra) == q)
                    extra++;
                strbuf_addrep(out, literal ? "'" : "\"", (size_t)extra);
                p->pos += 3 + (size_t)extra;
                return 0;
            }
            strbuf_addc(out, q);
            p->pos++;
            continue;
        }
        if (c == '\n' || (c == '\r' && peek_at(p, 1) == '\n')) {
            if (!multi)
                return perr(p, "newline in a single-line string");
            eat_newline(p);
            strbuf_addc(out, '\n');
            continue;
        }
        if (is_bad_control(c))
            return perr(p, "control character 0x%02x in a string (escape it)", c);
        if (c == '\\' && !literal) {
            p->pos++;
            if (multi) {
                /* Line-ending backslash: drop it and all whitespace and newlines after. */
                size_t save = p->pos;
                skip_ws(p);
                if (eat_newline(p)) {
                    for (;;) {
                        skip_ws(p);
                        if (!eat_newline(p))
                            break;
                    }
                    continue;
                }
                p->pos = save;
            }
            int r = parse_escape(p, out);
            if (r < 0)
                return r;
            continue;
        }
        int r = copy_char(p, out);
        if (r < 0)
            return r;
    }
}

/* --- keys ------------------------------------------------------------------------ */

static int is_bare_key_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* A dotted key: bare or quoted parts separated by dots, whitespace allowed around
 * the dots. The parts land in `parts`. */
static int parse_key(parser *p, strvec *parts)
{
    for (;;) {
        skip_ws(p);
        int c = peek(p);
        if (c == '"' || c == '\'') {
            strbuf sb = STRBUF_INIT;
            int r = parse_string(p, &sb, 0);
            if (r < 0) {
                strbuf_free(&sb);
                return r;
            }
            if (strlen(sb.buf) != sb.len) {
                strbuf_free(&sb);
                return perr(p, "NUL in a key");
            }
            strvec_push_owned(parts, strbuf_detach(&sb, NULL));
        } else if (is_bare_key_char(c)) {
            size_t start = p->pos;
            while (is_bare_key_char(peek(p)))
                p->pos++;
            strvec_pushn(parts, p->s + start, p->pos - start);
        } else {
            char b[16];
            return perr(p, "expected a key, found %s", char_desc(c, b));
        }
        skip_ws(p);
        if (peek(p) != '.')
            return 0;
        if (parts->len >= TOML_MAX_DEPTH)
            return pgci_error_set(PGCI_ELIMIT, "%s:%u: a key with more than %d parts", p->name,
                                  p->line, TOML_MAX_DEPTH);
        p->pos++;
    }
}

/* "a.b.c" for messages. */
static char *key_join(const strvec *parts, size_t n)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_addc(&sb, '.');
        strbuf_adds(&sb, parts->items[i]);
    }
    return strbuf_detach(&sb, NULL);
}

/* --- scalars --------------------------------------------------------------------- */

/* Digits of `base` with single underscores between them, at least one digit. */
static int digits_ok(const char *s, size_t n, int base)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '_') {
            if (i == 0 || i + 1 == n || s[i + 1] == '_')
                return 0;
            continue;
        }
        int d = hexval(c);
        if (d < 0 || d >= base)
            return 0;
    }
    return 1;
}

static char *strip_underscores(const char *s, size_t n)
{
    char *o = pgci_malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            o[k++] = s[i];
    o[k] = '\0';
    return o;
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* A decimal integer part: "0" or digits without a leading zero. */
static int dec_int_ok(const char *s, size_t n)
{
    if (!digits_ok(s, n, 10))
        return 0;
    return !(n > 1 && s[0] == '0');
}

/* Numbers, inf/nan and (refused) dates. The token runs over the characters a
 * number or a date can contain. */
static int parse_number(parser *p, toml_value **out)
{
    size_t start = p->pos;
    while (p->pos < p->len) {
        int c = (unsigned char)p->s[p->pos];
        if (is_bare_key_char(c) || c == '.' || c == '+' || c == ':')
            p->pos++;
        else
            break;
    }
    const char *t = p->s + start;
    size_t n = p->pos - start;
    char *tok = pgci_strndup(t, n);
    int r = 0;
    /* dates and times: 1979-05-27, 07:32:00 */
    if ((n >= 10 && is_digit(t[0]) && is_digit(t[1]) && is_digit(t[2]) && is_digit(t[3]) &&
         t[4] == '-') ||
        (n >= 5 && is_digit(t[0]) && is_digit(t[1]) && t[2] == ':')) {
        r = perr(p, "dates and times are not supported ('%s')", tok);
        goto done;
    }
    const char *body = t;
    size_t bn = n;
    int neg = 0;
    if (bn && (body[0] == '+' || body[0] == '-')) {
        neg = body[0] == '-';
        body++;
        bn--;
    }
    if ((bn == 3 && (!memcmp(body, "inf", 3) || !memcmp(body, "nan", 3)))) {
        toml_value *v = value_new(TOML_FLOAT, p->line);
        v->flt = body[0] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
        *out = v;
        goto done;
    }
    if (bn > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
        int base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
        if (body != t) {
            r = perr(p, "a sign is not allowed on '%s'", tok);
            goto done;
        }
        if (!digits_ok(body + 2, bn - 2, base)) {
            r = perr(p, "invalid number '%s'", tok);
            goto done;
        }
        char *digits = strip_underscores(body + 2, bn - 2);
        errno = 0;
        unsigned long long u = strtoull(digits, NULL, base);
        free(digits);
        if (errno == ERANGE || u > (unsigned long long)9223372036854775807LL) {
            r = perr(p, "integer '%s' does not fit in 64 bits", tok);
            goto done;
        }
        toml_value *v = value_new(TOML_INTEGER, p->line);
        v->integer = (long long)u;
        *out = v;
        goto done;
    }
    /* decimal integer or float: int-part [. digits] [e[+-]digits] */
    size_t i = 0;
    while (i < bn && (is_digit(body[i]) || body[i] == '_'))
        i++;
    if (!dec_int_ok(body, i)) {
        r = perr(p, "invalid value '%s' (a string needs quotes)", tok);
        goto done;
    }
    int is_float = 0;
    if (i < bn && body[i] == '.') {
        size_t f = ++i;
        while (i < bn && (is_digit(body[i]) || body[i] == '_'))
            i++;
        if (!digits_ok(body + f, i - f, 10)) {
            r = perr(p, "invalid float '%s'", tok);
            goto done;
        }
        is_float = 1;
    }
    if (i < bn && (body[i] == 'e' || body[i] == 'E')) {
        i++;
        if (i < bn && (body[i] == '+' || body[i] == '-'))
            i++;
        size_t e = i;
        while (i < bn && (is_digit(body[i]) || body[i] == '_'))
            i++;
        if (!digits_ok(body + e, i - e, 10)) {
            r = perr(p, "invalid float '%s'", tok);
            goto done;
        }
        is_float = 1;
    }
    if (i != bn) {
        r = perr(p, "invalid value '%s' (a string needs quotes)", tok);
        goto done;
    }
    char *clean = strip_underscores(t, n);
    if (is_float) {
        toml_value *v = value_new(TOML_FLOAT, p->line);
        v->flt = strtod(clean, NULL);
        *out = v;
    } else {
        errno = 0;
        long long x = strtoll(clean, NULL, 10);
        if (errno == ERANGE) {
            free(clean);
            r = perr(p, "integer '%s' does not fit in 64 bits", tok);
            goto done;
        }
        toml_value *v = value_new(TOML_INTEGER, p->line);
        v->integer = x;
        *out = v;
    }
    free(clean);
done:
    free(tok);
    return r;
}

/* --- values ---------------------------------------------------------------------- */

static int parse_value(parser *p, toml_value **out);
static int set_dotted(parser *p, toml_value *table, strvec *parts, toml_value *v, unsigned line);

static int parse_array(parser *p, toml_value **out)
{
    toml_value *arr = value_new(TOML_ARRAY, p->line);
    arr->flags = F_INLINE;
    p->pos++; /* [ */
    int r;
    for (;;) {
        if ((r = skip_ws_nl(p)) < 0)
            goto fail;
        if (peek(p) == ']') {
            p->pos++;
            *out = arr;
            return 0;
        }
        toml_value *v = NULL;
        if ((r = parse_value(p, &v)) < 0)
            goto fail;
        VEC_PUSH(&arr->items, v);
        if ((r = skip_ws_nl(p)) < 0)
            goto fail;
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == ']')
            continue;
        char b[16];
        r = perr(p, "expected ',' or ']' in an array, found %s", char_desc(peek(p), b));
        goto fail;
    }
fail:
    toml_free(arr);
    return r;
}

static int parse_inline_table(parser *p, toml_value **out)
{
    toml_value *t = value_new(TOML_TABLE, p->line);
    p->pos++; /* { */
    int r;
    strvec parts = STRVEC_INIT;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        t->flags = F_INLINE;
        *out = t;
        return 0;
    }
    for (;;) {
        strvec_free(&parts);
        if ((r = parse_key(p, &parts)) < 0)
            goto fail;
        if (peek(p) != '=') {
            char b[16];
            r = perr(p, "expected '=' after a key in an inline table, found %s",
                     char_desc(peek(p), b));
            goto fail;
        }
        p->pos++;
        skip_ws(p);
        unsigned line = p->line;
        toml_value *v = NULL;
        if ((r = parse_value(p, &v)) < 0)
            goto fail;
        if ((r = set_dotted(p, t, &parts, v, line)) < 0)
            goto fail;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            skip_ws(p);
            if (peek(p) == '}') {
                r = perr(p, "trailing comma in an inline table");
                goto fail;
            }
            continue;
        }
        if (peek(p) == '}') {
            p->pos++;
            break;
        }
        char b[16];
        r = perr(p, "expected ',' or '}' in an inline table, found %s%s", char_desc(peek(p), b),
                 peek(p) == '\n' ? " (inline tables must fit on one line)" : "");
        goto fail;
    }
    strvec_free(&parts);
    /* Freeze the table and every table its dotted keys made. */
    t->flags = F_INLINE;
    *out = t;
    return 0;
fail:
    strvec_free(&parts);
    toml_free(t);
    return r;
}

static int parse_value(parser *p, toml_value **out)
{
    if (++p->depth > TOML_MAX_DEPTH) {
        p->depth--;
        return pgci_error_set(PGCI_ELIMIT, "%s:%u: values nested deeper than %d levels", p->name,
                              p->line, TOML_MAX_DEPTH);
    }
    int r;
    int c = peek(p);
    if (c == '"' || c == '\'') {
        unsigned line = p->line;
        strbuf sb = STRBUF_INIT;
        r = parse_string(p, &sb, 1);
        if (r == 0) {
            toml_value *v = value_new(TOML_STRING, line);
            v->str = strbuf_detach(&sb, NULL);
            *out = v;
        }
        strbuf_free(&sb);
    } else if (c == '[') {
        r = parse_array(p, out);
    } else if (c == '{') {
        r = parse_inline_table(p, out);
    } else if (at(p, "true") && !is_bare_key_char(peek_at(p, 4))) {
        p->pos += 4;
        *out = value_new(TOML_BOOL, p->line);
        (*out)->boolean = 1;
        r = 0;
    } else if (at(p, "false") && !is_bare_key_char(peek_at(p, 5))) {
        p->pos += 5;
        *out = value_new(TOML_BOOL, p->line);
        r = 0;
    } else if (c == '+' || c == '-' || is_digit(c) || at(p, "inf") || at(p, "nan")) {
        r = parse_number(p, out);
    } else {
        char b[16];
        r = c < 0 || c == '\n' || c == '\r' || c == '#'
                ? perr(p, "expected a value, found %s", char_desc(c == '\r' ? '\n' : c, b))
                : perr(p, "expected a value, found %s (a string needs quotes)", char_desc(c, b));
    }
    p->depth--;
    return r;
}

/* --- tables ---------------------------------------------------------------------- */

/* Sets parts[0..n-1] = v inside `table`, creating dotted intermediate tables. Takes
 * ownership of v (freed on error). */
static int set_dotted(parser *p, toml_value *table, strvec *parts, toml_value *v, unsigned line)
{
    toml_value *t = table;
    for (size_t i = 0; i + 1 < parts->len; i++) {
        toml_value *next = table_lookup(t, parts->items[i]);
        if (!next) {
            next = value_new(TOML_TABLE, line);
            next->flags = F_DOTTED;
            table_add(t, pgci_strdup(parts->items[i]), next);
        } else if (next->type != TOML_TABLE || (next->flags & (F_INLINE | F_DEFINED))) {
            char *k = key_join(parts, i + 1);
            int r = perr(p, "cannot add to '%s' with a dotted key: it is %s defined on line %u", k,
                         next->flags & F_INLINE && next->type == TOML_TABLE
                             ? "an inline table"
                             : type_with_article(next->type),
                         next->line);
            free(k);
            toml_free(v);
            return r;
        }
        /* A parent made by a header ([a.b.c] makes a.b) may be extended with dotted
         * keys, as tomllib allows; from then on no header may define it. */
        if (next->flags == F_IMPLICIT)
            next->flags = F_DOTTED;
        t = next;
    }
    const char *last = parts->items[parts->len - 1];
    toml_value *old = table_lookup(t, last);
    if (old) {
        char *k = key_join(parts, parts->len);
        int r = perr(p, "duplicate key '%s' (first defined on line %u)", k, old->line);
        free(k);
        toml_free(v);
        return r;
    }
    v->line = line;
    table_add(t, pgci_strdup(last), v);
    return 0;
}

/* Walks a header's key from the root and returns the table it names (for [[x]], the
 * new element). */
static int open_header(parser *p, toml_value *root, strvec *parts, int aot, toml_value **cur)
{
    toml_value *t = root;
    unsigned line = p->line;
    for (size_t i = 0; i + 1 < parts->len; i++) {
        toml_value *next = table_lookup(t, parts->items[i]);
        if (!next) {
            next = value_new(TOML_TABLE, line);
            next->flags = F_IMPLICIT;
            table_add(t, pgci_strdup(parts->items[i]), next);
        } else if (next->type == TOML_ARRAY && (next->flags & F_AOT)) {
            next = next->items.items[next->items.len - 1];
        } else if (next->type != TOML_TABLE || (next->flags & F_INLINE)) {
            char *k = key_join(parts, i + 1);
            int r =
                perr(p, "'%s' is already %s (line %u), not a table", k,
                     next->type == TOML_TABLE ? "an inline table" : type_with_article(next->type),
                     next->line);
            free(k);
            return r;
        }
        t = next;
    }
    const char *last = parts->items[parts->len - 1];
    toml_value *old = table_lookup(t, last);
    char *k = key_join(parts, parts->len);
    int r = 0;
    if (aot) {
        if (!old) {
            old = value_new(TOML_ARRAY, line);
            old->flags = F_AOT;
            table_add(t, pgci_strdup(last), old);
        } else if (old->type != TOML_ARRAY || !(old->flags & F_AOT)) {
            r = perr(p, "[[%s]] conflicts with '%s' defined on line %u", k, k, old->line);
            goto done;
        }
        toml_value *elem = value_new(TOML_TABLE, line);
        elem->flags = F_DEFINED;
        VEC_PUSH(&old->items, elem);
        *cur = elem;
    } else {
        if (!old) {
            old = value_new(TOML_TABLE, line);
            old->flags = F_DEFINED;
            table_add(t, pgci_strdup(last), old);
        } else if (old->type == TOML_TABLE && old->flags == F_IMPLICIT) {
            old->flags = F_DEFINED;
            old->line = line;
        } else {
            r = perr(p, "table [%s] is defined twice (first on line %u)", k, old->line);
            goto done;
        }
        *cur = old;
    }
done:
    free(k);
    return r;
}

static int parse_header(parser *p, toml_value *root, toml_value **cur)
{
    int aot = at(p, "[[");
    p->pos += aot ? 2 : 1;
    strvec parts = STRVEC_INIT;
    int r = parse_key(p, &parts);
    if (r == 0) {
        if (aot ? !at(p, "]]") : peek(p) != ']') {
            char b[16];
            r = perr(p, "expected '%s' to close the table header, found %s", aot ? "]]" : "]",
                     char_desc(peek(p), b));
        } else {
            p->pos += aot ? 2 : 1;
            r = open_header(p, root, &parts, aot, cur);
        }
    }
    strvec_free(&parts);
    if (r == 0)
        r = end_of_line(p, "a table header");
    return r;
}

static int parse_keyval(parser *p, toml_value *cur)
{
    strvec parts = STRVEC_INIT;
    unsigned line = p->line;
    int r = parse_key(p, &parts);
    if (r == 0 && peek(p) != '=') {
        char b[16];
        char *k = key_join(&parts, parts.len);
        r = perr(p, "expected '=' after key '%s', found %s", k, char_desc(peek(p), b));
        free(k);
    }
    toml_value *v = NULL;
    if (r == 0) {
        p->pos++;
        skip_ws(p);
        r = parse_value(p, &v);
    }
    if (r == 0)
        r = set_dotted(p, cur, &parts, v, line);
    strvec_free(&parts);
    if (r == 0)
        r = end_of_line(p, "a value");
    return r;
}

int toml_parse(toml_value **out, const char *src, size_t len, const char *name)
{
    *out = NULL;
    parser p = {src, len, 0, 1, name ? name : "<toml>", 0};
    toml_value *root = value_new(TOML_TABLE, 1);
    root->flags = F_DEFINED;
    toml_value *cur = root;
    int r = 0;
    /* Python's tomllib, which patchgen reads pyproject.toml with, rejects a byte
     * order mark; accepting it here would let pgci pass a file patchgen fails on. */
    if (len >= 3 && !memcmp(src, "\xef\xbb\xbf", 3)) {
        toml_free(root);
        return perr(&p, "byte order mark at the start of the file (tomllib rejects it)");
    }
    if ((r = check_utf8(&p)) < 0) {
        toml_free(root);
        return r;
    }
    while (p.pos < p.len) {
        skip_ws(&p);
        int c = peek(&p);
        if (c < 0)
            break;
        if (c == '#') {
            r = end_of_line(&p, "a comment");
        } else if (eat_newline(&p)) {
            continue;
        } else if (c == '[') {
            r = parse_header(&p, root, &cur);
        } else {
            r = parse_keyval(&p, cur);
        }
        if (r < 0) {
            toml_free(root);
            return r;
        }
    }
    *out = root;
    return 0;
}

int toml_parse_file(toml_value **out, const char *path, const char *name)
{
    *out = NULL;
    strbuf sb = STRBUF_INIT;
    int r = fs_read_file(&sb, path, 16u << 20);
    if (r == 0)
        r = toml_parse(out, sb.buf, sb.len, name ? name : path);
    strbuf_free(&sb);
    return r;
}
