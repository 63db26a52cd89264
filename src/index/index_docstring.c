/*
 * index_docstring.c - docstrings as Python tools read them: cleaned like
 * inspect.cleandoc, and the parameter names of a Google-style `Args:` section or,
 * without one, the entries @auto_docstring reads from the whole docstring (the
 * auto-docstring check compares them with a signature).
 */
#include <string.h>

#include "core/vec.h"
#include "index/index.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || (c >= 0x1c && c <= 0x1f);
}

/* Appends s[0..n) with tabs expanded to 8-column stops, as str.expandtabs(). */
static void add_expanded(strbuf *out, const char *s, size_t n)
{
    size_t col = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\t') {
            size_t pad = 8 - col % 8;
            strbuf_addrep(out, " ", pad);
            col += pad;
        } else {
            strbuf_addc(out, s[i]);
            col = s[i] == '\r' ? 0 : col + 1;
        }
    }
}

typedef struct line {
    size_t start, len;
} line;

void index_cleandoc(strbuf *out, const char *doc)
{
    strbuf x = STRBUF_INIT;
    VEC(line) lines = VEC_INIT;
    const char *p = doc;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line l = {x.len, 0};
        add_expanded(&x, p, n);
        l.len = x.len - l.start;
        VEC_PUSH(&lines, l);
        if (!nl)
            break;
        p = nl + 1;
    }
    size_t margin = (size_t)-1;
    for (size_t i = 1; i < lines.len; i++) {
        size_t k = 0;
        while (k < lines.items[i].len && is_space(x.buf[lines.items[i].start + k]))
            k++;
        if (k < lines.items[i].len && k < margin)
            margin = k;
    }
    /* first line: lstrip; others: cut the margin */
    while (lines.items[0].len && is_space(x.buf[lines.items[0].start])) {
        lines.items[0].start++;
        lines.items[0].len--;
    }
    if (margin != (size_t)-1)
        for (size_t i = 1; i < lines.len; i++) {
            size_t cut = lines.items[i].len < margin ? lines.items[i].len : margin;
            lines.items[i].start += cut;
            lines.items[i].len -= cut;
        }
    size_t lo = 0, hi = lines.len;
    while (hi > lo && lines.items[hi - 1].len == 0)
        hi--;
    while (lo < hi && lines.items[lo].len == 0)
        lo++;
    for (size_t i = lo; i < hi; i++) {
        if (i > lo)
            strbuf_addc(out, '\n');
        strbuf_add(out, x.buf + lines.items[i].start, lines.items[i].len);
    }
    VEC_FREE(&lines);
    strbuf_free(&x);
}

static size_t indent_of(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t'))
        k++;
    return k;
}

static int is_section_header(const char *s, size_t n)
{
    while (n && is_space(s[n - 1]))
        n--;
    static const char *const heads[] = {"Args:", "Arguments:", "Parameters:"};
    for (size_t i = 0; i < sizeof(heads) / sizeof(*heads); i++)
        if (strlen(heads[i]) == n && memcmp(s, heads[i], n) == 0)
            return 1;
    return 0;
}

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

/* The name of an entry line "name (type): text" / "name: text", or 0. */
static size_t entry_name(const char *s, size_t n, size_t *start)
{
    size_t i = 0;
    while (i < n && i < 2 && s[i] == '*')
        i++;
    *start = i;
    size_t j = i;
    while (j < n && is_ident_char(s[j]))
        j++;
    if (j == i || (s[i] >= '0' && s[i] <= '9'))
        return 0;
    size_t k = j;
    while (k < n && s[k] == ' ')
        k++;
    if (k < n && (s[k] == ':' || s[k] == '('))
        return j - i;
    return 0;
}

/* Whether a line's text opens what @auto_docstring cuts the argument docs at
 * ("Example", "Return", a code fence). */
static int ends_args(const char *s, size_t n)
{
    static const char *const heads[] = {"Example", "Return", "```"};
    for (size_t i = 0; i < sizeof(heads) / sizeof(*heads); i++)
        if (n >= strlen(heads[i]) && !memcmp(s, heads[i], strlen(heads[i])))
            return 1;
    return 0;
}

/* A docstring without an `Args:` header: @auto_docstring reads the whole of it,
 * up to a line that opens an example or the returns, as the argument docs, an
 * entry being a line at the text's least indent that starts `name (`
 * (transformers' parse_docstring: `cache_position (`torch.LongTensor`):`). */
typedef VEC(const char *) name_vec;

static void headerless_args(arena *a, const char *clean, size_t len, name_vec *out)
{
    size_t least = (size_t)-1, cut = len;
    for (const char *p = clean, *end = clean + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t ind = indent_of(p, n);
        if (ind < n && ends_args(p + ind, n - ind)) {
            cut = (size_t)(p - clean);
            break;
        }
        if (ind < n && ind < least)
            least = ind;
        p += n + 1;
    }
    for (const char *p = clean, *end = clean + cut; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t ind = indent_of(p, n), j = ind;
        while (j < n && is_ident_char(p[j]))
            j++;
        size_t k = j;
        while (k < n && p[k] == ' ')
            k++;
        if (ind == least && j > ind && !(p[ind] >= '0' && p[ind] <= '9') && k < n && p[k] == '(')
            VEC_PUSH(out, arena_strndup(a, p + ind, j - ind));
        p += n + 1;
    }
}

void index_doc_args(arena *a, const char *doc, const char ***names, size_t *n)
{
    strbuf clean = STRBUF_INIT;
    index_cleandoc(&clean, doc);
    name_vec out = VEC_INIT;
    for (size_t i = 0; i < *n; i++)
        VEC_PUSH(&out, (*names)[i]);

    int in_section = 0, headed = 0, flush = 0; /* flush: entries at the header's indent */
    size_t head_indent = 0, entry_indent = 0;
    const char *p = clean.buf, *end = clean.buf + clean.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t ind = indent_of(p, len);
        int blank = ind == len;
        if (!blank) {
            size_t st;
            /* `Args:` then entries at its own indent: transformers reads all that
             * follows the header, up to the returns or an example */
            if (in_section && ind <= head_indent &&
                !(ind == head_indent && (flush || !entry_indent) &&
                  !ends_args(p + ind, len - ind) && !is_section_header(p + ind, len - ind) &&
                  entry_name(p + ind, len - ind, &st)))
                in_section = 0;
            else if (in_section && ind == head_indent)
                flush = 1;
            if (!in_section && is_section_header(p + ind, len - ind)) {
                in_section = headed = 1;
                head_indent = ind;
                entry_indent = 0;
                flush = 0;
            } else if (in_section) {
                if (flush)
                    entry_indent = head_indent;
                else if (!entry_indent)
                    entry_indent = ind;
                size_t nl_len = ind == entry_indent ? entry_name(p + ind, len - ind, &st) : 0;
                if (nl_len)
                    VEC_PUSH(&out, arena_strndup(a, p + ind + st, nl_len));
            }
        }
        p += len + 1;
    }
    if (!headed)
        headerless_args(a, clean.buf, clean.len, &out);
    strbuf_free(&clean);
    if (out.len) {
        const char **arr = arena_alloc(a, out.len * sizeof(*arr));
        memcpy(arr, out.items, out.len * sizeof(*arr));
        *names = arr;
        *n = out.len;
    }
    VEC_FREE(&out);
}
