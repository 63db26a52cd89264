#include "py/pysrc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core/error.h"

/* 1-based line and column of byte `at` of s. */
static void position(const char *s, size_t at, unsigned *line, unsigned *col)
{
    unsigned l = 1;
    size_t start = 0;
    for (size_t i = 0; i < at; i++)
        if (s[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *col = (unsigned)(at - start + 1);
}

/* The coding named on line 1, or on line 2 when line 1 is blank or a comment,
 * as CPython's tokenizer finds it (`coding[:=][ \t]*([-\w.]+)` in a comment). */
static int find_coding(const char *s, size_t len, char *name, size_t cap, size_t *at)
{
    size_t i = 0;
    for (int line = 0; line < 2 && i < len; line++) {
        size_t end = i;
        while (end < len && s[end] != '\n')
            end++;
        size_t k = i;
        while (k < end && (s[k] == ' ' || s[k] == '\t' || s[k] == '\f'))
            k++;
        if (k == end || s[k] != '#')
            return 0; /* code on this line: no coding line after it */
        for (size_t j = k; j + 7 < end; j++) {
            if (memcmp(s + j, "coding", 6) || (s[j + 6] != ':' && s[j + 6] != '='))
                continue;
            size_t v = j + 7, n = 0;
            while (v < end && (s[v] == ' ' || s[v] == '\t'))
                v++;
            *at = v;
            while (v < end && n + 1 < cap &&
                   (isalnum((unsigned char)s[v]) || s[v] == '-' || s[v] == '_' || s[v] == '.'))
                name[n++] = s[v++];
            name[n] = '\0';
            return n > 0;
        }
        i = end + 1;
    }
    return 0;
}

enum coding { CODING_UTF8, CODING_ASCII_SUPERSET, CODING_UNKNOWN };

/* Python's normal name for a coding (tokenizer.c get_normal_name), then the codec
 * aliases pgci knows: UTF-8, or an encoding that decodes ASCII as ASCII. */
static enum coding coding_kind(const char *name)
{
    char n[16];
    size_t i = 0;
    for (; name[i] && i < sizeof(n) - 1; i++)
        n[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
    n[i] = '\0';
    if (!strcmp(n, "utf-8") || !strncmp(n, "utf-8-", 6) || !strcmp(n, "utf8") || !strcmp(n, "u8") ||
        !strcmp(n, "utf"))
        return CODING_UTF8;
    static const char *const ascii[] = {"latin-1",  "iso-8859-1", "iso-latin-1", "latin1",
                                        "l1",       "latin",      "iso8859-1",   "ascii",
                                        "us-ascii", "646",        NULL};
    for (size_t k = 0; ascii[k]; k++)
        if (!strcmp(n, ascii[k]) ||
            (!strncmp(n, ascii[k], strlen(ascii[k])) && n[strlen(ascii[k])] == '-' && k < 3))
            return CODING_ASCII_SUPERSET;
    if ((!strncmp(n, "iso-8859-", 9) || !strncmp(n, "iso8859-", 8) || !strncmp(n, "cp125", 5) ||
         !strncmp(n, "windows-125", 11)) &&
        isdigit((unsigned char)n[strlen(n) - 1]))
        return CODING_ASCII_SUPERSET;
    return CODING_UNKNOWN;
}

/* The first byte that does not start a valid UTF-8 sequence, or len. */
static size_t first_bad_utf8(const char *s, size_t len, int *non_ascii)
{
    size_t i = 0;
    *non_ascii = 0;
    while (i < len) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        *non_ascii = 1;
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n <= 0)
            return i;
        i += (size_t)n;
    }
    return len;
}

static int check_encoding(const char *s, size_t len, const char *path)
{
    unsigned line, col;
    const char *nul = memchr(s, '\0', len);
    if (nul) {
        position(s, (size_t)(nul - s), &line, &col);
        return pgci_error_set(PGCI_EINVALID,
                              "%s:%u:%u: syntax error: a NUL byte (Python refuses it: \"source "
                              "code string cannot contain null bytes\")",
                              path, line, col);
    }
    int non_ascii;
    size_t bad = first_bad_utf8(s, len, &non_ascii);
    if (bad < len) {
        position(s, bad, &line, &col);
        return pgci_error_set(PGCI_EINVALID,
                              "%s:%u:%u: non-UTF-8 byte 0x%02X (patchgen reads config files as "
                              "UTF-8 and fails on it)",
                              path, line, col, (unsigned char)s[bad]);
    }
    char name[64];
    size_t at;
    if (!find_coding(s, len, name, sizeof(name), &at))
        return 0;
    enum coding k = coding_kind(name);
    position(s, at, &line, &col);
    if (k == CODING_UNKNOWN)
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s:%u:%u: unsupported coding line '%s' (pgci reads UTF-8, and "
                              "ASCII under latin-1, iso-8859, cp125x or ascii coding lines)",
                              path, line, col, name);
    if (k == CODING_ASCII_SUPERSET && non_ascii) {
        size_t i = 0;
        while ((unsigned char)s[i] < 0x80)
            i++;
        position(s, i, &line, &col);
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s:%u:%u: non-ASCII text under the coding line '%s' (Python "
                              "decodes it as %s, patchgen's comment reader as UTF-8; pgci does "
                              "not model the mix)",
                              path, line, col, name, name);
    }
    return 0;
}

int pysrc_prepare(strbuf *out, const char *src, size_t len, const char *path)
{
    if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s:1:1: a UTF-8 byte order mark (unsupported: Python drops it, "
                              "patchgen's comment reader keeps it on line 1)",
                              path);
    size_t start = out->len;
    strbuf_grow(out, len);
    /* universal newlines: each \r\n or lone \r becomes \n, the runs between copied whole */
    for (size_t i = 0; i < len;) {
        const char *cr = memchr(src + i, '\r', len - i);
        size_t run = cr ? (size_t)(cr - (src + i)) : len - i;
        strbuf_add(out, src + i, run);
        i += run;
        if (i < len) {
            strbuf_addc(out, '\n');
            i += i + 1 < len && src[i + 1] == '\n' ? 2 : 1;
        }
    }
    return check_encoding(out->buf + start, out->len - start, path);
}

static int is_open(const char *type)
{
    return type[1] == '\0' && (type[0] == '(' || type[0] == '[' || type[0] == '{');
}

static int is_close(const char *type)
{
    return type[1] == '\0' && (type[0] == ')' || type[0] == ']' || type[0] == '}');
}

/* 1 when n is a block on lines of its own: one more level of CPython's indent stack
 * (a body on its header's line, `if x: pass`, is not). */
static int indents(TSNode n)
{
    /* ts_node_parent walks down from the root: only for blocks (it was 7 % of a
     * regeneration's time when asked of every node) */
    if (strcmp(ts_node_type(n), "block"))
        return 0;
    TSNode parent = ts_node_parent(n);
    return !ts_node_is_null(parent) && ts_node_start_point(n).row > ts_node_start_point(parent).row;
}

static int nesting_error(const py_tree *t, TSNode n, const char *what, int limit)
{
    return pgci_error_set(PGCI_ELIMIT,
                          "%s:%u:%u: %s nested more than %d deep (CPython refuses "
                          "to compile it: too many %s)",
                          t->path, py_line(n), py_col(n), what, limit,
                          what[0] == 'b' ? "nested parentheses" : "levels of indentation");
}

/* Whether nothing inside n can pass a limit: each bracket or indentation level
 * it opens takes at least one of its bytes, and a node without error holds both
 * brackets of a pair or neither, so stepping over it leaves the counts as they
 * were. */
static int nesting_bounded(TSNode n, int brackets, int indent)
{
    uint32_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
    return len <= PYSRC_MAX_BRACKETS && brackets + (int)len <= PYSRC_MAX_BRACKETS &&
           indent + (int)len <= PYSRC_MAX_INDENT && !ts_node_has_error(n);
}

int pysrc_check_nesting(const py_tree *t)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    /* levels[d]: whether the node at tree depth d opened an indentation level */
    unsigned char *levels = pgci_calloc(PYSRC_MAX_TREE_DEPTH + 2, 1);
    int depth = 0, brackets = 0, indent = 0, r = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        const char *type = ts_node_type(n);
        if (!ts_node_is_named(n) && is_open(type) && ++brackets > PYSRC_MAX_BRACKETS) {
            r = nesting_error(t, n, "brackets", PYSRC_MAX_BRACKETS);
            break;
        }
        if (!ts_node_is_named(n) && is_close(type))
            brackets--;
        levels[depth] = (unsigned char)indents(n);
        indent += levels[depth];
        if (indent > PYSRC_MAX_INDENT) {
            r = nesting_error(t, n, "indented blocks", PYSRC_MAX_INDENT);
            break;
        }
        /* a string's own brackets (f-string fields) are not the tokenizer's */
        if (strcmp(type, "string") && depth <= PYSRC_MAX_TREE_DEPTH &&
            !nesting_bounded(n, brackets, indent) && ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        for (;;) {
            indent -= levels[depth];
            if (ts_tree_cursor_goto_next_sibling(&cur))
                break;
            if (!ts_tree_cursor_goto_parent(&cur))
                goto done;
            depth--;
        }
    }
done:
    free(levels);
    ts_tree_cursor_delete(&cur);
    return r;
}

