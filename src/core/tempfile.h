/*
 * tempfile.h - temporary files and directories that go away on SIGINT, SIGTERM
 * and SIGHUP too.
 *
 * fs_write_atomic() registers its temporary file until the rename, and
 * fs_mkdtemp() its directory until fs_remove_tree() removes it. The first
 * registration installs handlers that remove whatever is registered and then let
 * the signal take its default course (the exit status still says which signal),
 * as git's tempfile.c does. The registry is a fixed table of slots updated with
 * atomic operations, so worker threads may register while a signal arrives.
 */
#ifndef PGCI_CORE_TEMPFILE_H
#define PGCI_CORE_TEMPFILE_H

#include <signal.h>

/* Remembers path (a file or a directory tree) for removal on a signal. When the
 * table is full, the path is not remembered (it is still removed normally). */
void tempfile_register(const char *path);

/* Forgets path (after it was renamed or removed); no-op when not registered. */
void tempfile_unregister(const char *path);

/* Bracket the creation of a temporary path and its registration:
 *
 *     sigset_t saved;
 *     tempfile_begin(&saved);
 *     mkdtemp(...); tempfile_register(...);
 *     tempfile_end(&saved);
 *
 * The calling thread's signals are blocked in between, and a signal handled on
 * another thread waits until every thread in between has registered its path, so
 * no path is created unseen while the handler removes the others. Once a signal
 * has arrived, tempfile_begin() does not return: the process is ending, and
 * nothing more is created. */
void tempfile_begin(sigset_t *saved);
void tempfile_end(const sigset_t *saved);

#endif
