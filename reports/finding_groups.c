/*
 * One group per distinct (severity, check, path, line, column, title): the key
 * joins the fields with a byte no field holds, so two findings share a key only
 * when every field is equal.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/hashmap.h"
#include "core/strbuf.h"
#include "reports/finding_groups.h"

static const char *field(json_t *f, const char *k)
{
    const char *s = json_string_value(json_object_get(f, k));
    return s ? s : "";
}

static void group_key(strbuf *k, json_t *f)
{
    strbuf_reset(k);
    strbuf_addf(k, "%s\x1f%s\x1f%s\x1f%lld\x1f%lld\x1f%s", field(f, "severity"), field(f, "check"),
                field(f, "path"), (long long)json_integer_value(json_object_get(f, "line")),
                (long long)json_integer_value(json_object_get(f, "col")), field(f, "title"));
}

void finding_groups_build(finding_groups *out, json_t *findings)
{
    hashmap seen = HASHMAP_INIT; /* key -> index + 1 into out->items */
    strbuf k = STRBUF_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f)
    {
        group_key(&k, f);
        size_t at = (size_t)(uintptr_t)hashmap_get(&seen, k.buf);
        if (!at) {
            finding_group g = {f, STRVEC_INIT, 0};
            VEC_PUSH(out, g);
            at = out->len;
            hashmap_put(&seen, k.buf, (void *)(uintptr_t)at);
        }
        const char *cfg = json_string_value(json_object_get(f, "config"));
        out->items[at - 1].count++;
        strvec *cs = &out->items[at - 1].configs;
        if (cfg && strvec_find(cs, cfg) < 0)
            strvec_push(cs, cfg);
    }
    strbuf_free(&k);
    hashmap_free(&seen);
}

void finding_groups_free(finding_groups *g)
{
    for (size_t i = 0; i < g->len; i++)
        strvec_free(&g->items[i].configs);
    VEC_FREE(g);
}
