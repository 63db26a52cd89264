/*
 * Writes confined to a root (see fs_safe.h). The check resolves the deepest
 * directory that exists on the way to the file, because the file and the
 * directories below it may not exist yet: a symlinked generated/ resolves out of
 * the tree before anything is created under it.
 */
#include "core/fs_safe.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"

static int under(const char *real_root, const char *real)
{
    size_t n = strlen(real_root);
    if (n == 1 && real_root[0] == '/')
        return 1;
    return !strncmp(real, real_root, n) && (real[n] == '/' || real[n] == '\0');
}

/* The real path of the deepest existing ancestor directory of path. */
static int deepest_dir(const char *path, char *real)
{
    char *dir = fs_dirname(path);
    for (;;) {
        struct stat st;
        if (stat(dir, &st) == 0) {
            int ok = S_ISDIR(st.st_mode) && realpath(dir, real);
            int r =
                ok ? 0 : pgci_error_set(PGCI_EIO, "cannot write under %s: not a directory", dir);
            free(dir);
            return r;
        }
        char *up = fs_dirname(dir);
        int top = !strcmp(up, dir);
        free(dir);
        dir = up;
        if (top) {
            free(dir);
            return pgci_error_set(PGCI_EIO, "cannot resolve %s", path);
        }
    }
}

/* The file at path can be created or replaced: it is not a directory, and the
 * directory it lands in (or the deepest existing one, real, where the rest is to
 * be created) lets this process create entries. A write that would fail on that is
 * refused before any is made. */
static int writable(const char *path, const char *rel, const char *real)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return pgci_error_set(PGCI_EIO, "cannot write %s: it is a directory; nothing was written",
                              rel);
    if (access(real, W_OK | X_OK) < 0)
        return pgci_error_set(PGCI_EIO,
                              "cannot write %s: %s is not writable (%s); nothing was written", rel,
                              real, strerror(errno));
    return 0;
}

int fs_safe_check(const char *root, const char *rel, strbuf *abs)
{
    strbuf p = STRBUF_INIT;
    int r = 0;
    if (rel[0] == '/')
        strbuf_adds(&p, rel);
    else if ((r = fs_path_check(rel, "output path")) == 0)
        fs_join(&p, root, rel);
    char real_root[PATH_MAX], real[PATH_MAX];
    if (r == 0 && !realpath(root, real_root))
        r = pgci_error_set(PGCI_EIO, "cannot resolve %s: %s", root, strerror(errno));
    if (r == 0)
        r = deepest_dir(p.buf, real);
    if (r == 0 && !under(real_root, real))
        r = pgci_error_set(PGCI_EINVALID,
                           "refusing to write %s: its directory resolves to %s, outside %s "
                           "(a symlink out of the tree?); nothing was written",
                           rel, real, real_root);
    if (r == 0)
        r = writable(p.buf, rel, real);
    if (r == 0 && abs)
        strbuf_add(abs, p.buf, p.len);
    strbuf_free(&p);
    return r;
}

const char *fs_safe_rel(const char *root, const char *path)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (!strncmp(path, root, n) && path[n] == '/') {
        path += n;
        while (*path == '/')
            path++;
    }
    return path;
}

int fs_safe_root(const char *out_dir, const char *ws_root, const char **root)
{
    *root = out_dir ? out_dir : ws_root;
    return out_dir ? fs_mkdirs(out_dir) : 0;
}

int fs_safe_write(const char *root, const char *rel, const void *data, size_t len)
{
    strbuf p = STRBUF_INIT;
    int r = fs_safe_check(root, rel, &p);
    char *dir = r == 0 ? fs_dirname(p.buf) : NULL;
    if (r == 0)
        r = fs_mkdirs(dir);
    /* the directories just created, or raced in, must resolve inside too */
    if (r == 0)
        r = fs_safe_check(root, rel, NULL);
    struct stat st;
    int keep = r == 0 && lstat(p.buf, &st) == 0 && S_ISREG(st.st_mode);
    if (r == 0)
        r = fs_write_atomic_like(p.buf, data, len, keep ? &st : NULL);
    free(dir);
    strbuf_free(&p);
    return r;
}
