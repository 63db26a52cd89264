/*
 * SHA-256 through OpenSSL's EVP interface. The digest is fetched from the default
 * provider once per process; each hash is one EVP_MD_CTX, made by sha256_init()
 * and freed by sha256_final(). libcrypto picks the fastest implementation the CPU
 * allows (SHA-NI, AVX2): several times the speed of a portable C loop, which
 * matters because every cache key hashes whole modules.
 */
#include "core/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void fetch_md(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* libcrypto failing to hash in memory is as fatal as malloc failing. */
static void crypto_fail(const char *what)
{
    fprintf(stderr, "pgci: fatal: libcrypto: %s failed\n", what);
    abort();
}

void sha256_init(sha256_ctx *c)
{
    pthread_once(&sha256_once, fetch_md);
    if (!sha256_md)
        crypto_fail("fetching SHA256");
    c->md = EVP_MD_CTX_new();
    if (!c->md || !EVP_DigestInit_ex2(c->md, sha256_md, NULL))
        crypto_fail("EVP_DigestInit_ex2");
}

void sha256_update(sha256_ctx *c, const void *data, size_t len)
{
    if (len && !EVP_DigestUpdate(c->md, data, len))
        crypto_fail("EVP_DigestUpdate");
}

void sha256_final(sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN])
{
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex(c->md, out, &n) || n != SHA256_DIGEST_LEN)
        crypto_fail("EVP_DigestFinal_ex");
    EVP_MD_CTX_free(c->md);
    c->md = NULL;
}

void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_LEN], char out[SHA256_HEX_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_LEN; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[SHA256_HEX_LEN] = '\0';
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1])
{
    sha256_ctx c;
    uint8_t d[SHA256_DIGEST_LEN];
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, d);
    sha256_to_hex(d, out);
}

int sha256_is_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == SHA256_HEX_LEN;
}

int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pgci_error_set(errno == ENOENT ? PGCI_ENOTFOUND : PGCI_EIO, "cannot read %s: %s",
                              path, strerror(errno));
    sha256_ctx c;
    sha256_init(&c);
    uint8_t buf[65536];
    int err = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            err = errno;
        if (n <= 0)
            break;
        sha256_update(&c, buf, (size_t)n);
    }
    close(fd);
    uint8_t d[SHA256_DIGEST_LEN];
    sha256_final(&c, d);
    if (err)
        return pgci_error_set(PGCI_EIO, "cannot read %s: %s", path, strerror(err));
    sha256_to_hex(d, out);
    return 0;
}
