/*
 * proc.h - running a child process with an argument vector: never a shell.
 *
 * proc_run() spawns argv[0] (searched in PATH when it has no '/') with
 * posix_spawn, feeds it optional stdin bytes, collects stdout and stderr, and
 * kills it (its whole process group) when it runs past the timeout. A child that
 * cannot be started, is killed by a signal or times out is an error whose message
 * names the command; a child that exits non-zero is not an error here: the caller
 * reads status and decides. `env` adds or overrides variables of the inherited
 * environment for the child only (pgci's own environment is never changed).
 */
#ifndef PGCI_CORE_PROC_H
#define PGCI_CORE_PROC_H

#include <stddef.h>

#include "core/strbuf.h"

typedef struct proc_opts {
    const char *const *argv; /* NULL-terminated */
    const char *cwd;         /* NULL: inherit */
    const char *const *env;  /* NULL-terminated "NAME=VALUE" over the inherited
                                environment; NULL: inherit it unchanged */
    const char *stdin_data;  /* NULL: /dev/null */
    size_t stdin_len;
    int timeout_ms;    /* 0: no limit */
    size_t max_output; /* cap for each of stdout/stderr; 0 = 256 MiB */
} proc_opts;

typedef struct proc_result {
    int status;    /* exit status when the child exited */
    int signal;    /* the signal that killed it, else 0 */
    int timed_out; /* 1 when pgci killed it for running too long */
    strbuf out;
    strbuf err;
} proc_result;

/* Runs the child to completion. Returns 0 when it exited (any status), negative
 * when it could not start, died by a signal, or timed out (message set). */
int proc_run(const proc_opts *opts, proc_result *res);

void proc_result_free(proc_result *res);

/* "ruff check --fix ..." for messages: argv joined with spaces. */
void proc_argv_string(strbuf *out, const char *const *argv);

#endif
