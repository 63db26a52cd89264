/*
 * sha256.h - SHA-256, for the content-addressed caches and the input hashes recorded
 * in run.json: OpenSSL's libcrypto (EVP) underneath, which uses the CPU's SHA
 * instructions where there are some.
 *
 * Streaming use:
 *
 *     sha256_ctx c;
 *     sha256_init(&c);
 *     sha256_update(&c, data, len);   // as often as needed
 *     sha256_final(&c, digest);       // 32 bytes
 *
 * or sha256_hex() for the whole of a buffer as 64 lowercase hex digits. Every
 * sha256_init() is followed by one sha256_final(), which releases the context.
 */
#ifndef PGCI_CORE_SHA256_H
#define PGCI_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

typedef struct evp_md_ctx_st EVP_MD_CTX;

typedef struct sha256_ctx {
    EVP_MD_CTX *md;
} sha256_ctx;

/* Starts a new hash. */
void sha256_init(sha256_ctx *c);

/* Hashes len more bytes. */
void sha256_update(sha256_ctx *c, const void *data, size_t len);

/* Writes the 32-byte digest to out and releases c (unusable until sha256_init). */
void sha256_final(sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);

/* The digest of data[0..len) as 64 lowercase hex digits and a NUL in out. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

/* Writes the digest as lowercase hex (64 digits and a NUL) to out. */
void sha256_to_hex(const uint8_t digest[SHA256_DIGEST_LEN], char out[SHA256_HEX_LEN + 1]);

/* 1 when s is exactly 64 lowercase hex digits (a digest as sha256_hex writes it). */
int sha256_is_hex(const char *s);

/* The SHA-256 of a whole file, as hex, into out; reads in blocks (no size limit). */
int sha256_file_hex(const char *path, char out[SHA256_HEX_LEN + 1]);

#endif
