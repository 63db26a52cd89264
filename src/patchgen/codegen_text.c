/*
 * codegen_text.c - Python's string semantics where patchgen's output depends on
 * them. See codegen_text.h for why each exists.
 */
#include "patchgen/codegen_text.h"

#include <string.h>

#include "patchgen/difflib.h"

void cgtext_splitlines(cg_lines *out, const char *s, size_t n)
{
    size_t start = 0, i, bl;
    if (difflib_newlines_only(s, n)) {
        for (const char *nl; start < n && (nl = memchr(s + start, '\n', n - start));) {
            cg_span sp = {s + start, (size_t)(nl - s) - start};
            VEC_PUSH(out, sp);
            start = (size_t)(nl - s) + 1;
        }
    } else {
        while ((i = difflib_next_boundary(s, n, start, &bl)) < n) {
            cg_span sp = {s + start, i - start};
            VEC_PUSH(out, sp);
            start = i + bl;
        }
    }
    if (start < n) {
        cg_span sp = {s + start, n - start};
        VEC_PUSH(out, sp);
    }
}

void cgtext_readlines(cg_lines *out, const char *s, size_t n)
{
    size_t start = 0;
    const char *nl;
    while (start < n && (nl = memchr(s + start, '\n', n - start)) != NULL) {
        size_t i = (size_t)(nl - s);
        cg_span sp = {s + start, i + 1 - start};
        VEC_PUSH(out, sp);
        start = i + 1;
    }
    if (start < n) {
        cg_span sp = {s + start, n - start};
        VEC_PUSH(out, sp);
    }
}

void cgtext_universal_newlines(strbuf *out, const char *s, size_t n)
{
    if (!memchr(s, '\r', n)) {
        strbuf_add(out, s, n);
        return;
    }
    strbuf_grow(out, n);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r') {
            strbuf_addc(out, '\n');
            if (i + 1 < n && s[i + 1] == '\n')
                i++;
        } else {
            strbuf_addc(out, s[i]);
        }
    }
}

size_t cgtext_space_len(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    if (n == 0)
        return 0;
    if ((u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x20))
        return 1;
    if (u[0] == 0xc2 && n > 1 && (u[1] == 0x85 || u[1] == 0xa0))
        return 2;
    if (n > 2) {
        unsigned cp = ((unsigned)(u[0] & 0x0f) << 12) | ((unsigned)(u[1] & 0x3f) << 6) |
                      (unsigned)(u[2] & 0x3f);
        if ((u[0] & 0xf0) == 0xe0 &&
            (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
             cp == 0x202f || cp == 0x205f || cp == 0x3000))
            return 3;
    }
    return 0;
}

size_t cgtext_lstrip_off(const char *p, size_t n)
{
    size_t i = 0, k;
    while (i < n && (k = cgtext_space_len(p + i, n - i)) > 0)
        i += k;
    return i;
}

int cgtext_is_blank(const char *p, size_t n)
{
    return cgtext_lstrip_off(p, n) == n;
}

/* Start of the UTF-8 character that ends at p[n-1]. */
static size_t last_char_start(const char *p, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && ((unsigned char)p[i] & 0xc0) == 0x80)
        i--;
    return i;
}

cg_span cgtext_strip(const char *p, size_t n)
{
    size_t a = cgtext_lstrip_off(p, n);
    size_t b = n;
    while (b > a) {
        size_t c = last_char_start(p, b);
        if (c < a || cgtext_space_len(p + c, b - c) != b - c)
            break;
        b = c;
    }
    cg_span s = {p + a, b - a};
    return s;
}

size_t cgtext_cplen(const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)p[i] & 0xc0) != 0x80)
            k++;
    return k;
}

size_t cgtext_cpoff(const char *p, size_t n, size_t k)
{
    size_t i = 0;
    while (i < n && k > 0) {
        i++;
        while (i < n && ((unsigned char)p[i] & 0xc0) == 0x80)
            i++;
        k--;
    }
    return i;
}