char *pysrc_nfkc(const char *s, size_t len, size_t *out_len)
{
    size_t i = 0;
    while (i < len && (unsigned char)s[i] < 0x80)
        i++;
    if (i == len)
        return NULL;
    char *z = pgci_strndup(s, len);
    utf8proc_uint8_t *n = utf8proc_NFKC((const utf8proc_uint8_t *)z);
    free(z);
    if (!n)
        return NULL; /* not valid UTF-8: pysrc_prepare refused it already */
    size_t nl = strlen((char *)n);
    if (nl == len && !memcmp(n, s, len)) {
        free(n);
        return NULL;
    }
    *out_len = nl;
    return (char *)n;
}

static int is_keyword(const char *s)
{
    static const char *const kw[] = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",    NULL};
    for (size_t i = 0; kw[i]; i++)
        if (!strcmp(s, kw[i]))
            return 1;
    return 0;
}

/* The runs of bytes above 0x7f in a text, in order: the only places an identifier
 * can need normalising. */
typedef struct wide_runs {
    size_t *end; /* end[i]: one past the last byte of run i */
    size_t *start;
    size_t len;
} wide_runs;

static void wide_runs_find(wide_runs *w, const char *s, size_t n)
{
    size_t cap = 0;
    memset(w, 0, sizeof(*w));
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] < 0x80)
            continue;
        size_t j = i;
        while (j < n && (unsigned char)s[j] >= 0x80)
            j++;
        if (w->len == cap) {
            cap = cap ? cap * 2 : 16;
            w->start = pgci_realloc(w->start, cap * sizeof(size_t));
            w->end = pgci_realloc(w->end, cap * sizeof(size_t));
        }
        w->start[w->len] = i;
        w->end[w->len++] = j;
        i = j;
    }
}

