/*
 * result_cache.c - entries on disk, checked on every read.
 *
 * An entry is a small text header and the payload:
 *
 *     pgci-result 1\n<kind>\n<key hex>\n<payload length>\n<payload sha256 hex>\n<payload>
 *
 * Why the header repeats the key and the kind: a file renamed or copied to the
 * wrong name, or a kind whose payload format changed, must read as a miss. Why
 * no fsync: a torn write after a crash fails the checksum and is recomputed, so
 * durability buys nothing here and would cost a disk flush per entry.
 */
#include "cache/result_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/vec.h"

#define MAGIC "pgci-result 1\n"

struct rcache {
    char *dir;
    size_t max_bytes;
    pthread_mutex_t lock;
    rcache_stats st;
};

static int default_dir(strbuf *out)
{
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && x[0] == '/') {
        fs_join(out, x, "pgci/results");
        return 0;
    }
    const char *h = getenv("HOME");
    if (!h || h[0] != '/')
        return pgci_error_set(PGCI_EIO, "cannot find the cache directory: neither "
                                        "XDG_CACHE_HOME nor HOME is an absolute path");
    fs_join(out, h, ".cache/pgci/results");
    return 0;
}

int rcache_open(rcache **out, const char *dir, size_t max_bytes)
{
    strbuf d = STRBUF_INIT;
    if (dir) {
        strbuf_adds(&d, dir);
    } else if (default_dir(&d) < 0) {
        strbuf_free(&d);
        return PGCI_EIO;
    }
    if (!max_bytes) {
        const char *m = getenv("PGCI_CACHE_MAX_MB");
        char *end;
        unsigned long long mb = m && m[0] ? strtoull(m, &end, 10) : 0;
        max_bytes = mb && !*end ? (size_t)mb << 20 : RCACHE_DEFAULT_MAX_BYTES;
    }
    rcache *c = pgci_calloc(1, sizeof(*c));
    c->dir = strbuf_detach(&d, NULL);
    c->max_bytes = max_bytes;
    pthread_mutex_init(&c->lock, NULL);
    *out = c;
    return 0;
}

const char *rcache_dir(const rcache *c)
{
    return c->dir;
}

size_t rcache_max_bytes(const rcache *c)
{
    return c->max_bytes;
}

static void entry_path(const rcache *c, const char *hex, strbuf *out)
{
    strbuf_addf(out, "%s/%.2s/%s", c->dir, hex, hex);
}

static void count(rcache *c, size_t *field)
{
    pthread_mutex_lock(&c->lock);
    (*field)++;
    pthread_mutex_unlock(&c->lock);
}

static void header(strbuf *h, const char *kind, const char *hex, const void *data, size_t len)
{
    char sum[SHA256_HEX_LEN + 1];
    sha256_hex(data, len, sum);
    strbuf_addf(h, MAGIC "%s\n%s\n%zu\n%s\n", kind, hex, len, sum);
}

/* 1 when file[0..n) is a whole, intact entry for kind and hex; *payload set. */
static int entry_valid(const char *file, size_t n, const char *kind, const char *hex,
                       size_t *payload)
{
    const char *p = file, *end = file + n;
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, MAGIC "%s\n%s\n", kind, hex);
    int ok = n >= want.len && !memcmp(p, want.buf, want.len);
    p += ok ? want.len : 0;
    strbuf_free(&want);
    if (!ok)
        return 0;
    char *e;
    errno = 0;
    unsigned long long len = strtoull(p, &e, 10);
    if (errno || e == p || e >= end || *e != '\n')
        return 0;
    p = e + 1;
    if ((size_t)(end - p) < SHA256_HEX_LEN + 1 || p[SHA256_HEX_LEN] != '\n')
        return 0;
    const char *sum = p, *data = p + SHA256_HEX_LEN + 1;
    if ((unsigned long long)(end - data) != len)
        return 0;
    char got[SHA256_HEX_LEN + 1];
    sha256_hex(data, (size_t)len, got);
    if (memcmp(got, sum, SHA256_HEX_LEN))
        return 0;
    *payload = (size_t)(data - file);
    return 1;
}

int rcache_get(rcache *c, const char *kind, const uint8_t key[SHA256_DIGEST_LEN], strbuf *out)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_to_hex(key, hex);
    strbuf path = STRBUF_INIT, file = STRBUF_INIT;
    entry_path(c, hex, &path);
    int hit = 0;
    size_t off = 0;
    if (fs_read_file(&file, path.buf, 0) < 0) {
        pgci_error_clear();
        count(c, &c->st.misses);
    } else if (!entry_valid(file.buf, file.len, kind, hex, &off)) {
        count(c, &c->st.corrupt);
        count(c, &c->st.misses);
    } else {
        strbuf_add(out, file.buf + off, file.len - off);
        /* least recently used goes first when trimming: a hit is a use */
        utimensat(AT_FDCWD, path.buf, NULL, 0);
        count(c, &c->st.hits);
        hit = 1;
    }
    strbuf_free(&file);
    strbuf_free(&path);
    return hit;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void rcache_put(rcache *c, const char *kind, const uint8_t key[SHA256_DIGEST_LEN], const void *data,
                size_t len)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_to_hex(key, hex);
    strbuf dir = STRBUF_INIT, path = STRBUF_INIT, tmp = STRBUF_INIT, h = STRBUF_INIT;
    strbuf_addf(&dir, "%s/%.2s", c->dir, hex);
    entry_path(c, hex, &path);
    strbuf_addf(&tmp, "%s.tmp-XXXXXX", path.buf);
    header(&h, kind, hex, data, len);
    int fd = -1;
    if (fs_mkdirs(dir.buf) < 0 || (fd = mkstemp(tmp.buf)) < 0) {
        pgci_error_clear();
        goto out;
    }
    int ok =
        write_all(fd, h.buf, h.len) == 0 && write_all(fd, data, len) == 0 && fchmod(fd, 0644) == 0;
    ok &= close(fd) == 0;
    if (ok && rename(tmp.buf, path.buf) == 0)
        count(c, &c->st.writes);
    else
        unlink(tmp.buf);
out:
    strbuf_free(&dir);
    strbuf_free(&path);
    strbuf_free(&tmp);
    strbuf_free(&h);
}

void rcache_get_stats(rcache *c, rcache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->st;
    pthread_mutex_unlock(&c->lock);
}

void rcache_free(rcache *c)
{
    if (!c)
        return;
    if (c->st.writes)
        rcache_trim(c);
    pthread_mutex_destroy(&c->lock);
    free(c->dir);
    free(c);
}
