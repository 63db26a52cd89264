/*
 * SARIF 2.1.0 for GitHub code scanning: one run, pgci as the tool driver with one
 * rule per check id, one result per finding. Levels: error, warning, note.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pgci_version.h"
#include "core/vec.h"
#include "reports/render.h"

static const char *level_of(const char *sev)
{
    if (!strcmp(sev, "error"))
        return "error";
    if (!strcmp(sev, "warning"))
        return "warning";
    return "note";
}

void report_sarif(strbuf *out, const run_doc *d)
{
    json_t *root = json_object();
    json_object_set_new(root, "$schema",
                        json_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_set_new(root, "version", json_string("2.1.0"));
    json_t *run = json_object();
    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("pgci"));
    json_object_set_new(driver, "version", json_string(PGCI_VERSION));
    json_t *rules = json_array();
    json_t *results = json_array();
    strvec ids = STRVEC_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(run_doc_findings(d), i, f)
    {
        const char *check = json_string_value(json_object_get(f, "check"));
        long idx = strvec_find(&ids, check);
        if (idx < 0) {
            idx = (long)ids.len;
            strvec_push(&ids, check);
            json_t *rule = json_object();
            json_object_set_new(rule, "id", json_string(check));
            json_object_set_new(rule, "name", json_string(check));
            json_t *sd = json_object();
            char *txt = pgci_asprintf("pgci check '%s'", check);
            json_object_set_new(sd, "text", json_string(txt));
            free(txt);
            json_object_set_new(rule, "shortDescription", sd);
            json_array_append_new(rules, rule);
        }
        json_t *res = json_object();
        json_object_set_new(res, "ruleId", json_string(check));
        json_object_set_new(res, "ruleIndex", json_integer(idx));
        json_object_set_new(
            res, "level", json_string(level_of(json_string_value(json_object_get(f, "severity")))));
        json_t *msg = json_object();
        strbuf text = STRBUF_INIT;
        strbuf_adds(&text, json_string_value(json_object_get(f, "title")));
        const char *cfg = json_string_value(json_object_get(f, "config"));
        if (cfg)
            strbuf_addf(&text, " (config %s)", cfg);
        json_object_set_new(msg, "text", json_string(text.buf));
        strbuf_free(&text);
        json_object_set_new(res, "message", msg);
        const char *path = json_string_value(json_object_get(f, "path"));
        if (path) {
            json_t *loc = json_object(), *phys = json_object(), *art = json_object();
            json_object_set_new(art, "uri", json_string(path));
            json_object_set_new(phys, "artifactLocation", art);
            json_int_t line = json_integer_value(json_object_get(f, "line"));
            json_int_t col = json_integer_value(json_object_get(f, "col"));
            if (line > 0) {
                json_t *region = json_object();
                json_object_set_new(region, "startLine", json_integer(line));
                if (col > 0)
                    json_object_set_new(region, "startColumn", json_integer(col));
                json_object_set_new(phys, "region", region);
            }
            json_object_set_new(loc, "physicalLocation", phys);
            json_t *locs = json_array();
            json_array_append_new(locs, loc);
            json_object_set_new(res, "locations", locs);
        }
        json_array_append_new(results, res);
    }
    json_object_set_new(driver, "rules", rules);
    json_t *tool = json_object();
    json_object_set_new(tool, "driver", driver);
    json_object_set_new(run, "tool", tool);
    json_object_set_new(run, "results", results);
    json_t *runs = json_array();
    json_array_append_new(runs, run);
    json_object_set_new(root, "runs", runs);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    strbuf_adds(out, s);
    strbuf_addc(out, '\n');
    free(s);
    json_decref(root);
    strvec_free(&ids);
}
