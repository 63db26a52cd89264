#include "core/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"

static const opt common_table[] = {
    OPT_BOOL('q', "quiet", NULL, "say nothing on stderr but errors"),
    OPT_BOOL('v', "verbose", NULL, "say more on stderr"),
    OPT_INT('j', "jobs", NULL, "N", "work on N items at once (default: number of CPUs)"),
    OPT_STR('C', "workspace", NULL, "DIR", "the workspace (default: the current directory)"),
    OPT_END(),
};

static void print_table(FILE *out, const opt *t)
{
    for (; t->type != OPT_T_END; t++) {
        if (t->type == OPT_T_GROUP) {
            fprintf(out, "\n%s\n", t->help);
            continue;
        }
        char left[80];
        int n = 0;
        if (t->short_name && t->long_name)
            n = snprintf(left, sizeof(left), "-%c, --%s", t->short_name, t->long_name);
        else if (t->long_name)
            n = snprintf(left, sizeof(left), "    --%s", t->long_name);
        else
            n = snprintf(left, sizeof(left), "-%c", t->short_name);
        if (t->argname && n > 0 && (size_t)n < sizeof(left))
            snprintf(left + n, sizeof(left) - (size_t)n, " %s", t->argname);
        fprintf(out, "  %-28s %s\n", left, t->help);
    }
}

void opts_usage(FILE *out, const opt *table, int with_common, const char *usage,
                const char *summary)
{
    fprintf(out, "usage: %s\n", usage);
    if (summary)
        fprintf(out, "\n%s\n", summary);
    if (table && table->type != OPT_T_END) {
        fputs("\noptions:\n", out);
        print_table(out, table);
    }
    if (with_common) {
        fputs("\ncommon options:\n", out);
        print_table(out, common_table);
        fputs("  -h, --help                   show this help\n", out);
    }
}

static const opt *find_long(const opt *t, const char *name, size_t n)
{
    for (; t && t->type != OPT_T_END; t++)
        if (t->long_name && strlen(t->long_name) == n && !strncmp(t->long_name, name, n))
            return t;
    return NULL;
}

static const opt *find_short(const opt *t, char c)
{
    for (; t && t->type != OPT_T_END; t++)
        if (t->type != OPT_T_GROUP && t->short_name == c)
            return t;
    return NULL;
}

static void *common_slot(const opt *o, common_opts *c)
{
    if (!strcmp(o->long_name, "quiet"))
        return &c->quiet;
    if (!strcmp(o->long_name, "verbose"))
        return &c->verbose;
    if (!strcmp(o->long_name, "jobs"))
        return &c->jobs;
    return &c->workspace;
}

static int set_value(const char *cmd, const opt *o, void *slot, const char *val)
{
    switch (o->type) {
    case OPT_T_BOOL:
        *(int *)slot = 1;
        return 0;
    case OPT_T_STR:
        *(const char **)slot = val;
        return 0;
    case OPT_T_INT: {
        char *end;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || *end || end == val || v < 0 || v > 1000000)
            return pgci_error_set(PGCI_EUSAGE, "%s: --%s wants a non-negative number, not '%s'",
                                  cmd, o->long_name, val);
        *(int *)slot = (int)v;
        return 0;
    }
    case OPT_T_LIST: {
        strvec *v = slot;
        const char *s = val;
        for (;;) {
            const char *c = strchr(s, ',');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            if (n)
                strvec_pushn(v, s, n);
            if (!c)
                break;
            s = c + 1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

int opts_parse(int argc, const char **argv, const opt *table, common_opts *common,
               const char *usage, const char *summary, strvec *rest)
{
    const char *cmd = argv[0];
    int only_positional = 0;
    if (common && !common->jobs)
        common->jobs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !a[1]) {
            strvec_push(rest, a);
            continue;
        }
        if (!strcmp(a, "--")) {
            only_positional = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            opts_usage(stdout, table, common != NULL, usage, summary);
            return 1;
        }
        const opt *o = NULL;
        void *slot = NULL;
        const char *val = NULL;
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            o = find_long(table, name, n);
            if (o) {
                slot = o->value;
            } else if (common && (o = find_long(common_table, name, n))) {
                slot = common_slot(o, common);
            }
            if (!o)
                return pgci_error_set(PGCI_EUSAGE, "%s: unknown option '--%.*s' (see %s --help)",
                                      cmd, (int)n, name, cmd);
            if (eq) {
                if (o->type == OPT_T_BOOL)
                    return pgci_error_set(PGCI_EUSAGE, "%s: --%s takes no value", cmd,
                                          o->long_name);
                val = eq + 1;
            }
        } else {
            o = find_short(table, a[1]);
            if (o) {
                slot = o->value;
            } else if (common && (o = find_short(common_table, a[1]))) {
                slot = common_slot(o, common);
            }
            if (!o)
                return pgci_error_set(PGCI_EUSAGE, "%s: unknown option '-%c' (see %s --help)", cmd,
                                      a[1], cmd);
            if (a[2]) {
                if (o->type == OPT_T_BOOL)
                    return pgci_error_set(PGCI_EUSAGE, "%s: -%c takes no value", cmd, a[1]);
                val = a + 2;
            }
        }
        if (o->type != OPT_T_BOOL && !val) {
            if (i + 1 >= argc)
                return pgci_error_set(PGCI_EUSAGE, "%s: option '%s' needs a value (%s)", cmd, a,
                                      o->argname ? o->argname : "VALUE");
            val = argv[++i];
        }
        int r = set_value(cmd, o, slot, val);
        if (r < 0)
            return r;
    }
    if (common) {
        if (common->quiet)
            log_set_level(LOG_QUIET);
        else if (common->verbose)
            log_set_level(LOG_VERBOSE);
    }
    return 0;
}
