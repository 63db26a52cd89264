/*
 * finding_load.c - findings back from their JSON form (findings_to_json), for
 * results kept in the result cache. Anything that is not that form is refused
 * whole, so a damaged entry never becomes half a list of findings.
 */
#include "checks/finding.h"

#include <string.h>

static const char *str_or_null(const json_t *o, const char *k, int *bad)
{
    const json_t *v = json_object_get(o, k);
    if (json_is_null(v))
        return NULL;
    if (!json_is_string(v))
        *bad = 1;
    return json_string_value(v);
}

int findings_from_json(findings *out, const json_t *arr)
{
    if (!json_is_array(arr))
        return -1;
    findings got = FINDINGS_INIT;
    int bad = 0;
    for (size_t i = 0; i < json_array_size(arr) && !bad; i++) {
        const json_t *o = json_array_get(arr, i);
        const char *check = str_or_null(o, "check", &bad), *title = str_or_null(o, "title", &bad);
        int sev = severity_parse(json_string_value(json_object_get(o, "severity")));
        const json_t *line = json_object_get(o, "line"), *col = json_object_get(o, "col");
        const char *config = str_or_null(o, "config", &bad), *path = str_or_null(o, "path", &bad);
        const char *detail = str_or_null(o, "detail", &bad);
        json_t *data = json_object_get(o, "data");
        if (bad || !check || !title || sev < 0 || !json_is_integer(line) || !json_is_integer(col) ||
            json_integer_value(line) < 0 || json_integer_value(col) < 0) {
            bad = 1;
            break;
        }
        finding *f =
            findings_add(&got, check, (severity)sev, config, path,
                         (unsigned)json_integer_value(line), (unsigned)json_integer_value(col),
                         json_is_null(data) ? NULL : json_incref(data), "%s", title);
        if (detail)
            finding_set_detail(f, detail);
    }
    if (bad) {
        findings_free(&got);
        return -1;
    }
    findings_move(out, &got);
    findings_free(&got);
    return 0;
}
