/*
 * toml_dump FILE... - prints, per file, "OK <json>" or "ERR <line> <message>",
 * for tests/oracle/toml.sh to compare with Python's tomllib. The JSON is canonical:
 * tables as objects, arrays as arrays, strings and booleans as themselves, integers
 * as {"int": "N"} and floats as {"float": "%.17g"} so that no JSON number rounding
 * can hide a difference.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "workspace/toml.h"

static json_t *to_json(const toml_value *v)
{
    char buf[64];
    switch (v->type) {
    case TOML_STRING:
        return json_string(v->str);
    case TOML_BOOL:
        return json_boolean(v->boolean);
    case TOML_INTEGER:
        snprintf(buf, sizeof(buf), "%lld", v->integer);
        return json_pack("{s:s}", "int", buf);
    case TOML_FLOAT:
        if (isnan(v->flt))
            snprintf(buf, sizeof(buf), "nan"); /* C prints the sign of a NaN, Python not */
        else
            snprintf(buf, sizeof(buf), "%.17g", v->flt);
        return json_pack("{s:s}", "float", buf);
    case TOML_ARRAY: {
        json_t *a = json_array();
        for (size_t i = 0; i < v->items.len; i++)
            json_array_append_new(a, to_json(v->items.items[i]));
        return a;
    }
    case TOML_TABLE: {
        json_t *o = json_object();
        for (size_t i = 0; i < v->entries.len; i++)
            json_object_set_new(o, v->entries.items[i].key, to_json(v->entries.items[i].value));
        return o;
    }
    }
    return json_null();
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        toml_value *doc = NULL;
        if (toml_parse_file(&doc, argv[i], "doc") < 0) {
            unsigned line = 0;
            sscanf(pgci_error_last(), "doc:%u:", &line);
            printf("ERR %u %s\n", line, pgci_error_last());
            continue;
        }
        json_t *j = to_json(doc);
        char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS);
        printf("OK %s\n", s);
        free(s);
        json_decref(j);
        toml_free(doc);
    }
    return 0;
}
