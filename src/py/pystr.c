/*
 * pystr.c - decoding Python string literals exactly as CPython's tokenizer and
 * parser do, so that a config's `target="LlamaMLP.forward"` or a docstring means to
 * pgci what it means to Python.
 *
 * A literal is decoded in two passes over its source text. The first pass splits it
 * into prefix, delimiter and body and checks that the body could really stand
 * between those delimiters (no unescaped closing quote inside, no backslash eating
 * the closing quote, no raw newline in a one-line literal). The second pass copies
 * the body, turning escapes into characters unless the literal is raw, undoubling
 * braces in f-strings and normalising raw CR and CRLF line ends to LF, as CPython's
 * tokenizer does before a literal is ever seen.
 *
 * Characters CPython can hold but UTF-8 cannot (lone surrogates from \ud800) are
 * written in their 3-byte form, as Python's "surrogatepass" error handler does, so
 * that a decoded value still has one byte sequence per Python string.
 */
#include "py/pystr.h"

#include <string.h>

#include "core/error.h"

typedef struct lit_parts {
    unsigned flags; /* PYSTR_* */
    char quote;     /* ' or " */
    const char *body;
    size_t body_len;
} lit_parts;

static int is_octal(char c)
{
    return c >= '0' && c <= '7';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Appends code point cp as UTF-8 (surrogates in their 3-byte form). */
static void add_utf8(strbuf *out, unsigned long cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    strbuf_add(out, b, n);
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when it is not
 * one: Python source must be valid UTF-8, overlong forms and surrogates included. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned long cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Reads the prefix letters: any order and case of r, b, f, or u alone. */
static int parse_prefix(const char *lit, size_t len, size_t *plen, unsigned *flags)
{
    size_t i = 0;
    int r = 0, b = 0, f = 0, u = 0;
    for (; i < len && lit[i] != '\'' && lit[i] != '"'; i++) {
        switch (lit[i]) {
        case 'r':
        case 'R':
            r++;
            break;
        case 'b':
        case 'B':
            b++;
            break;
        case 'f':
        case 'F':
            f++;
            break;
        case 'u':
        case 'U':
            u++;
            break;
        default:
            return pgci_error_set(PGCI_EINVALID,
                                  "not a string literal: unexpected '%c' before the quote", lit[i]);
        }
    }
    if (i == len)
        return pgci_error_set(PGCI_EINVALID, "not a string literal: no opening quote");
    if (r > 1 || b > 1 || f > 1 || u > 1 || (u && (r || b || f)) || (b && f))
        return pgci_error_set(PGCI_EINVALID, "invalid string prefix '%.*s'", (int)i, lit);
    *plen = i;
    *flags = (r ? PYSTR_RAW : 0) | (b ? PYSTR_BYTES : 0) | (f ? PYSTR_FSTRING : 0);
    return 0;
}

/* Splits a literal into prefix, delimiters and body and checks the body can stand
 * between them, as the tokenizer would have. */
static int split_literal(lit_parts *p, const char *lit, size_t len)
{
    size_t i = 0;
    int r = parse_prefix(lit, len, &i, &p->flags);
    if (r < 0)
        return r;
    char q = lit[i];
    p->quote = q;
    size_t qlen = 1;
    if (len - i >= 6 && lit[i + 1] == q && lit[i + 2] == q) {
        qlen = 3;
        p->flags |= PYSTR_TRIPLE;
    }
    if (len - i < 2 * qlen || memcmp(lit + len - qlen, lit + i, qlen) != 0)
        return pgci_error_set(PGCI_EINVALID, "unterminated string literal");
    p->body = lit + i + qlen;
    p->body_len = len - i - 2 * qlen;

    const char *s = p->body;
    size_t n = p->body_len;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        if (c == '\0')
            return pgci_error_set(PGCI_EINVALID, "string literal contains a NUL byte");
        if (c == '\\') {
            /* Even in a raw literal a backslash takes the next character with it;
             * one right before the closing quote means the quote was escaped. */
            if (k + 1 == n)
                return pgci_error_set(PGCI_EINVALID,
                                      "unterminated string literal (the closing quote is escaped)");
            k++;
            if (s[k] == '\r' && k + 1 < n && s[k + 1] == '\n')
                k++;
            continue;
        }
        if ((c == '\n' || c == '\r') && qlen == 1)
            return pgci_error_set(PGCI_EINVALID,
                                  "unterminated string literal (newline in a one-line string)");
        if (c == q) {
            if (qlen == 1)
                return pgci_error_set(PGCI_EINVALID, "string literal ends before its last quote");
            size_t run = 1;
            while (k + run < n && s[k + run] == q)
                run++;
            if (run >= 3 || k + run == n)
                return pgci_error_set(PGCI_EINVALID, "string literal ends before its last quote");
            k += run - 1;
        }
    }
    return 0;
}

/* Decodes the escape at s[*k] == '\\' (non-raw literal) into out; *k ends on the
 * last byte consumed. */
static int decode_escape(strbuf *out, const lit_parts *p, size_t *k)
{
    const char *s = p->body;
    size_t n = p->body_len;
    int bytes = (p->flags & PYSTR_BYTES) != 0;
    size_t i = *k + 1; /* split_literal guarantees a character after the backslash */
    char c = s[i];
    switch (c) {
    case '\n':
        break; /* line continuation */
    case '\r':
        if (i + 1 < n && s[i + 1] == '\n')
            i++;
        break;
    case '\\':
    case '\'':
    case '"':
        strbuf_addc(out, c);
        break;
    case 'a':
        strbuf_addc(out, '\a');
        break;
    case 'b':
        strbuf_addc(out, '\b');
        break;
    case 'f':
        strbuf_addc(out, '\f');
        break;
    case 'n':
        strbuf_addc(out, '\n');
        break;
    case 'r':
        strbuf_addc(out, '\r');
        break;
    case 't':
        strbuf_addc(out, '\t');
        break;
    case 'v':
        strbuf_addc(out, '\v');
        break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
        unsigned v = 0;
        size_t d = 0;
        while (d < 3 && i + d < n && is_octal(s[i + d])) {
            v = v * 8 + (unsigned)(s[i + d] - '0');
            d++;
        }
        i += d - 1;
        if (bytes)
            strbuf_addc(out, (char)(v & 0xFF)); /* CPython keeps the low byte */
        else
            add_utf8(out, v);
        break;
    }
    case 'x':
    case 'u':
    case 'U': {
        if (bytes && c != 'x')
            goto unknown;
        size_t want = c == 'x' ? 2 : c == 'u' ? 4 : 8;
        unsigned long v = 0;
        for (size_t d = 0; d < want; d++) {
            int h = i + 1 + d < n ? hex_value(s[i + 1 + d]) : -1;
            if (h < 0)
                return pgci_error_set(PGCI_EINVALID, "truncated \\%c escape (needs %zu hex digits)",
                                      c, want);
            v = v * 16 + (unsigned long)h;
        }
        i += want;
        if (v > 0x10FFFF)
            return pgci_error_set(PGCI_EINVALID, "illegal Unicode character in \\U%08lx escape", v);
        if (bytes)
            strbuf_addc(out, (char)v);
        else
            add_utf8(out, v);
        break;
    }
    case 'N':
        if (bytes)
            goto unknown;
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "\\N{...} named Unicode escapes are not supported (no Unicode name "
                              "database); write the character or a \\u escape instead");
    default:
    unknown:
        /* CPython keeps an unknown escape as it is (with a warning). The character
         * after the backslash is left to the caller when it needs more than a copy:
         * a brace in an f-string is still a brace, a non-ASCII character must be
         * checked as UTF-8. */
        strbuf_addc(out, '\\');
        if (((p->flags & PYSTR_FSTRING) && (c == '{' || c == '}')) || (unsigned char)c >= 0x80) {
            *k = i - 1;
            return 0;
        }
        strbuf_addc(out, c);
        break;
    }
    *k = i;
    return 0;
}

