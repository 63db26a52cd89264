/* Unit tests for src/core/sha256: the FIPS 180-4 / NIST example vectors (the same
 * digests Python's hashlib gives), streaming in odd-sized pieces, and coreutils'
 * sha256sum as an oracle over every length around the block and padding edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
    const char *m2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
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

/* Every length from 0 to 300 bytes of varied data, and one large file, against
 * sha256sum; sha256_file_hex must agree with sha256_hex on the same bytes. */
static void test_against_sha256sum(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-sha"), 0);
    strbuf path = STRBUF_INIT;
    fs_join(&path, dir.buf, "data");
    static const size_t big = 3 * 1000 * 1000 + 17;
    unsigned char *buf = malloc(big);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < big; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (unsigned char)x;
    }
    for (size_t len = 0; len <= 301; len++) {
        size_t n = len == 301 ? big : len;
        assert_int_equal(fs_write_atomic(path.buf, buf, n), 0);
        const char *argv[] = {"sha256sum", path.buf, NULL};
        proc_opts po = {.argv = argv, .timeout_ms = 20000};
        proc_result res = {0};
        assert_int_equal(proc_run(&po, &res), 0);
        assert_int_equal(res.status, 0);
        assert_true(res.out.len > SHA256_HEX_LEN);
        res.out.buf[SHA256_HEX_LEN] = '\0';
        char hex[SHA256_HEX_LEN + 1], fhex[SHA256_HEX_LEN + 1];
        sha256_hex(buf, n, hex);
        assert_string_equal(hex, res.out.buf);
        assert_int_equal(sha256_file_hex(path.buf, fhex), 0);
        assert_string_equal(fhex, hex);
        proc_result_free(&res);
    }
    free(buf);
    fs_remove_tree(dir.buf);
    strbuf_free(&path);
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
