/*
 * fs.h - reading files, writing them atomically, and keeping paths inside a root.
 *
 * pgci never leaves a partial file behind: every write goes to a temporary file in
 * the destination directory, is flushed, and is renamed over the destination. Paths
 * that come from input (configs, workspaces, the network) pass through
 * fs_path_check() / fs_join_under() before they touch the filesystem.
 */
#ifndef PGCI_CORE_FS_H
#define PGCI_CORE_FS_H

#include <stddef.h>

#include "core/strbuf.h"

/* Compares two relative paths part by part, as pathlib's sort does ("a/x" before
 * "a-b/x", although '/' > '-'): the order config discovery lists configs in. */
int fs_path_cmp(const char *a, const char *b);

/* Reads the whole file into sb (appending). Fails on directories and on files
 * larger than max_bytes (0 = 1 GiB). */
int fs_read_file(strbuf *sb, const char *path, size_t max_bytes);

/* Writes data to path atomically (temp file in the same directory + rename). The
 * directory must exist. On failure nothing is left behind and path is untouched. */
int fs_write_atomic(const char *path, const void *data, size_t len);

/* fs_write_atomic(), with the mode, owner and group of `like` (a stat of the file
 * it replaces) instead of 0644; the owner only where the process may set it.
 * like may be NULL. */
struct stat;
int fs_write_atomic_like(const char *path, const void *data, size_t len, const struct stat *like);

/* Writes a new file, mode 0644, into a directory of pgci's own (fs_mkdtemp): a
 * scratch file for a child process to read, removed with its directory. Not
 * atomic and not synced - nothing outside the run ever reads it, and a run that
 * dies leaves only its temporary directory behind (removed at a signal) - which
 * spares a disk flush per file: ruff's inputs are dozens a run. Fails when path
 * exists. */
int fs_write_scratch(const char *path, const void *data, size_t len);

/* mkdir -p; mode 0755. */
int fs_mkdirs(const char *path);

/* 1 when path exists and is a regular file / a directory, 0 otherwise. */
int fs_is_file(const char *path);
int fs_is_dir(const char *path);

/* Checks a relative path that came from input: not empty, not absolute, no ".."
 * component, no NUL or control character, no backslash. `what` names it in the
 * error ("target_file", "module path"). */
int fs_path_check(const char *rel, const char *what);

/* out = root + "/" + rel after fs_path_check(rel); additionally, if the result
 * exists, its real path must stay under root's real path (a symlink pointing
 * outside is refused). */
int fs_join_under(strbuf *out, const char *root, const char *rel, const char *what);

/* Joins two path parts with exactly one '/'. */
void fs_join(strbuf *out, const char *a, const char *b);

/* The directory part of path ("." when none), newly allocated. */
char *fs_dirname(const char *path);

/* Lists directory entries (names only, sorted, without "." and ".."). */
#include "core/vec.h"
int fs_list_dir(strvec *out, const char *dir);

/* Removes a directory tree (used by tests and for temporary directories). */
int fs_remove_tree(const char *path);

/* Creates a fresh temporary directory under $TMPDIR (or /tmp); out gets its path. */
int fs_mkdtemp(strbuf *out, const char *prefix);

#endif
