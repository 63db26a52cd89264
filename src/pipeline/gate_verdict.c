/*
 * Config status and environment failures of a gate run (see gate_verdict.h).
 */
#include "pipeline/gate_verdict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static int drift_check(const char *id)
{
    return !strcmp(id, "drift") || !strcmp(id, "ruff-equivalence") ||
           !strcmp(id, "diff-consistency");
}

const char *gate_status_of(const findings *fs, const char *module, int failed)
{
    if (failed)
        return "failed";
    int drift = 0, other = 0;
    for (size_t k = 0; k < fs->len; k++) {
        const finding *f = fs->items[k];
        if (f->sev != SEV_ERROR || !f->config || strcmp(f->config, module))
            continue;
        if (drift_check(f->check))
            drift = 1;
        else
            other = 1;
    }
    return other ? "error" : drift ? "drift" : "ok";
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Why the upstream text of a regenerated config is not its module, or NULL: the
 * codegen counted the patch targets whose class or function the text defines. */
static char *not_the_module(const regen_output *o, const pg_config *c, const char *tag)
{
    if (blank(o->upstream.buf, o->upstream.len))
        return pgci_asprintf("%s: transformers@%s %s is empty: not the module the config patches "
                             "(a wrong or broken upstream source?)",
                             o->config_path, tag, c->source_module);
    size_t targets = 0;
    for (size_t i = 0; i < c->patches.len; i++) {
        const char *t = c->patches.items[i].target;
        targets += t && *t;
    }
    if (!targets || o->cg.targets_defined)
        return NULL;
    return pgci_asprintf("%s: transformers@%s %s defines none of the %zu classes and functions "
                         "the config patches: not the module (a wrong upstream source?)",
                         o->config_path, tag, c->source_module, targets);
}

char *gate_env_failure(const regen_output *outs, pg_config *const *cfgs, size_t n, const char *tag)
{
    char *first = NULL;
    size_t more = 0;
    for (size_t i = 0; i < n; i++) {
        char *why = NULL;
        if (outs[i].upstream_failed)
            why = pgci_strdup(outs[i].error ? outs[i].error : "the upstream could not be read");
        else if (outs[i].status == 0 && cfgs[i])
            why = not_the_module(&outs[i], cfgs[i], tag);
        if (!why)
            continue;
        if (first) {
            more++;
            free(why);
        } else {
            first = why;
        }
    }
    if (first && more) {
        char *all = pgci_asprintf("%s (and %zu more config%s)", first, more, more == 1 ? "" : "s");
        free(first);
        first = all;
    }
    return first;
}
