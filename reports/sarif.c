/*
 * SARIF 2.1.0 for GitHub code scanning: one run, pgci as the tool driver with one
 * rule per check id, one result per finding. Levels: error, warning, note.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pgci_version.h"
#include "core/vec.h"
#include "reports/finding_groups.h"
#include "reports/render.h"
#include "pipeline/run_shard.h"
#include "reports/sarif_rules.h"

static const char *level_of(const char *sev)
{
    if (!strcmp(sev, "error"))
        return "error";
    if (!strcmp(sev, "warning"))
        return "warning";
    return "note";
}

/* shortDescription, fullDescription and help of one rule (sarif_rules.h). */
static void describe_rule(json_t *rule, const char *check)
{
    const char *summary = sarif_rule_summary(check), *help = sarif_rule_help(check);
    char *fallback = pgci_asprintf("pgci check '%s'", check);
    json_object_set_new(rule, "shortDescription",
                        json_pack("{s:s}", "text", summary ? summary : fallback));
    json_object_set_new(rule, "fullDescription",
                        json_pack("{s:s}", "text",
                                  help      ? help
                                  : summary ? summary
                                            : fallback));
    if (help) {
        char *md = pgci_asprintf("**%s**: %s", check, help);
        json_object_set_new(rule, "help", json_pack("{s:s,s:s}", "text", help, "markdown", md));
        free(md);
    }
    free(fallback);
}

/* The invocation: whether the run completed, and a notification per check that
 * did not run (a warning: not counted as passed) or was not configured (a note). */
static json_t *invocation(const run_doc *d)
{
    json_t *inv = json_object(), *notes = json_array();
    const char *error = run_doc_error(d);
    json_object_set_new(inv, "executionSuccessful", json_boolean(error == NULL));
    if (error)
        json_array_append_new(
            notes, json_pack("{s:s,s:{s:s}}", "level", "error", "message", "text", error));
    size_t i;
    json_t *c;
    json_array_foreach(run_doc_checks(d), i, c)
    {
        const char *id = json_string_value(json_object_get(c, "id"));
        const char *st = json_string_value(json_object_get(c, "status"));
        const char *why = json_string_value(json_object_get(c, "reason"));
        if (!id || !st || !strcmp(st, "ran"))
            continue;
        int nc = !strcmp(st, "not-configured");
        char *txt = pgci_asprintf("check %s %s%s%s", id, nc ? "is not configured" : "did not run",
                                  why ? ": " : "", why ? why : "");
        json_array_append_new(notes,
                              json_pack("{s:s,s:{s:s},s:{s:s}}", "level", nc ? "note" : "warning",
                                        "message", "text", txt, "descriptor", "id", id));
        free(txt);
    }
    json_object_set_new(inv, "toolExecutionNotifications", notes);
    json_t *arr = json_array();
    json_array_append_new(arr, inv);
    return arr;
}

/* A relative path as a URI reference (RFC 3986): unreserved characters and '/'
 * as they are, every other byte percent-encoded, so a space, '%', '<' or '`' in a
 * path cannot make the reference invalid. */
static void uri_path(strbuf *out, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            strbuf_addc(out, (char)*p);
        } else {
            strbuf_addc(out, '%');
            strbuf_addc(out, hex[*p >> 4]);
            strbuf_addc(out, hex[*p & 15]);
        }
    }
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
    finding_groups gs = FINDING_GROUPS_INIT;
    finding_groups_build(&gs, run_doc_findings(d));
    for (size_t g = 0; g < gs.len; g++) {
        json_t *f = gs.items[g].first;
        const strvec *cfgs = &gs.items[g].configs;
        const char *check = json_string_value(json_object_get(f, "check"));
        long idx = strvec_find(&ids, check);
        if (idx < 0) {
            idx = (long)ids.len;
            strvec_push(&ids, check);
            json_t *rule = json_object();
            json_object_set_new(rule, "id", json_string(check));
            json_object_set_new(rule, "name", json_string(check));
            describe_rule(rule, check);
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
        if (cfgs->len == 1)
            strbuf_addf(&text, " (config %s)", cfgs->items[0]);
        else if (cfgs->len > 1) {
            strbuf_addf(&text, " (%zu configs: ", cfgs->len);
            for (size_t c = 0; c < cfgs->len; c++)
                strbuf_addf(&text, "%s%s", c ? ", " : "", cfgs->items[c]);
            strbuf_addc(&text, ')');
        }
        json_object_set_new(msg, "text", json_string(text.buf));
        strbuf_free(&text);
        json_object_set_new(res, "message", msg);
        const char *path = json_string_value(json_object_get(f, "path"));
        if (path) {
            json_t *loc = json_object(), *phys = json_object(), *art = json_object();
            strbuf uri = STRBUF_INIT;
            uri_path(&uri, path);
            json_object_set_new(art, "uri", json_string(uri.buf));
            strbuf_free(&uri);
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
        if (cfgs->len) {
            json_t *names = json_array();
            for (size_t c = 0; c < cfgs->len; c++)
                json_array_append_new(names, json_string(cfgs->items[c]));
            json_object_set_new(res, "properties", json_pack("{s:o}", "configs", names));
        }
        json_array_append_new(results, res);
    }
    finding_groups_free(&gs);
    json_object_set_new(driver, "rules", rules);
    json_t *tool = json_object();
    json_object_set_new(tool, "driver", driver);
    json_object_set_new(run, "tool", tool);
    json_object_set_new(run, "invocations", invocation(d));
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
