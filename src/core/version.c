/* version.c - release versions: parse, compare, pick the newest. */
#include "core/version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Splits "v5.16.1rc2" into numbers and a pre-release rank (0 when final). */
static void parse_version(const char *s, long num[4], int *pre)
{
    memset(num, 0, 4 * sizeof(long));
    *pre = 0;
    if (*s == 'v' || *s == 'V')
        s++;
    for (int i = 0; i < 4 && isdigit((unsigned char)*s); i++) {
        num[i] = strtol(s, (char **)&s, 10);
        if (*s != '.')
            break;
        s++;
    }
    /* "5.x": the series, as final as 5.0 */
    if ((*s == 'x' || *s == '*') && !s[1])
        return;
    if (*s)
        *pre = 1;
}

int version_cmp(const char *a, const char *b)
{
    long x[4], y[4];
    int pa, pb;
    parse_version(a, x, &pa);
    parse_version(b, y, &pb);
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    if (pa != pb)
        return pa ? -1 : 1;
    return 0;
}

/* Runs of digits compare as numbers, everything else byte by byte. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (a[0] == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (b[0] == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = strncmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int tag_cmp(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    int c = version_cmp(a, b);
    if (!c)
        c = natural_cmp(a, b);
    return c ? c : strcmp(a, b);
}

void version_sort(char **tags, size_t n)
{
    if (n > 1)
        qsort(tags, n, sizeof(*tags), tag_cmp);
}

int version_is_release(const char *tag)
{
    const char *s = tag;
    if (*s == 'v' || *s == 'V')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != '.')
            return 0;
    return 1;
}

char *version_latest(const strvec *tags, const char *after)
{
    const char *best = NULL;
    for (size_t i = 0; i < tags->len; i++) {
        const char *t = tags->items[i];
        if (!version_is_release(t) || (after && version_cmp(t, after) <= 0))
            continue;
        if (!best || version_cmp(t, best) > 0)
            best = t;
    }
    return best ? pgci_strdup(best) : NULL;
}
