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

/* A function to run in a child process: 0, or non-zero with its reason in why. */
typedef int (*proc_call_fn)(void *arg, strbuf *why);

/* Runs fn(arg) in a forked child and waits for it up to timeout_ms (0: no
 * limit), killing it on expiry: a deadline for library calls that cannot take
 * one (libgit2 1.5's fetch waits for a silent server forever). The child shares
 * nothing with the parent afterwards: what fn changes on disk is seen, what it
 * changes in memory is not. It leaves with _exit, so no atexit handler, stdio
 * flush or leak check runs twice. Call it only while the process has one thread.
 * Returns 0 when fn returned 0; PGCI_ELIMIT when it ran past timeout_ms;
 * PGCI_ERROR with fn's reason in why (and the error slot) when it failed;
 * PGCI_EIO when the child could not start or died by a signal. */
int proc_call(proc_call_fn fn, void *arg, long timeout_ms, strbuf *why);

/* "ruff check --fix ..." for messages: argv joined with spaces. */
void proc_argv_string(strbuf *out, const char *const *argv);

#endif
