#include "checks/finding.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

finding *findings_add(findings *fs, const char *check, severity sev, const char *config,
                      const char *path, unsigned line, unsigned col, json_t *data,
                      const char *title_fmt, ...)
{
    finding *f = pgci_calloc(1, sizeof(*f));
    f->check = pgci_strdup(check);
    f->sev = sev;
    f->config = config ? pgci_strdup(config) : NULL;
    f->path = path ? pgci_strdup(path) : NULL;
    f->line = line;
    f->col = col;
    f->data = data;
    strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, title_fmt);
    strbuf_vaddf(&t, title_fmt, ap);
    va_end(ap);
    f->title = strbuf_detach(&t, NULL);
    if (fs->len == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 16;
        fs->items = pgci_realloc(fs->items, fs->cap * sizeof(*fs->items));
    }
    fs->items[fs->len++] = f;
    return f;
}

void finding_set_detail(finding *f, const char *detail)
{
    free(f->detail);
    f->detail = detail ? pgci_strdup(detail) : NULL;
}

static int cmp_opt(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_finding(const void *pa, const void *pb)
{
    const finding *a = *(finding *const *)pa, *b = *(finding *const *)pb;
    int c;
    if ((c = cmp_opt(a->config, b->config)))
        return c;
    if ((c = cmp_opt(a->path, b->path)))
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if ((c = strcmp(a->check, b->check)))
        return c;
    return strcmp(a->title, b->title);
}

void findings_sort(findings *fs)
{
    if (fs->len > 1)
        qsort(fs->items, fs->len, sizeof(*fs->items), cmp_finding);
}

size_t findings_count_at_least(const findings *fs, severity min)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->len; i++)
        n += fs->items[i]->sev >= min;
    return n;
}

const char *severity_name(severity s)
{
    switch (s) {
    case SEV_ERROR:
        return "error";
    case SEV_WARNING:
        return "warning";
    default:
        return "info";
    }
}

int severity_parse(const char *s)
{
    if (!strcmp(s, "error"))
        return SEV_ERROR;
    if (!strcmp(s, "warning"))
        return SEV_WARNING;
    if (!strcmp(s, "info"))
        return SEV_INFO;
    return -1;
}

json_t *findings_to_json(const findings *fs)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < fs->len; i++) {
        const finding *f = fs->items[i];
        json_t *o = json_object();
        json_object_set_new(o, "check", json_string(f->check));
        json_object_set_new(o, "severity", json_string(severity_name(f->sev)));
        json_object_set_new(o, "config", f->config ? json_string(f->config) : json_null());
        json_object_set_new(o, "path", f->path ? json_string(f->path) : json_null());
        json_object_set_new(o, "line", json_integer(f->line));
        json_object_set_new(o, "col", json_integer(f->col));
        json_object_set_new(o, "title", json_string(f->title));
        json_object_set_new(o, "detail", f->detail ? json_string(f->detail) : json_null());
        json_object_set_new(o, "data", f->data ? json_incref(f->data) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}

void findings_move(findings *dst, findings *src)
{
    if (!src->len)
        return;
    if (dst->len + src->len > dst->cap) {
        dst->cap = dst->len + src->len;
        dst->items = pgci_realloc(dst->items, dst->cap * sizeof(*dst->items));
    }
    memcpy(dst->items + dst->len, src->items, src->len * sizeof(*src->items));
    dst->len += src->len;
    src->len = 0;
}

void finding_free(finding *f)
{
    if (!f)
        return;
    free(f->check);
    free(f->config);
    free(f->path);
    free(f->title);
    free(f->detail);
    if (f->data)
        json_decref(f->data);
    free(f);
}

void findings_free(findings *fs)
{
    for (size_t i = 0; i < fs->len; i++)
        finding_free(fs->items[i]);
    free(fs->items);
    fs->items = NULL;
    fs->len = fs->cap = 0;
}
