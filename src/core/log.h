/*
 * log.h - what pgci says on stderr besides errors: verbosity and a progress line.
 *
 * The log level is one of the two pieces of global state pgci allows (the other is
 * the error slot). The progress line is drawn only when stderr is a TTY and the
 * level is not quiet, so logs in CI stay clean.
 */
#ifndef PGCI_CORE_LOG_H
#define PGCI_CORE_LOG_H

enum { LOG_QUIET = 0, LOG_NORMAL = 1, LOG_VERBOSE = 2 };

void log_set_level(int level);
int log_level(void);

/* A message on stderr at normal level ("pgci: " prefixed). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A message on stderr at verbose level only. */
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning: shown unless quiet. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "[done/total] what" redrawn in place; no-op unless stderr is a TTY. Thread-safe. */
void progress_update(const char *stage, unsigned long done, unsigned long total, const char *what);
/* Clears the progress line. */
void progress_done(void);

/* 1 when colour may be used on stdout (a TTY, NO_COLOR unset). */
int log_stdout_color(void);

#endif
