/*
 * strbuf.h - the one growable string buffer used everywhere (after git's strbuf).
 *
 * A strbuf always holds a NUL-terminated string in buf[0..len]. An initialised but
 * empty strbuf points at a shared empty string and owns no memory, so STRBUF_INIT
 * needs no allocation and strbuf_free() on it is a no-op. Allocation failure aborts:
 * pgci cannot do anything useful without memory, and checking every append would
 * hide the logic.
 */
#ifndef PGCI_CORE_STRBUF_H
#define PGCI_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
} strbuf;

extern char strbuf_empty[];
#define STRBUF_INIT                                                                                \
    {                                                                                              \
        strbuf_empty, 0, 0                                                                         \
    }

void strbuf_init(strbuf *sb, size_t hint);
void strbuf_free(strbuf *sb);
/* Makes room for `extra` more bytes (plus the NUL). */
void strbuf_grow(strbuf *sb, size_t extra);
void strbuf_add(strbuf *sb, const void *data, size_t len);
void strbuf_adds(strbuf *sb, const char *s);
void strbuf_addc(strbuf *sb, char c);
void strbuf_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(strbuf *sb, const char *fmt, va_list ap);
/* Appends `s` `n` times. */
void strbuf_addrep(strbuf *sb, const char *s, size_t n);
void strbuf_setlen(strbuf *sb, size_t len);
void strbuf_reset(strbuf *sb);
/* Removes trailing whitespace (space, tab, \r, \n, \f, \v). */
void strbuf_rtrim(strbuf *sb);
/* Hands the buffer to the caller (always malloc'ed, never NULL) and resets sb. */
char *strbuf_detach(strbuf *sb, size_t *len);
/* Duplicates a byte range as a NUL-terminated malloc'ed string. */
char *pgci_strndup(const char *s, size_t n);
char *pgci_strdup(const char *s);
/* malloc/calloc/realloc that abort on failure. */
void *pgci_malloc(size_t n);
void *pgci_calloc(size_t n, size_t size);
void *pgci_realloc(void *p, size_t n);
/* printf into a new malloc'ed string. */
char *pgci_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int pgci_starts_with(const char *s, const char *prefix);
int pgci_ends_with(const char *s, const char *suffix);

#endif
