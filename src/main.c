/*
 * pgci - keeps patchgen-generated modeling code honest.
 *
 * main() only dispatches: the command table below maps each subcommand to its
 * cmd_<name>() in src/cmd/. Everything else lives in the library under src/.
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"

struct command {
    const char *name;
    int (*fn)(int, const char **);
    const char *summary;
};

static const struct command commands[] = {
    {"fetch", cmd_fetch, "fetch the upstream modules every config needs, at each tag"},
    {"index", cmd_index, "index upstream modules (--json prints the index)"},
    {"list", cmd_list, "list the workspace's patch configs"},
    {"regen", cmd_regen, "regenerate outputs from configs (--write to write them)"},
    {"check", cmd_check, "the PR gate: drift, ruff-equivalence, .diff, names, targets"},
    {"names", cmd_names, "undefined names and redefinitions in Python files"},
    {"survey", cmd_survey, "the pin-bump survey between two upstream tags"},
    {"logits", cmd_logits, "self-check of pgci's kernels: logits vs its C reference"},
    {"verify", cmd_verify, "run the workspace's own suites (JUnit) into the report"},
    {"report", cmd_report, "render a run.json as md, json, html, sarif, github"},
    {"run", cmd_run, "the whole pipeline with the workspace's defaults"},
    {"patchgen", cmd_patchgen, "drop-in for the patchgen command line"},
};

static void usage(FILE *out)
{
    fputs("usage: pgci [--version] [--help] <command> [options]\n\n"
          "pgci keeps patchgen-generated modeling code honest: it fetches upstream\n"
          "transformers, regenerates every patch config exactly as patchgen does, and\n"
          "checks and reports what drifted.\n\ncommands:\n",
          out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nexit status: 0 clean, 1 findings at or above --fail-on, 2 usage or environment "
          "error.\n'pgci <command> --help' (or 'pgci help <command>') describes a command.\n",
          out);
}

int main(int argc, char **argv)
{
    /* a write past `ulimit -f` must fail with EFBIG (and leave the old file in
     * place), not kill pgci half way through */
    signal(SIGXFSZ, SIG_IGN);
    /* glibc grows a heap by what one request needs and gives the top back as soon
     * as it is free: a run that builds and frees parse trees all along (tree-sitter
     * allocates each node) then spends its time in brk/mprotect and in faulting the
     * same pages in again. Address space is cheap; a wide pad keeps each heap grown
     * (docs/performance.md, eighth round). */
    mallopt(M_TOP_PAD, 64 << 20);
    if (argc < 2) {
        usage(stderr);
        return EXIT_ERROR;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") && argc > 2) {
        /* pgci help CMD = pgci CMD --help */
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (!strcmp(commands[i].name, argv[2])) {
                const char *args[] = {argv[2], "--help", NULL};
                return commands[i].fn(2, args);
            }
        fprintf(stderr, "pgci: error: help: unknown command '%s' (see pgci --help)\n", argv[2]);
        return EXIT_ERROR;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return EXIT_CLEAN;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("pgci %s\n", PGCI_VERSION);
        return EXIT_CLEAN;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(commands[i].name, name))
            return commands[i].fn(argc - 1, (const char **)argv + 1);
    fprintf(stderr, "pgci: error: unknown command '%s' (see pgci --help)\n", name);
    return EXIT_ERROR;
}
