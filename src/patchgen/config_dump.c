/*
 * config_dump.c - JSON for an evaluated PatchConfig (see config_dump.h), through
 * jansson with sorted keys so equal configs give equal bytes.
 */
#include "patchgen/config_dump.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *object_json(const pg_object *o, const char *root)
{
    if (!o)
        return json_null();
    const char *file = o->file;
    size_t n = root ? strlen(root) : 0;
    if (root && !strncmp(file, root, n) && file[n] == '/')
        file += n + 1;
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(o->name));
    json_object_set_new(j, "module", json_string(o->module));
    json_object_set_new(j, "file", json_string(file));
    json_object_set_new(j, "first_line", json_integer(o->start_line));
    json_object_set_new(j, "last_line", json_integer(o->end_line));
    json_object_set_new(j, "is_class", json_boolean(o->is_class));
    return j;
}

static json_t *patch_json(const pg_patch *p, const char *root)
{
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string(pg_patch_type_name(p->type)));
    json_object_set_new(j, "target", json_string(p->target));
    json_object_set_new(j, "replacement", object_json(p->replacement, root));
    json_t *rs = json_null();
    if (p->replacement_module && p->replacement_name) {
        char *s = pgci_asprintf("%s.%s", p->replacement_module, p->replacement_name);
        rs = json_string(s);
        free(s);
    }
    json_object_set_new(j, "replacement_source", rs);
    json_object_set_new(j, "source_module", str_or_null(p->source_module));
    json_object_set_new(j, "description", str_or_null(p->description));
    json_t *nm = json_null();
    if (p->name_map_len) {
        nm = json_array();
        for (size_t i = 0; i < p->name_map_len; i++)
            json_array_append_new(nm, json_pack("[ss]", p->name_map[i].from, p->name_map[i].to));
    }
    json_object_set_new(j, "name_map", nm);
    return j;
}

static json_t *import_json(const pg_import *m)
{
    json_t *j = json_object();
    json_object_set_new(j, "module", json_string(m->module));
    json_t *names = json_null();
    if (m->names) {
        names = json_array();
        for (size_t i = 0; i < m->names_len; i++)
            json_array_append_new(names, json_string(m->names[i]));
    }
    json_object_set_new(j, "names", names);
    json_object_set_new(j, "alias", str_or_null(m->alias));
    json_object_set_new(j, "is_from_import", json_boolean(m->is_from_import));
    return j;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int config_dump_json(strbuf *out, const pg_config *c, const char *root)
{
    json_t *j = json_object();
    json_object_set_new(j, "source_module", str_or_null(c->source_module));
    json_object_set_new(j, "target_file", str_or_null(c->target_file));
    json_object_set_new(j, "description", str_or_null(c->description));
    json_object_set_new(j, "transformers_version", str_or_null(c->transformers_version));
    json_t *a = json_array();
    for (size_t i = 0; i < c->patches.len; i++)
        json_array_append_new(a, patch_json(&c->patches.items[i], root));
    json_object_set_new(j, "patches", a);
    a = json_array();
    for (size_t i = 0; i < c->additional_imports.len; i++)
        json_array_append_new(a, import_json(&c->additional_imports.items[i]));
    json_object_set_new(j, "additional_imports", a);
    a = json_array();
    for (size_t i = 0; i < c->post_import_blocks.len; i++)
        json_array_append_new(a, json_string(c->post_import_blocks.items[i]));
    json_object_set_new(j, "post_import_blocks", a);
    a = json_array();
    for (size_t i = 0; i < c->helpers.len; i++)
        json_array_append_new(a, object_json(c->helpers.items[i], root));
    json_object_set_new(j, "helpers", a);
    a = json_array();
    for (size_t i = 0; i < c->positioned_helpers.len; i++) {
        const pg_positioned_helper *h = &c->positioned_helpers.items[i];
        json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "target", h->target, "placement",
                                           h->placement, "helper", object_json(h->helper, root)));
    }
    json_object_set_new(j, "positioned_helpers", a);
    const char **drop = pgci_malloc((c->drop_imported_names.len + 1) * sizeof(char *));
    if (c->drop_imported_names.len)
        memcpy(drop, c->drop_imported_names.items, c->drop_imported_names.len * sizeof(char *));
    qsort(drop, c->drop_imported_names.len, sizeof(char *), cmp_str);
    a = json_array();
    for (size_t i = 0; i < c->drop_imported_names.len; i++)
        json_array_append_new(a, json_string(drop[i]));
    free(drop);
    json_object_set_new(j, "drop_imported_names", a);
    a = json_array();
    for (size_t i = 0; i < c->exclude.len; i++)
        json_array_append_new(a, json_string(c->exclude.items[i]));
    json_object_set_new(j, "exclude", a);
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(j);
    if (!s)
        return pgci_error_set(PGCI_ERROR, "cannot render the config as JSON (invalid UTF-8?)");
    strbuf_adds(out, s);
    free(s);
    return 0;
}
