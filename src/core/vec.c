#include "core/vec.h"

#include <string.h>

void strvec_push_owned(strvec *v, char *s)
{
    VEC_PUSH(v, s);
}

void strvec_push(strvec *v, const char *s)
{
    strvec_push_owned(v, pgci_strdup(s));
}

void strvec_pushn(strvec *v, const char *s, size_t n)
{
    strvec_push_owned(v, pgci_strndup(s, n));
}

long strvec_find(const strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return (long)i;
    return -1;
}

int strvec_equal(const strvec *a, const strvec *b)
{
    if (a->len != b->len)
        return 0;
    for (size_t i = 0; i < a->len; i++)
        if (strcmp(a->items[i], b->items[i]))
            return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(strvec *v)
{
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(char *), cmp_str);
}

void strvec_free(strvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    VEC_FREE(v);
}