/* Whether [a, b) holds a byte of a run. */
static int wide_runs_meet(const wide_runs *w, size_t a, size_t b)
{
    size_t lo = 0, hi = w->len; /* the first run ending after a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->end[mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->len && w->start[lo] < b;
}

int pysrc_normalize_identifiers(strbuf *out, const py_tree *t)
{
    /* an ASCII identifier is NFKC-normal: only nodes that hold a byte above 0x7f
     * are entered, and a source without one (most) is not walked at all */
    wide_runs wide;
    wide_runs_find(&wide, t->src, t->len);
    if (!wide.len)
        return 0;
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    size_t copied = 0;
    int changed = 0, r = 0, enter;
    do {
        TSNode n = ts_tree_cursor_current_node(&cur);
        if (!wide_runs_meet(&wide, ts_node_start_byte(n), ts_node_end_byte(n))) {
            enter = 0;
            continue;
        }
        enter = strcmp(ts_node_type(n), "identifier") != 0;
        if (!enter) {
            size_t len, nl;
            const char *s = py_text(t, n, &len);
            char *norm = pysrc_nfkc(s, len, &nl);
            if (norm && is_keyword(norm)) {
                r = pgci_error_set(PGCI_EUNSUPPORTED,
                                   "%s:%u:%u: identifier '%.*s' is the keyword '%s' once "
                                   "NFKC-normalised (unsupported)",
                                   t->path, py_line(n), py_col(n), (int)len, s, norm);
                free(norm);
                goto done;
            }
            if (norm) {
                size_t at = ts_node_start_byte(n);
                strbuf_add(out, t->src + copied, at - copied);
                strbuf_add(out, norm, nl);
                copied = at + len;
                changed = 1;
                free(norm);
            }
        }
    } while (py_cursor_next(&cur, enter));
done:
    ts_tree_cursor_delete(&cur);
    free(wide.start);
    free(wide.end);
    if (r < 0)
        return r;
    if (changed)
        strbuf_add(out, t->src + copied, t->len - copied);
    return changed;
}

int pysrc_check_indent_width(const char *src, size_t len, const char *path)
{
    unsigned line = 1;
    for (size_t i = 0; i < len; line++) {
        unsigned col = 0;
        while (i < len && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f')) {
            col = src[i] == '\t' ? (col / 8 + 1) * 8 : src[i] == ' ' ? col + 1 : 0;
            i++;
        }
        int code = i < len && src[i] != '\n' && src[i] != '#';
        if (code && col > PYSRC_MAX_INDENT_WIDTH)
            return pgci_error_set(PGCI_EUNSUPPORTED,
                                  "%s:%u:%u: indentation wider than %d columns (unsupported: the "
                                  "Python grammar pgci parses with keeps indentation in one byte)",
                                  path, line, col + 1, PYSRC_MAX_INDENT_WIDTH);
        while (i < len && src[i] != '\n')
            i++;
        i++;
    }
    return 0;
}
