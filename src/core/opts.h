/*
 * opts.h - the one command-line option parser (after git's parse-options).
 *
 * A command declares a table of options ending with OPT_END(), calls opts_parse(),
 * and gets its positional arguments back in argv order. "--name=value",
 * "--name value", "-n value", "--" and "--help" are understood; every command's
 * --help is generated from the same table, so help and behaviour cannot drift.
 */
#ifndef PGCI_CORE_OPTS_H
#define PGCI_CORE_OPTS_H

#include <stdio.h>

#include "core/vec.h"

enum opt_type { OPT_T_END, OPT_T_BOOL, OPT_T_STR, OPT_T_INT, OPT_T_LIST, OPT_T_GROUP };

typedef struct opt {
    enum opt_type type;
    char short_name; /* 0 when none */
    const char *long_name;
    void *value;         /* int* for BOOL/INT, const char** for STR, strvec* for LIST */
    const char *argname; /* shown in help: "TAG" */
    const char *help;
} opt;

#define OPT_BOOL(s, l, v, h)                                                                       \
    {                                                                                              \
        OPT_T_BOOL, s, l, v, NULL, h                                                               \
    }
#define OPT_STR(s, l, v, a, h)                                                                     \
    {                                                                                              \
        OPT_T_STR, s, l, v, a, h                                                                   \
    }
#define OPT_INT(s, l, v, a, h)                                                                     \
    {                                                                                              \
        OPT_T_INT, s, l, v, a, h                                                                   \
    }
/* Repeatable; a value with commas adds each part ("--format md,json"). */
#define OPT_LIST(s, l, v, a, h)                                                                    \
    {                                                                                              \
        OPT_T_LIST, s, l, v, a, h                                                                  \
    }
#define OPT_GROUP(h)                                                                               \
    {                                                                                              \
        OPT_T_GROUP, 0, NULL, NULL, NULL, h                                                        \
    }
#define OPT_END()                                                                                  \
    {                                                                                              \
        OPT_T_END, 0, NULL, NULL, NULL, NULL                                                       \
    }

/* Options every command accepts: -q/--quiet, -v/--verbose, -j/--jobs, -C DIR. */
typedef struct common_opts {
    int quiet;
    int verbose;
    int jobs;
    const char *workspace; /* -C DIR; NULL: the current directory */
} common_opts;

/* Parses argv[1..argc) (argv[0] is the command name). Positional arguments land in
 * `rest`. Returns 0, 1 when --help was printed (caller exits 0), or PGCI_EUSAGE with
 * the message set. `common` may be NULL for commands that take none of them. */
int opts_parse(int argc, const char **argv, const opt *table, common_opts *common,
               const char *usage, const char *summary, strvec *rest);

/* Prints the generated help for a table. */
void opts_usage(FILE *out, const opt *table, int with_common, const char *usage,
                const char *summary);

#endif
