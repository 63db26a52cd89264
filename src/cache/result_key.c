/*
 * result_key.c - building cache keys, and pgci's own build identity.
 *
 * Why the build id and not the version: a result depends on the code that
 * computed it, and a development build changes that code without changing the
 * version. The linker's GNU build id is a hash of the linked program (the version
 * string included), free to read from the loaded image; when there is none, the
 * executable is hashed.
 */
#include "cache/result_cache.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void rcache_key_add(sha256_ctx *c, const void *data, size_t len)
{
    unsigned char tag = data ? 1 : 0;
    sha256_update(c, &tag, 1);
    rcache_key_addu(c, data ? len : 0);
    if (data && len)
        sha256_update(c, data, len);
}

void rcache_key_adds(sha256_ctx *c, const char *s)
{
    rcache_key_add(c, s, s ? strlen(s) : 0);
}

void rcache_key_addu(sha256_ctx *c, unsigned long long v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    sha256_update(c, b, sizeof(b));
}

void rcache_key_begin(sha256_ctx *c, const char *kind)
{
    sha256_init(c);
    rcache_key_adds(c, "pgci result key 1");
    rcache_key_adds(c, kind);
    rcache_key_adds(c, rcache_build_id());
}

static char build_id[256];
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

/* The NT_GNU_BUILD_ID note of the main program, as hex, into build_id. */
static int note_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    int *found = arg;
    for (int i = 0; i < info->dlpi_phnum && !*found; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end && !*found) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof(*n);
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3u) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                n->n_descsz <= 64) {
                size_t o = (size_t)snprintf(build_id, sizeof(build_id), "build-id ");
                for (unsigned k = 0; k < n->n_descsz; k++)
                    o += (size_t)snprintf(build_id + o, sizeof(build_id) - o, "%02x", desc[k]);
                *found = 1;
            }
            p = (const char *)desc + ((n->n_descsz + 3u) & ~3u);
        }
    }
    return 1; /* the first object is the main program: stop there */
}

static void build_id_make(void)
{
    int found = 0;
    dl_iterate_phdr(note_cb, &found);
    if (found)
        return;
    char hex[SHA256_HEX_LEN + 1];
    if (sha256_file_hex("/proc/self/exe", hex) < 0)
        memcpy(hex, "unknown", 8);
    snprintf(build_id, sizeof(build_id), "exe %s", hex);
}

const char *rcache_build_id(void)
{
    pthread_once(&build_once, build_id_make);
    return build_id;
}
