#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void *pgci_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("pgci: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *pgci_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("pgci: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *pgci_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("pgci: out of memory\n", stderr);
        abort();
    }
    return q;
}

void strbuf_init(strbuf *sb, size_t hint)
{
    sb->buf = strbuf_empty;
    sb->len = 0;
    sb->alloc = 0;
    if (hint)
        strbuf_grow(sb, hint);
}

void strbuf_free(strbuf *sb)
{
    if (sb->alloc)
        free(sb->buf);
    sb->buf = strbuf_empty;
    sb->len = 0;
    sb->alloc = 0;
}

void strbuf_grow(strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->alloc)
        return;
    size_t n = sb->alloc ? sb->alloc : 64;
    while (n < need)
        n = n * 2;
    if (sb->alloc) {
        sb->buf = pgci_realloc(sb->buf, n);
    } else {
        sb->buf = pgci_malloc(n);
        sb->buf[0] = '\0';
    }
    sb->alloc = n;
}

void strbuf_add(strbuf *sb, const void *data, size_t len)
{
    if (!len)
        return;
    strbuf_grow(sb, len);
    memmove(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void strbuf_adds(strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addc(strbuf *sb, char c)
{
    strbuf_grow(sb, 1);
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n <= 0)
        return;
    strbuf_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_addrep(strbuf *sb, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        strbuf_adds(sb, s);
}

void strbuf_setlen(strbuf *sb, size_t len)
{
    if (len > sb->len)
        len = sb->len;
    sb->len = len;
    if (sb->alloc)
        sb->buf[len] = '\0';
}

void strbuf_reset(strbuf *sb)
{
    strbuf_setlen(sb, 0);
}

void strbuf_rtrim(strbuf *sb)
{
    while (sb->len > 0 && strchr(" \t\r\n\f\v", sb->buf[sb->len - 1]))
        sb->len--;
    if (sb->alloc)
        sb->buf[sb->len] = '\0';
}

char *strbuf_detach(strbuf *sb, size_t *len)
{
    char *r;
    if (len)
        *len = sb->len;
    if (sb->alloc) {
        r = sb->buf;
    } else {
        r = pgci_malloc(1);
        r[0] = '\0';
    }
    sb->buf = strbuf_empty;
    sb->len = 0;
    sb->alloc = 0;
    return r;
}

char *pgci_strndup(const char *s, size_t n)
{
    char *r = pgci_malloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *pgci_strdup(const char *s)
{
    return pgci_strndup(s, strlen(s));
}

char *pgci_asprintf(const char *fmt, ...)
{
    strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    return strbuf_detach(&sb, NULL);
}

int pgci_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int pgci_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}
