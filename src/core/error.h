/*
 * error.h - the libgit2-style error convention used by all of pgci's library code.
 *
 * Every fallible function returns int: 0 on success, a negative PGCI_E* code on
 * failure, after recording a human-readable message in a thread-local slot with
 * pgci_error_set(). Only src/cmd/ reads the slot, prints it and chooses the exit
 * code. Messages say what, where and why: "cannot fetch X at Y: HTTP 404".
 */
#ifndef PGCI_CORE_ERROR_H
#define PGCI_CORE_ERROR_H

enum {
    PGCI_OK = 0,
    PGCI_ERROR = -1,        /* generic failure */
    PGCI_ENOTFOUND = -2,    /* a file, tag, module or target that does not exist */
    PGCI_EINVALID = -3,     /* malformed input: syntax error, bad value */
    PGCI_EUNSUPPORTED = -4, /* a construct pgci refuses to guess about */
    PGCI_EIO = -5,          /* filesystem or process failure */
    PGCI_ENET = -6,         /* network failure (connect, TLS, timeout, HTTP status) */
    PGCI_EUSAGE = -7,       /* bad command-line usage */
    PGCI_ELIMIT = -8,       /* a size, depth or time limit was hit */
};

/* Records a printf-style message in the thread's error slot; returns `code`. */
int pgci_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to the current message (for adding context going up). */
int pgci_error_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The thread's last message, or "" when none was set. Valid until the next set. */
const char *pgci_error_last(void);

/* The code of the last error set on this thread (0 when cleared). */
int pgci_error_code(void);

/* Forgets the current message. */
void pgci_error_clear(void);

#endif
