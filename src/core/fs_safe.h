/*
 * fs_safe.h - writes confined to a directory tree (the workspace, or the -o
 * directory the user chose).
 *
 * A path from input (a config's target_file, a module name) names a file under a
 * root, and every write mode (check --fix, regen --write, patchgen --check --fix,
 * patchgen -o) must create or replace files only there: the resolved directory a
 * file lands in must be the root or below it, so a generated/ that is a symlink
 * out of the tree is refused. Callers check every path first (fs_safe_check) and
 * write only when all pass, so a refusal leaves nothing written. A replaced file
 * keeps its mode and, where the process may, its owner.
 */
#ifndef PGCI_CORE_FS_SAFE_H
#define PGCI_CORE_FS_SAFE_H

#include <stddef.h>

#include "core/strbuf.h"

/* Checks that rel (relative to root, or absolute but then under root) would be
 * written inside root: fs_path_check() on a relative path, then the deepest
 * existing directory on its way must resolve under root's real path; and that the
 * write can be made: rel is not a directory, and that directory is writable by
 * this process. Creates nothing. abs (may be NULL) gets root/rel. */
int fs_safe_check(const char *root, const char *rel, strbuf *abs);

/* fs_safe_check(), then creates the missing directories (and checks again that
 * they resolve under root), then writes atomically. An existing regular file's
 * mode, owner and group are kept (the owner when permitted); a new file gets
 * 0644. Nothing is written when a check fails. */
int fs_safe_write(const char *root, const char *rel, const void *data, size_t len);

/* A command's output path relative to root: the part after "root/" when path
 * starts with it (outputs under -o DIR), else path itself. Points into path. */
const char *fs_safe_rel(const char *root, const char *path);

/* The root a command writes under: out_dir (-o DIR, created when missing) or the
 * workspace root. Returns 0 or a negative error. */
int fs_safe_root(const char *out_dir, const char *ws_root, const char **root);

#endif
