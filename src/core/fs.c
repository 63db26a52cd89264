#include "core/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/tempfile.h"

int fs_read_file(strbuf *sb, const char *path, size_t max_bytes)
{
    if (!max_bytes)
        max_bytes = (size_t)1 << 30;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pgci_error_set(errno == ENOENT ? PGCI_ENOTFOUND : PGCI_EIO, "cannot read %s: %s",
                              path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pgci_error_set(PGCI_EIO, "cannot read %s: not a regular file", path);
    }
    if ((size_t)st.st_size > max_bytes) {
        close(fd);
        return pgci_error_set(PGCI_ELIMIT, "cannot read %s: %lld bytes is over the %zu-byte limit",
                              path, (long long)st.st_size, max_bytes);
    }
    strbuf_grow(sb, (size_t)st.st_size);
    for (;;) {
        strbuf_grow(sb, 65536);
        ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return pgci_error_set(PGCI_EIO, "cannot read %s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        sb->len += (size_t)n;
        sb->buf[sb->len] = '\0';
        if (sb->len > max_bytes) {
            close(fd);
            return pgci_error_set(PGCI_ELIMIT, "cannot read %s: over the %zu-byte limit", path,
                                  max_bytes);
        }
    }
    close(fd);
    return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
    return fs_write_atomic_like(path, data, len, NULL);
}

int fs_write_atomic_like(const char *path, const void *data, size_t len, const struct stat *like)
{
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "%s.pgci-tmp-XXXXXX", path);
    sigset_t saved;
    tempfile_begin(&saved);
    int fd = mkstemp(tmp.buf);
    int mk_errno = errno;
    /* removed on SIGINT/SIGTERM until renamed */
    if (fd >= 0)
        tempfile_register(tmp.buf);
    tempfile_end(&saved);
    if (fd < 0) {
        strbuf_free(&tmp);
        return pgci_error_set(PGCI_EIO, "cannot write %s: %s", path, strerror(mk_errno));
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) < 0 && errno != EINVAL)
        goto fail;
    if (fchmod(fd, like ? like->st_mode & 07777 : 0644) < 0)
        goto fail;
    /* the owner where permitted (root, or a group the user is in) */
    if (like && fchown(fd, like->st_uid, like->st_gid) < 0 &&
        fchown(fd, (uid_t)-1, like->st_gid) < 0)
        errno = 0;
    if (close(fd) < 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp.buf, path) < 0)
        goto fail;
    tempfile_unregister(tmp.buf);
    strbuf_free(&tmp);
    return 0;
fail:;
    int e = errno;
    if (fd >= 0)
        close(fd);
    unlink(tmp.buf);
    tempfile_unregister(tmp.buf);
    strbuf_free(&tmp);
    return pgci_error_set(PGCI_EIO, "cannot write %s: %s", path, strerror(e));
}