static int decode_body(strbuf *out, const lit_parts *p)
{
    const char *s = p->body;
    size_t n = p->body_len;
    int raw = (p->flags & PYSTR_RAW) != 0, bytes = (p->flags & PYSTR_BYTES) != 0;
    int fstr = (p->flags & PYSTR_FSTRING) != 0;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c == '\\' && !raw) {
            int r = decode_escape(out, p, &k);
            if (r < 0)
                return r;
        } else if (c == '\r') {
            strbuf_addc(out, '\n');
            if (k + 1 < n && s[k + 1] == '\n')
                k++;
        } else if (fstr && (c == '{' || c == '}')) {
            if (k + 1 < n && s[k + 1] == (char)c) {
                strbuf_addc(out, (char)c);
                k++;
            } else if (c == '{') {
                return pgci_error_set(PGCI_EUNSUPPORTED,
                                      "f-string with replacement fields has no constant value");
            } else {
                return pgci_error_set(PGCI_EINVALID, "f-string: single '}' is not allowed");
            }
        } else if (c >= 0x80) {
            if (bytes)
                return pgci_error_set(PGCI_EINVALID,
                                      "bytes can only contain ASCII literal characters");
            size_t l = utf8_seq_len((const unsigned char *)s + k, n - k);
            if (!l)
                return pgci_error_set(PGCI_EINVALID, "string literal is not valid UTF-8");
            strbuf_add(out, s + k, l);
            k += l - 1;
        } else {
            strbuf_addc(out, (char)c);
        }
    }
    return 0;
}

