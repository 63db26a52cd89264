/*
 * `@deprecate_kwarg("past_key_value", new_name="past_key_values", version="4.58")`:
 * the first positional string is the old argument, the keywords say where it went
 * and when it goes. Read from the decorator's text as the index keeps it.
 */
#include "checks/deprecate_kwarg.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* The string literal at s ('...' or "..."), malloc'ed; NULL when s holds none. */
static char *string_at(const char *s)
{
    while (*s == ' ')
        s++;
    if (*s != '"' && *s != '\'')
        return NULL;
    const char *e = strchr(s + 1, *s);
    return e ? pgci_strndup(s + 1, (size_t)(e - s - 1)) : NULL;
}

static char *keyword(const char *args, const char *kw)
{
    size_t n = strlen(kw);
    for (const char *p = args; (p = strstr(p, kw)); p += n) {
        if (p > args && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        while (*q == ' ')
            q++;
        if (*q == '=' && q[1] != '=')
            return string_at(q + 1);
    }
    return NULL;
}

int deprecated_kwarg_parse(deprecated_kwarg *out, const char *decorator)
{
    memset(out, 0, sizeof(*out));
    const char *d = decorator;
    if (!strchr(d, '('))
        return 0;
    size_t n = strcspn(d, "(");
    /* utils.deprecate_kwarg( or deprecate_kwarg( */
    if (n < 15 || strncmp(d + n - 15, "deprecate_kwarg", 15) || (n > 15 && d[n - 16] != '.'))
        return 0;
    const char *args = d + n + 1;
    out->old_name = string_at(args);
    if (!out->old_name)
        return 0;
    out->new_name = keyword(args, "new_name");
    out->version = keyword(args, "version");
    if (!out->version) {
        /* deprecate_kwarg(old_name, version, new_name=None, ...): the version may be
         * the second positional argument */
        const char *q = args;
        while (*q == ' ')
            q++;
        const char *e = *q == '"' || *q == '\'' ? strchr(q + 1, *q) : NULL;
        if (e) {
            q = e + 1;
            while (*q == ' ' || *q == ',')
                q++;
            if (*q == '"' || *q == '\'') {
                const char *end = strchr(q + 1, *q);
                if (end && end[1] != '=' && !(end[1] == ' ' && end[2] == '='))
                    out->version = string_at(q);
            }
        }
    }
    return 1;
}

int deprecated_kwarg_find(deprecated_kwarg *out, const index_def *fn, const char *old_name)
{
    for (size_t i = 0; fn && i < fn->n_decorators; i++) {
        if (!deprecated_kwarg_parse(out, fn->decorators[i]))
            continue;
        if (!strcmp(out->old_name, old_name))
            return 1;
        deprecated_kwarg_free(out);
    }
    memset(out, 0, sizeof(*out));
    return 0;
}

const char *deprecated_kwarg_version(const deprecated_kwarg *k)
{
    const char *v = k->version;
    return v && (v[0] == 'v' || v[0] == 'V') ? v + 1 : v;
}

void deprecated_kwarg_free(deprecated_kwarg *k)
{
    free(k->old_name);
    free(k->new_name);
    free(k->version);
    memset(k, 0, sizeof(*k));
}