void cgtext_join(strbuf *out, const cg_lines *lines)
{
    for (size_t i = 0; i < lines->len; i++) {
        if (i)
            strbuf_addc(out, '\n');
        strbuf_add(out, lines->items[i].p, lines->items[i].n);
    }
}

/*
 * textwrap.dedent, 3.11: whitespace-only lines ([ \t]+ up to "\n" or the end)
 * become empty; the margin is the longest common [ \t]* prefix of the lines that
 * contain something other than space, tab and newline; it is then removed from
 * every line that starts with it. Lines are "\n"-delimited here (re's ^ and $).
 */
void cgtext_dedent(strbuf *out, const char *s, size_t n)
{
    cg_lines lines = VEC_INIT;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '\n') {
            cg_span sp = {s + start, i - start};
            VEC_PUSH(&lines, sp);
            start = i + 1;
        }
    }
    /* whitespace-only lines become empty */
    for (size_t i = 0; i < lines.len; i++) {
        cg_span *l = &lines.items[i];
        size_t k = 0;
        while (k < l->n && (l->p[k] == ' ' || l->p[k] == '\t'))
            k++;
        if (k == l->n)
            l->n = 0;
    }
    const char *margin = NULL;
    size_t mlen = 0;
    for (size_t i = 0; i < lines.len; i++) {
        cg_span *l = &lines.items[i];
        size_t k = 0;
        while (k < l->n && (l->p[k] == ' ' || l->p[k] == '\t'))
            k++;
        if (k == l->n)
            continue; /* no [^ \t\n] on this line */
        if (!margin) {
            margin = l->p;
            mlen = k;
        } else if (k >= mlen && memcmp(l->p, margin, mlen) == 0) {
            /* indent starts with margin */
        } else if (k < mlen && memcmp(margin, l->p, k) == 0) {
            mlen = k;
        } else {
            size_t j = 0;
            while (j < mlen && j < k && margin[j] == l->p[j])
                j++;
            mlen = j;
        }
    }
    for (size_t i = 0; i < lines.len; i++) {
        cg_span l = lines.items[i];
        if (i)
            strbuf_addc(out, '\n');
        if (mlen && l.n >= mlen && memcmp(l.p, margin, mlen) == 0) {
            l.p += mlen;
            l.n -= mlen;
        }
        strbuf_add(out, l.p, l.n);
    }
    VEC_FREE(&lines);
}

void cgtext_replace(strbuf *out, const char *s, size_t n, const char *old, const char *new_,
                    long count)
{
    size_t olen = strlen(old), nlen = strlen(new_);
    long done = 0;
    if (olen == 0) {
        size_t i = 0;
        for (;;) {
            if (count >= 0 && done >= count) {
                strbuf_add(out, s + i, n - i);
                return;
            }
            strbuf_add(out, new_, nlen);
            done++;
            if (i >= n)
                return;
            size_t j = cgtext_cpoff(s + i, n - i, 1);
            strbuf_add(out, s + i, j);
            i += j;
        }
    }
    size_t i = 0;
    while (i < n) {
        if ((count < 0 || done < count) && n - i >= olen && memcmp(s + i, old, olen) == 0) {
            strbuf_add(out, new_, nlen);
            i += olen;
            done++;
            continue;
        }
        /* copy up to the next possible match start */
        const char *hit = (count < 0 || done < count) ? memchr(s + i, old[0], n - i) : NULL;
        size_t stop = hit ? (size_t)(hit - s) : n;
        if (stop == i)
            stop = i + 1;
        strbuf_add(out, s + i, stop - i);
        i = stop;
    }
}

void cgtext_replace_in(strbuf *sb, const char *old, const char *new_, long count)
{
    strbuf tmp = STRBUF_INIT;
    cgtext_replace(&tmp, sb->buf, sb->len, old, new_, count);
    strbuf_free(sb);
    *sb = tmp;
}