int pystr_decode_info(strbuf *out, const char *lit, size_t len, unsigned *flags)
{
    lit_parts p = {0};
    int r = split_literal(&p, lit, len);
    if (r < 0)
        return r;
    if (flags)
        *flags = p.flags;
    size_t mark = out->len;
    r = decode_body(out, &p);
    if (r < 0)
        strbuf_setlen(out, mark);
    return r;
}

int pystr_decode(strbuf *out, const char *lit, size_t len)
{
    return pystr_decode_info(out, lit, len, NULL);
}

static int decode_one_node(strbuf *out, const py_tree *t, TSNode n, unsigned *flags)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    int r = pystr_decode_info(out, s, len, flags);
    if (r < 0)
        pgci_error_wrap(r, "%s:%u:%u", t->path, py_line(n), py_col(n));
    return r;
}

int pystr_decode_node(strbuf *out, const py_tree *t, TSNode n)
{
    if (py_is(n, "string")) {
        unsigned fl;
        return decode_one_node(out, t, n, &fl);
    }
    if (!py_is(n, "concatenated_string"))
        return pgci_error_set(PGCI_EINVALID, "%s:%u:%u: expected a string literal, found %s",
                              t->path, py_line(n), py_col(n),
                              ts_node_is_null(n) ? "nothing" : ts_node_type(n));
    size_t mark = out->len;
    int kind = -1; /* -1 unknown, 0 str, 1 bytes */
    uint32_t c = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < c; i++) {
        TSNode part = ts_node_named_child(n, i);
        if (!py_is(part, "string"))
            continue; /* comments between the parts */
        unsigned fl = 0;
        int r = decode_one_node(out, t, part, &fl);
        if (r == 0) {
            int b = (fl & PYSTR_BYTES) != 0;
            if (kind >= 0 && kind != b)
                r = pgci_error_set(PGCI_EINVALID,
                                   "%s:%u:%u: cannot mix bytes and nonbytes literals", t->path,
                                   py_line(part), py_col(part));
            kind = b;
        }
        if (r < 0) {
            strbuf_setlen(out, mark);
            return r;
        }
    }
    return 0;
}

unsigned pystr_module_docstring(strbuf *out, const py_tree *t)
{
    TSNode root = py_root(t);
    uint32_t cnt = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(root, i);
        if (py_is(c, "comment"))
            continue;
        TSNode e = ts_node_named_child(c, 0);
        unsigned line = 0;
        if (py_is(c, "expression_statement") && !ts_node_is_null(e) && py_is(e, "string") &&
            pystr_decode_node(out, t, e) == 0)
            line = py_line(e);
        pgci_error_clear();
        return line;
    }
    return 0;
}