int fs_write_scratch(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return pgci_error_set(PGCI_EIO, "cannot write %s: %s", path, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            unlink(path);
            return pgci_error_set(PGCI_EIO, "cannot write %s: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (close(fd) < 0) {
        int e = errno;
        unlink(path);
        return pgci_error_set(PGCI_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int fs_mkdirs(const char *path)
{
    strbuf p = STRBUF_INIT;
    strbuf_adds(&p, path);
    for (size_t i = 1; i <= p.len; i++) {
        if (i < p.len && p.buf[i] != '/')
            continue;
        char c = p.buf[i];
        p.buf[i] = '\0';
        if (mkdir(p.buf, 0755) < 0 && errno != EEXIST) {
            int e = errno;
            int r = pgci_error_set(PGCI_EIO, "cannot create directory %s: %s", p.buf, strerror(e));
            strbuf_free(&p);
            return r;
        }
        p.buf[i] = c;
    }
    int ok = fs_is_dir(path);
    strbuf_free(&p);
    return ok ? 0 : pgci_error_set(PGCI_EIO, "cannot create directory %s: not a directory", path);
}

int fs_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_path_check(const char *rel, const char *what)
{
    if (!rel || !rel[0])
        return pgci_error_set(PGCI_EINVALID, "%s is empty", what);
    if (rel[0] == '/')
        return pgci_error_set(PGCI_EINVALID, "%s '%s' is absolute; it must stay inside its root",
                              what, rel);
    for (const unsigned char *c = (const unsigned char *)rel; *c; c++) {
        if (*c < 0x20 || *c == 0x7f)
            return pgci_error_set(PGCI_EINVALID, "%s contains a control character (0x%02x)", what,
                                  *c);
        if (*c == '\\')
            return pgci_error_set(PGCI_EINVALID, "%s '%s' contains a backslash", what, rel);
    }
    const char *s = rel;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return pgci_error_set(PGCI_EINVALID, "%s '%s' escapes its root with '..'", what, rel);
        if (!e)
            break;
        s = e + 1;
    }
    return 0;
}

void fs_join(strbuf *out, const char *a, const char *b)
{
    strbuf_adds(out, a);
    while (out->len > 1 && out->buf[out->len - 1] == '/')
        strbuf_setlen(out, out->len - 1);
    if (out->len && b[0])
        strbuf_addc(out, '/');
    while (*b == '/')
        b++;
    strbuf_adds(out, b);
}

int fs_join_under(strbuf *out, const char *root, const char *rel, const char *what)
{
    int r = fs_path_check(rel, what);
    if (r < 0)
        return r;
    strbuf p = STRBUF_INIT;
    fs_join(&p, root, rel);
    char real_root[PATH_MAX], real_p[PATH_MAX];
    if (realpath(root, real_root) && realpath(p.buf, real_p)) {
        size_t n = strlen(real_root);
        if (strncmp(real_p, real_root, n) != 0 || (real_p[n] != '/' && real_p[n] != '\0')) {
            r = pgci_error_set(PGCI_EINVALID, "%s '%s' resolves to %s, outside %s (symlink?)", what,
                               rel, real_p, real_root);
            strbuf_free(&p);
            return r;
        }
    }
    strbuf_add(out, p.buf, p.len);
    strbuf_free(&p);
    return 0;
}

char *fs_dirname(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s)
        return pgci_strdup(".");
    if (s == path)
        return pgci_strdup("/");
    return pgci_strndup(path, (size_t)(s - path));
}

int fs_list_dir(strvec *out, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return pgci_error_set(errno == ENOENT ? PGCI_ENOTFOUND : PGCI_EIO, "cannot list %s: %s",
                              dir, strerror(errno));
    size_t start = out->len;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        strvec_push(out, de->d_name);
    }
    closedir(d);
    if (out->len > start) { /* out->items may be NULL: no pointer arithmetic on it */
        strvec tail = {out->items + start, out->len - start, 0};
        strvec_sort(&tail);
    }
    return 0;
}

static int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT
                   ? 0
                   : pgci_error_set(PGCI_EIO, "cannot remove %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        strvec names = STRVEC_INIT;
        int r = fs_list_dir(&names, path);
        for (size_t i = 0; r == 0 && i < names.len; i++) {
            strbuf c = STRBUF_INIT;
            fs_join(&c, path, names.items[i]);
            r = remove_tree(c.buf);
            strbuf_free(&c);
        }
        strvec_free(&names);
        if (r < 0)
            return r;
        if (rmdir(path) < 0)
            return pgci_error_set(PGCI_EIO, "cannot remove %s: %s", path, strerror(errno));
        return 0;
    }
    if (unlink(path) < 0)
        return pgci_error_set(PGCI_EIO, "cannot remove %s: %s", path, strerror(errno));
    return 0;
}

int fs_remove_tree(const char *path)
{
    /* forgotten by the signal-time cleanup only once it is gone: a signal that
     * arrives while the contents go still finds the directory registered */
    int r = remove_tree(path);
    tempfile_unregister(path);
    return r;
}

int fs_mkdtemp(strbuf *out, const char *prefix)
{
    const char *t = getenv("TMPDIR");
    strbuf p = STRBUF_INIT;
    strbuf_addf(&p, "%s/%s-XXXXXX", t && *t ? t : "/tmp", prefix);
    sigset_t saved;
    tempfile_begin(&saved);
    int made = mkdtemp(p.buf) != NULL, e = errno;
    if (made)
        tempfile_register(p.buf);
    tempfile_end(&saved);
    if (!made) {
        strbuf_free(&p);
        return pgci_error_set(PGCI_EIO, "cannot create a temporary directory: %s", strerror(e));
    }
    strbuf_add(out, p.buf, p.len);
    strbuf_free(&p);
    return 0;
}

int fs_path_cmp(const char *a, const char *b)
{
    for (;;) {
        size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
        size_t n = na < nb ? na : nb;
        int c = memcmp(a, b, n);
        if (c)
            return c;
        if (na != nb)
            return na < nb ? -1 : 1;
        if (!a[na] || !b[nb])
            return a[na] ? 1 : b[nb] ? -1 : 0;
        a += na + 1;
        b += nb + 1;
    }
}
