/*
 * result_trim.c - keeping the result cache within its bound.
 *
 * Entries are ordered by modification time, which a hit refreshes, and the
 * oldest go first until the cache holds three quarters of its bound (so a run
 * does not trim again at once). A concurrent run may be reading an entry that
 * is removed here: it already has the bytes or sees a miss, never half a file.
 */
#include "cache/result_cache.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/vec.h"

typedef struct entry {
    char *path;
    off_t size;
    struct timespec mtime;
} entry;

typedef VEC(entry) entry_vec;

static int older(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* An entry's name (or a temporary file of one being written): 64 hex digits,
 * the first two those of its directory. Nothing else is ever removed, so a
 * cache directory pointed at the wrong place cannot lose anything but entries. */
static int is_entry_name(const char *sub, const char *name)
{
    size_t n = strlen(name);
    if (n < SHA256_HEX_LEN || !is_hex(name, SHA256_HEX_LEN) || memcmp(name, sub, 2))
        return 0;
    return n == SHA256_HEX_LEN || !strncmp(name + SHA256_HEX_LEN, ".tmp-", 5);
}

/* Appends every entry of dir/<two hex digits>/ to v; returns their total size. */
static size_t scan(const char *dir, entry_vec *v)
{
    size_t total = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strlen(de->d_name) != 2 || !is_hex(de->d_name, 2))
            continue;
        strbuf sub = STRBUF_INIT;
        fs_join(&sub, dir, de->d_name);
        DIR *s = opendir(sub.buf);
        struct dirent *fe;
        while (s && (fe = readdir(s))) {
            struct stat st;
            strbuf p = STRBUF_INIT;
            fs_join(&p, sub.buf, fe->d_name);
            if (is_entry_name(de->d_name, fe->d_name) && lstat(p.buf, &st) == 0 &&
                S_ISREG(st.st_mode)) {
                entry e = {strbuf_detach(&p, NULL), st.st_size, st.st_mtim};
                VEC_PUSH(v, e);
                total += (size_t)st.st_size;
            }
            strbuf_free(&p);
        }
        if (s)
            closedir(s);
        strbuf_free(&sub);
    }
    if (d)
        closedir(d);
    return total;
}

void rcache_trim(rcache *c)
{
    entry_vec v = VEC_INIT;
    const char *dir = rcache_dir(c);
    size_t total = scan(dir, &v);
    size_t bound = rcache_max_bytes(c);
    if (total > bound && v.len) {
        qsort(v.items, v.len, sizeof(entry), older);
        size_t goal = bound / 4 * 3;
        for (size_t i = 0; i < v.len && total > goal; i++)
            if (unlink(v.items[i].path) == 0)
                total -= (size_t)v.items[i].size;
    }
    for (size_t i = 0; i < v.len; i++)
        free(v.items[i].path);
    VEC_FREE(&v);
}
