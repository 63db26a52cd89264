/*
 * normalize_report.c - a batched `ruff check`'s text report, cut into what each
 * file's own run would have printed.
 *
 * The batch runs ruff as the per-file way does (same arguments, same working
 * directory, so the report format the project configures, or ruff's default
 * "full"); each file sits in its own directory dir/<k>/. ruff lints the files
 * independently and prints each file's diagnostics in the order its own run
 * prints them, so a file's part of the batch's report is its own run's report,
 * with dir/<k> where the per-file way has its temporary directory.
 *
 * Where a part starts:
 *  - "full" (ruff's default): a diagnostic is a header line ("F821 Undefined
 *    name `x`") followed by an arrow line "  --> PATH:ROW:COL" naming its file;
 *    the part starts at the header;
 *  - "concise" and "pylint": a diagnostic is a line starting with "PATH:";
 *    "grouped": a file's diagnostics follow a line "PATH:" of their own.
 * A part runs to the next part's start. The cut is refused (and the caller asks
 * each refused file again, alone) when the report is anything else: text before
 * the first part, or a line naming one of the batch's files inside another
 * file's part, or a path under the batch's directory that is none of its files.
 */
#include <string.h>

#include "patchgen/normalize_internal.h"

/* The index k when s[0..len) starts with "dir/<k>/<file k's base name>", the
 * length of that path in *plen; -1 when it starts with "dir/" but names no
 * file of the batch; -2 when it does not start with "dir/". */
static long path_at(const char *s, size_t len, const char *dir, size_t dlen, const strvec *files,
                    size_t *plen)
{
    if (len <= dlen || memcmp(s, dir, dlen) || s[dlen] != '/')
        return -2;
    size_t i = dlen + 1, k = 0, digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 9) {
        k = k * 10 + (size_t)(s[i++] - '0');
        digits++;
    }
    if (!digits || k >= files->len || (digits > 1 && s[dlen + 1] == '0'))
        return -1;
    const char *f = files->items[k];
    size_t flen = strlen(f);
    if (flen > len || memcmp(s, f, flen))
        return -1;
    *plen = flen;
    return (long)k;
}

/* The file a diagnostic starting at this line belongs to, or -1 (none); -2 when
 * the line names a path under dir that is not one of the files. `next` is the
 * line after (NULL at the end): a "full" header is the line before its arrow. */
static long line_owner(const char *l, size_t len, const char *next, size_t next_len,
                       const char *dir, size_t dlen, const strvec *files, int *header)
{
    size_t plen = 0;
    *header = 0;
    long k = path_at(l, len, dir, dlen, files, &plen);
    if (k >= 0)
        return plen < len && l[plen] == ':' ? k : -2;
    if (k == -1)
        return -2;
    if (!next)
        return -1;
    size_t i = 0;
    while (i < next_len && next[i] == ' ')
        i++;
    if (next_len - i < 4 || memcmp(next + i, "--> ", 4))
        return -1;
    i += 4;
    k = path_at(next + i, next_len - i, dir, dlen, files, &plen);
    if (k == -1)
        return -2;
    if (k < 0)
        return -1;
    /* PATH:ROW:COL, nothing after */
    const char *p = next + i + plen, *e = next + next_len;
    for (int part = 0; part < 2; part++) {
        if (p >= e || *p != ':' || p + 1 >= e || p[1] < '0' || p[1] > '9')
            return -2;
        p++;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p != e)
        return -2;
    *header = 1;
    return k;
}

/* 1 when l[0..len) mentions dir/ as a path of some file other than `owner`'s, or
 * a path under dir that is no file of the batch. */
static int names_other(const char *l, size_t len, const char *dir, size_t dlen, const strvec *files,
                       long owner)
{
    for (size_t i = 0; i + dlen < len; i++) {
        if (l[i] != dir[0] || memcmp(l + i, dir, dlen) || l[i + dlen] != '/')
            continue;
        size_t plen = 0;
        long k = path_at(l + i, len - i, dir, dlen, files, &plen);
        if (k != owner)
            return 1;
    }
    return 0;
}

long normalize_report_split(const char *rep, size_t len, const char *dir, const strvec *files,
                            strbuf *parts)
{
    size_t dlen = strlen(dir);
    long owner = -1, found = 0;
    size_t start = 0; /* of the current part */
    int arrow = 0;    /* this line is the arrow line of the header before */
    for (size_t k = 0; k < files->len; k++)
        strbuf_reset(&parts[k]);
    if (!dlen)
        return -1;
    for (size_t at = 0, next_at; at < len; at = next_at) {
        const char *l = rep + at, *nl = memchr(l, '\n', len - at);
        size_t llen = nl ? (size_t)(nl - l) : len - at;
        next_at = at + llen + (nl ? 1 : 0);
        if (arrow) { /* names its part's file: line_owner() read it */
            arrow = 0;
            if (names_other(l, llen, dir, dlen, files, owner))
                return -1;
            continue;
        }
        const char *next = next_at < len ? rep + next_at : NULL, *nn = NULL;
        if (next)
            nn = memchr(next, '\n', len - next_at);
        size_t next_len = !next ? 0 : nn ? (size_t)(nn - next) : len - next_at;
        long k = line_owner(l, llen, next, next_len, dir, dlen, files, &arrow);
        if (k == -2)
            return -1;
        if (k >= 0) {
            if (owner >= 0)
                strbuf_add(&parts[owner], rep + start, at - start);
            owner = k;
            start = at;
            if (names_other(l, llen, dir, dlen, files, owner))
                return -1;
        } else if (owner < 0) {
            for (size_t i = 0; i < llen; i++)
                if (l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
                    return -1; /* text before the first diagnostic */
        } else if (names_other(l, llen, dir, dlen, files, owner)) {
            return -1;
        }
    }
    if (owner >= 0)
        strbuf_add(&parts[owner], rep + start, len - start);
    for (size_t k = 0; k < files->len; k++)
        found += parts[k].len > 0;
    return found;
}
