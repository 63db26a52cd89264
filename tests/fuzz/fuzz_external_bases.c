/*
 * Fuzzes the survey's reading of a class's bases outside its module
 * (checks/external_bases.c): the question the comparison asks about a method that
 * left the module, and its settling over modules read a round at a time.
 *
 * The input is two texts (fuzz.h): the model's module at B
 * (transformers.models.x.modeling_x) and one module text that stands for every
 * other module asked, transformers.modeling_utils included (indexed under the
 * name asked, or as that package's `__init__`, so that relative imports resolve
 * differently). Every class of the first text is asked about a few method names.
 * Beyond memory safety and termination (re-exports in a cycle, a fan of repeated
 * bases) it checks: asking twice asks the same; a settled finding keeps a title
 * and loses the question; a warning keeps its words, an error loses them, a note
 * is an inherited call; a second settling changes nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/external_bases.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CLASSES = 4, MAX_READ = 32 };

static const char suffix[] = " (an external base class may provide it now)";

/* The method names asked: a few fixed ones and the first members of u's classes. */
static size_t methods(const index_module *u, const char **out, size_t cap)
{
    static const char *const fixed[] = {"m", "forward", "train"};
    size_t n = 0;
    for (size_t i = 0; i < 3; i++)
        out[n++] = fixed[i];
    for (size_t i = 0; u && i < u->n_defs && n < cap; i++)
        if (u->defs[i]->kind == INDEX_CLASS && u->defs[i]->n_members)
            out[n++] = u->defs[i]->members[0]->name;
    return n;
}

static void ask_all(findings *fs, const index_module *m, const index_module *base,
                    const index_module *u)
{
    const char *ms[8];
    size_t nm = methods(u, ms, 8), nc = 0;
    for (size_t i = 0; i < m->n_defs && nc < MAX_CLASSES; i++) {
        const index_def *c = m->defs[i];
        if (c->kind != INDEX_CLASS)
            continue;
        nc++;
        for (size_t k = 0; k < nm; k++) {
            json_t *d1 = json_object(), *d2 = json_object();
            int asked = external_bases_ask(d1, m, base, c->name, ms[k]);
            CHECK(asked == external_bases_ask(d2, m, base, c->name, ms[k]));
            CHECK(json_equal(d1, d2));
            json_decref(d2);
            if (!asked) {
                json_decref(d1);
                continue;
            }
            json_object_set_new(d1, "kind", json_string("callee-vanished"));
            json_object_set_new(d1, "used_by", json_string("X.forward"));
            json_object_set_new(d1, "owner", json_string(c->name));
            json_object_set_new(d1, "to", json_string("2.0"));
            findings_add(fs, "callees", SEV_WARNING, "cfg", "cfg.py", 1, 1, d1,
                         "`X.forward` calls `self.%s()`, which `%s` no longer defines at 2.0%s",
                         ms[k], c->name, suffix);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *su;
    size_t lm, lu;
    fuzz_two_texts(s, size, &lm, &su, &lu);
    index_module *m = NULL, *base = NULL;
    if (index_module_from_source(&m, s, lm, "m.py", "transformers.models.x.modeling_x") < 0 ||
        index_module_from_source(&base, su, lu, "u.py", "transformers.modeling_utils") < 0) {
        pgci_error_clear();
        if (m)
            index_module_free(m);
        return 0;
    }
    findings fs = FINDINGS_INIT;
    ask_all(&fs, m, base, base);
    xbases *x = xbases_new();
    xbases_add(x, m->name, m);
    xbases_add(x, base->name, base);
    index_module *read[MAX_READ];
    size_t n_read = 0;
    for (int round = 0; round < 6; round++) {
        strvec need = STRVEC_INIT;
        xbases_needed(x, &fs, &need);
        size_t asked = need.len;
        for (size_t i = 0; i < need.len; i++) {
            index_module *ix = NULL;
            char *name = need.items[i][0] && strlen(need.items[i]) % 2
                             ? pgci_asprintf("%s.__init__", need.items[i])
                             : pgci_strdup(need.items[i]);
            if (n_read < MAX_READ && index_module_from_source(&ix, su, lu, "u.py", name) == 0)
                read[n_read++] = ix;
            pgci_error_clear();
            free(name);
            xbases_add(x, need.items[i], ix);
        }
        strvec_free(&need);
        if (!asked)
            break;
    }
    xbases_settle(x, &fs);
    strbuf once = STRBUF_INIT, twice = STRBUF_INIT;
    for (size_t i = 0; i < fs.len; i++) {
        const finding *f = fs.items[i];
        CHECK(f->title && f->title[0]);
        CHECK(!json_object_get(f->data, "external") && !json_object_get(f->data, "owner"));
        size_t n = strlen(f->title), k = sizeof(suffix) - 1;
        int kept = n >= k && !strcmp(f->title + n - k, suffix);
        CHECK(f->sev != SEV_WARNING || kept);
        CHECK(f->sev == SEV_WARNING || !kept);
        CHECK(f->sev != SEV_INFO ||
              !strcmp(json_string_value(json_object_get(f->data, "kind")), "callee-inherited"));
        strbuf_addf(&once, "%d %s\n%s", (int)f->sev, f->title, f->detail ? f->detail : "");
    }
    xbases_settle(x, &fs);
    for (size_t i = 0; i < fs.len; i++)
        strbuf_addf(&twice, "%d %s\n%s", (int)fs.items[i]->sev, fs.items[i]->title,
                    fs.items[i]->detail ? fs.items[i]->detail : "");
    CHECK(once.len == twice.len && !memcmp(once.buf, twice.buf, once.len));
    strbuf_free(&once);
    strbuf_free(&twice);
    findings_free(&fs);
    xbases_free(x);
    for (size_t i = 0; i < n_read; i++)
        index_module_free(read[i]);
    index_module_free(m);
    index_module_free(base);
    return 0;
}
