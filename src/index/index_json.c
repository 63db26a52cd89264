/*
 * index_json.c - the index's JSON form (schema in docs/index.md), through jansson.
 *
 * Keys are emitted in a fixed order (JSON_PRESERVE_ORDER) so the same module
 * always gives the same bytes. Absent optional values are null rather than missing,
 * so a consumer can tell "no default" from "an old schema".
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "index/index.h"

/* A JSON string; text that is not valid UTF-8 (a docstring holding a lone
 * surrogate from \ud800, say) gets U+FFFD for each bad byte instead of failing. */
static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    strbuf sb = STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = 0;
        if (*p < 0x80)
            n = 1;
        else if ((*p & 0xE0) == 0xC0)
            n = 2;
        else if ((*p & 0xF0) == 0xE0)
            n = 3;
        else if ((*p & 0xF8) == 0xF0)
            n = 4;
        json_t *probe = NULL;
        if (n) {
            char tmp[5] = {0};
            size_t k = 0;
            while (k < n && p[k])
                k++;
            if (k == n) {
                memcpy(tmp, p, n);
                probe = json_string(tmp);
            }
        }
        if (probe) {
            strbuf_add(&sb, p, n);
            json_decref(probe);
            p += n;
        } else {
            strbuf_adds(&sb, "\xef\xbf\xbd");
            p++;
        }
    }
    j = json_string(sb.buf);
    strbuf_free(&sb);
    return j ? j : json_null();
}

static json_t *jstrs(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, jstr(v[i]));
    return a;
}

static json_t *jassigns(const index_assign *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", jstr(v[i].name));
        json_object_set_new(o, "line", json_integer(v[i].line));
        json_object_set_new(o, "value", jstr(v[i].value));
        json_object_set_new(o, "annotation", jstr(v[i].annotation));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *jdef(const index_def *d)
{
    json_t *o = json_object();
    char fp[17];
    snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)index_def_fingerprint(d));
    json_object_set_new(o, "kind", json_string(d->kind == INDEX_CLASS ? "class" : "function"));
    json_object_set_new(o, "name", jstr(d->name));
    json_object_set_new(o, "qualname", jstr(d->qualname));
    json_object_set_new(o, "line", json_integer(d->line));
    json_object_set_new(o, "start_line", json_integer(d->start_line));
    json_object_set_new(o, "end_line", json_integer(d->end_line));
    json_object_set_new(o, "conditional", json_boolean(d->conditional));
    json_object_set_new(o, "decorators", jstrs(d->decorators, d->n_decorators));
    if (d->kind == INDEX_FUNCTION) {
        json_object_set_new(o, "async", json_boolean(d->is_async));
        json_t *ps = json_array();
        for (size_t i = 0; i < d->n_params; i++) {
            const index_param *p = &d->params[i];
            json_t *po = json_object();
            json_object_set_new(po, "name", jstr(p->name));
            json_object_set_new(po, "kind", json_string(index_param_kind_name(p->kind)));
            json_object_set_new(po, "default", jstr(p->default_value));
            json_object_set_new(po, "annotation", jstr(p->annotation));
            json_array_append_new(ps, po);
        }
        json_object_set_new(o, "parameters", ps);
        json_object_set_new(o, "returns", jstr(d->returns));
    } else {
        json_object_set_new(o, "bases", jstrs(d->bases, d->n_bases));
        json_object_set_new(o, "init_attributes", jstrs(d->init_attrs, d->n_init_attrs));
        json_object_set_new(o, "attributes", jassigns(d->attrs, d->n_attrs));
    }
    json_object_set_new(o, "docstring", jstr(d->docstring));
    json_object_set_new(o, "doc_args", jstrs(d->doc_args, d->n_doc_args));
    json_object_set_new(o, "fingerprint", json_string(fp));
    if (d->kind == INDEX_CLASS) {
        json_t *ms = json_array();
        for (size_t i = 0; i < d->n_members; i++)
            json_array_append_new(ms, jdef(d->members[i]));
        json_object_set_new(o, "members", ms);
    }
    return o;
}

int index_module_to_json(strbuf *out, const index_module *m, int indent)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema_version", json_integer(INDEX_SCHEMA_VERSION));
    json_object_set_new(o, "module", jstr(m->name));
    json_object_set_new(o, "path", jstr(m->path));
    json_object_set_new(o, "docstring", jstr(m->docstring));
    json_t *counts = json_object();
    json_object_set_new(counts, "imports", json_integer((json_int_t)m->n_imports));
    json_object_set_new(counts, "classes", json_integer((json_int_t)m->n_classes));
    json_object_set_new(counts, "functions", json_integer((json_int_t)m->n_functions));
    json_object_set_new(counts, "methods", json_integer((json_int_t)m->n_methods));
    json_object_set_new(o, "counts", counts);

    json_t *ims = json_array();
    for (size_t i = 0; i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        json_t *io = json_object();
        json_object_set_new(io, "module", jstr(im->module));
        json_object_set_new(io, "name", jstr(im->name));
        json_object_set_new(io, "alias", jstr(im->alias));
        json_object_set_new(io, "level", json_integer(im->level));
        json_object_set_new(io, "line", json_integer(im->line));
        json_object_set_new(io, "statement", json_integer(im->stmt));
        json_object_set_new(io, "scope", jstr(im->scope));
        json_object_set_new(io, "in_try", json_boolean(im->in_try));
        json_object_set_new(io, "in_if", json_boolean(im->in_if));
        json_array_append_new(ims, io);
    }
    json_object_set_new(o, "imports", ims);
    json_object_set_new(o, "assignments", jassigns(m->assigns, m->n_assigns));
    json_t *defs = json_array();
    for (size_t i = 0; i < m->n_defs; i++)
        json_array_append_new(defs, jdef(m->defs[i]));
    json_object_set_new(o, "definitions", defs);

    size_t flags = JSON_PRESERVE_ORDER | (indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT);
    char *s = json_dumps(o, flags);
    json_decref(o);
    if (!s)
        return pgci_error_set(PGCI_ERROR, "%s: cannot render the index as JSON", m->path);
    strbuf_adds(out, s);
    strbuf_addc(out, '\n');
    free(s);
    return 0;
}
