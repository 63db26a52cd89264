/* Unit tests for src/core/sha256: the FIPS 180-4 / NIST example vectors (the same
 * digests Python's hashlib gives), streaming in odd-sized pieces, and coreutils'
 * sha256sum as an oracle over every length around the block and padding edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/proc.h"
#include "core/sha256.h"
#include "core/strbuf.h"

static void test_vectors(void **state)
{
    (void)state;
    char hex[SHA256_HEX_LEN + 1];
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(m, strlen(m), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m2 =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
        "klmnopqrlmnopqrsmnopqrstnopqrstu";
    sha256_hex(m2, strlen(m2), hex);
    assert_string_equal(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    assert_true(sha256_is_hex(hex));
    assert_false(sha256_is_hex("abc"));
    hex[3] = 'G';
    assert_false(sha256_is_hex(hex));
}

/* One million 'a', hashed in pieces of 1, 7, 63, 64, 65 and 1000 bytes. */
static void test_million_a_streaming(void **state)
{
    (void)state;
    static const size_t pieces[] = {1, 7, 63, 64, 65, 1000};
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
        sha256_ctx c;
        sha256_init(&c);
        for (size_t off = 0; off < 1000000; off += pieces[k]) {
            size_t n = 1000000 - off < pieces[k] ? 1000000 - off : pieces[k];
            sha256_update(&c, a + off, n);
        }
        uint8_t d[SHA256_DIGEST_LEN];
        char hex[SHA256_HEX_LEN + 1];
        sha256_final(&c, d);
        sha256_to_hex(d, hex);
        assert_string_equal(hex,
                            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    free(a);
}

/* Every length from 0 to 300 bytes of varied data, and a 3 MB file, against one
 * run of sha256sum over all of them; sha256_file_hex must agree with sha256_hex. */
static void test_against_sha256sum(void **state)
{
    (void)state;
    enum { NFILES = 302 };
    static const size_t big = 3 * 1000 * 1000 + 17;
    strbuf dir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-sha"), 0);
    unsigned char *buf = malloc(big);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < big; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)x;
    }
    const char *argv[NFILES + 2];
    char *paths[NFILES];
    argv[0] = "sha256sum";
    for (size_t k = 0; k < NFILES; k++) {
        size_t n = k == NFILES - 1 ? big : k;
        paths[k] = pgci_asprintf("%s/%zu", dir.buf, k);
        FILE *f = fopen(paths[k], "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, n, f), n);
        assert_int_equal(fclose(f), 0);
        argv[k + 1] = paths[k];
    }
    argv[NFILES + 1] = NULL;
    proc_opts po = {.argv = argv, .timeout_ms = 60000};
    proc_result res = {0};
    assert_int_equal(proc_run(&po, &res), 0);
    assert_int_equal(res.status, 0);
    const char *line = res.out.buf;
    for (size_t k = 0; k < NFILES; k++) {
        size_t n = k == NFILES - 1 ? big : k;
        char hex[SHA256_HEX_LEN + 1], fhex[SHA256_HEX_LEN + 1];
        sha256_hex(buf, n, hex);
        assert_true(strlen(line) > SHA256_HEX_LEN);
        assert_memory_equal(line, hex, SHA256_HEX_LEN);
        assert_int_equal(sha256_file_hex(paths[k], fhex), 0);
        assert_string_equal(fhex, hex);
        line = strchr(line, '\n');
        assert_non_null(line);
        line++;
        free(paths[k]);
    }
    assert_string_equal(line, "");
    proc_result_free(&res);
    free(buf);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_million_a_streaming),
        cmocka_unit_test(test_against_sha256sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
