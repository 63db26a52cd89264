/* Unit tests for src/cache (the result cache) and src/patchgen/regen_cache (what
 * a codegen result looks like in it): a round trip; a truncated, a damaged and a
 * misnamed entry each read as a miss and are counted, then rewritten; the size
 * bound removes the least recently used entries; threads writing and reading one
 * key never see a partial entry; keys change with every input of a codegen
 * result and with pgci's build; notes survive the stored form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/result_cache.h"
#include "checks/finding.h"
#include "core/fs.h"
#include "patchgen/regen_cache.h"

static void key_of(const char *s, uint8_t key[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    rcache_key_begin(&c, "test");
    rcache_key_adds(&c, s);
    sha256_final(&c, key);
}

static void entry_file(rcache *c, const uint8_t key[SHA256_DIGEST_LEN], strbuf *out)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_to_hex(key, hex);
    strbuf_addf(out, "%s/%.2s/%s", rcache_dir(c), hex, hex);
}

static rcache *fresh(strbuf *dir, size_t max)
{
    assert_int_equal(fs_mkdtemp(dir, "pgci-test-rcache"), 0);
    rcache *c;
    assert_int_equal(rcache_open(&c, dir->buf, max), 0);
    return c;
}

static void test_round_trip(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, got = STRBUF_INIT;
    rcache *c = fresh(&dir, 0);
    uint8_t k[SHA256_DIGEST_LEN], k2[SHA256_DIGEST_LEN];
    key_of("a", k);
    key_of("b", k2);
    assert_int_equal(rcache_get(c, "codegen", k, &got), 0);
    const char payload[] = "line one\n\0binary\xff tail";
    rcache_put(c, "codegen", k, payload, sizeof(payload));
    assert_int_equal(rcache_get(c, "codegen", k, &got), 1);
    assert_int_equal(got.len, sizeof(payload));
    assert_memory_equal(got.buf, payload, sizeof(payload));
    /* another kind or another key under the same bytes: a miss */
    strbuf_reset(&got);
    assert_int_equal(rcache_get(c, "ruff", k, &got), 0);
    assert_int_equal(rcache_get(c, "codegen", k2, &got), 0);
    /* an empty payload is a result too */
    rcache_put(c, "ruff", k2, "", 0);
    assert_int_equal(rcache_get(c, "ruff", k2, &got), 1);
    assert_int_equal(got.len, 0);
    rcache_stats st;
    rcache_get_stats(c, &st);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.writes, 2);
    assert_int_equal(st.corrupt, 1); /* the kind mismatch */
    rcache_free(c);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&got);
}

/* Rewrites the entry's file through fn, then expects a counted miss, and a hit
 * again after the result is put back. */
static void damage_and_recover(void (*fn)(strbuf *file))
{
    strbuf dir = STRBUF_INIT, got = STRBUF_INIT, path = STRBUF_INIT, data = STRBUF_INIT;
    rcache *c = fresh(&dir, 0);
    uint8_t k[SHA256_DIGEST_LEN];
    key_of("damaged", k);
    const char *payload = "def f():\n    return 1\n";
    rcache_put(c, "ruff", k, payload, strlen(payload));
    entry_file(c, k, &path);
    assert_int_equal(fs_read_file(&data, path.buf, 0), 0);
    fn(&data);
    assert_int_equal(fs_write_atomic(path.buf, data.buf, data.len), 0);
    assert_int_equal(rcache_get(c, "ruff", k, &got), 0);
    assert_int_equal(got.len, 0);
    rcache_stats st;
    rcache_get_stats(c, &st);
    assert_int_equal(st.corrupt, 1);
    rcache_put(c, "ruff", k, payload, strlen(payload));
    assert_int_equal(rcache_get(c, "ruff", k, &got), 1);
    assert_string_equal(got.buf, payload);
    rcache_free(c);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&got);
    strbuf_free(&path);
    strbuf_free(&data);
}

static void truncate_last(strbuf *f)
{
    strbuf_setlen(f, f->len - 3);
}

static void flip_payload_byte(strbuf *f)
{
    f->buf[f->len - 5] ^= 0x20;
}

static void flip_checksum(strbuf *f)
{
    char *sum = strstr(f->buf, "\ndef") - SHA256_HEX_LEN;
    sum[0] = sum[0] == '0' ? '1' : '0';
}

static void bad_length(strbuf *f)
{
    char *nl = strchr(strchr(strchr(f->buf, '\n') + 1, '\n') + 1, '\n') + 1;
    nl[0] = '9';
}

static void truncate_header(strbuf *f)
{
    strbuf_setlen(f, 20);
}

static void test_corrupt_entries(void **state)
{
    (void)state;
    damage_and_recover(truncate_last);
    damage_and_recover(flip_payload_byte);
    damage_and_recover(flip_checksum);
    damage_and_recover(bad_length);
    damage_and_recover(truncate_header);
}

/* An old file that is not an entry, at path; returns 1 when it was made. */
static void plant(const char *path)
{
    assert_int_equal(fs_write_atomic(path, "keep me\n", 8), 0);
    struct timespec ts[2] = {{1, 0}, {1, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_trim_bound(void **state)
{
    (void)state;
    /* the cache lives one level below a directory holding another, older file:
     * trimming must never reach it (nor a stray file inside the cache) */
    strbuf top = STRBUF_INIT, dir = STRBUF_INIT, got = STRBUF_INIT, p = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&top, "pgci-test-rtrim"), 0);
    strbuf_addf(&dir, "%s/rc", top.buf);
    strbuf_addf(&p, "%s/zz", top.buf);
    plant(p.buf);
    rcache *c;
    assert_int_equal(rcache_open(&c, dir.buf, 40000), 0); /* about four 9000-byte entries */
    char *blob = malloc(9000);
    memset(blob, 'x', 9000);
    uint8_t k[10][SHA256_DIGEST_LEN];
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof(name), "e%d", i);
        key_of(name, k[i]);
        rcache_put(c, "t", k[i], blob, 9000);
        /* distinct modification times, oldest first */
        strbuf e = STRBUF_INIT;
        entry_file(c, k[i], &e);
        struct timespec ts[2] = {{1000 + i, 0}, {1000 + i, 0}};
        assert_int_equal(utimensat(AT_FDCWD, e.buf, ts, 0), 0);
        strbuf_free(&e);
    }
    char hex[SHA256_HEX_LEN + 1];
    sha256_to_hex(k[0], hex);
    strbuf q = STRBUF_INIT;
    strbuf_addf(&q, "%s/%.2s/notes.txt", dir.buf, hex);
    plant(q.buf);
    rcache_trim(c);
    /* down to 3/4 of the bound: the three newest remain */
    for (int i = 0; i < 10; i++) {
        strbuf_reset(&got);
        assert_int_equal(rcache_get(c, "t", k[i], &got), i >= 7);
    }
    assert_true(fs_is_file(p.buf));
    assert_true(fs_is_file(q.buf));
    free(blob);
    rcache_free(c);
    fs_remove_tree(top.buf);
    strbuf_free(&top);
    strbuf_free(&dir);
    strbuf_free(&got);
    strbuf_free(&p);
    strbuf_free(&q);
}

typedef struct race {
    rcache *c;
    int bad;
} race;

static void *racer(void *arg)
{
    race *r = arg;
    uint8_t k[SHA256_DIGEST_LEN];
    key_of("shared", k);
    char big[50000];
    memset(big, 'y', sizeof(big));
    for (int i = 0; i < 50; i++) {
        rcache_put(r->c, "t", k, big, sizeof(big));
        strbuf got = STRBUF_INIT;
        if (rcache_get(r->c, "t", k, &got) &&
            (got.len != sizeof(big) || memcmp(got.buf, big, sizeof(big))))
            r->bad = 1;
        strbuf_free(&got);
    }
    return NULL;
}

static void test_concurrent_writers(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT;
    rcache *c = fresh(&dir, 0);
    pthread_t th[4];
    race r[4];
    for (int i = 0; i < 4; i++) {
        r[i].c = c;
        r[i].bad = 0;
        assert_int_equal(pthread_create(&th[i], NULL, racer, &r[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(r[i].bad, 0);
    }
    rcache_stats st;
    rcache_get_stats(c, &st);
    assert_int_equal(st.corrupt, 0);
    assert_int_equal(st.hits, 200);
    /* no temporary file is left behind */
    uint8_t k[SHA256_DIGEST_LEN];
    key_of("shared", k);
    char hex[SHA256_HEX_LEN + 1];
    sha256_to_hex(k, hex);
    strbuf sub = STRBUF_INIT;
    strbuf_addf(&sub, "%s/%.2s", dir.buf, hex);
    strvec names = STRVEC_INIT;
    assert_int_equal(fs_list_dir(&names, sub.buf), 0);
    assert_int_equal(names.len, 1);
    strvec_free(&names);
    strbuf_free(&sub);
    rcache_free(c);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
}

static const pg_object obj_a = {.name = "f",
                                .module = "pkg.sib_config",
                                .file = "/ws/sib_config.py",
                                .text = "def f():\n    pass\n",
                                .start_line = 1,
                                .end_line = 2,
                                .text_len = 18};

static void base_config(pg_config *c, pg_patch *p)
{
    memset(c, 0, sizeof(*c));
    memset(p, 0, sizeof(*p));
    c->var_name = "config";
    c->file = "/ws/a_config.py";
    c->module = "pkg.a_config";
    c->source_module = "transformers.models.x.modeling_x";
    c->target_file = "patched_modeling_x.py";
    p->type = PG_FUNCTION_REPLACEMENT;
    p->target = "f";
    p->replacement = &obj_a;
    p->source_module = "pkg.sib_config";
    p->description = "Replace f with f";
    c->patches.items = p;
    c->patches.len = 1;
}

static void test_codegen_key_inputs(void **state)
{
    (void)state;
    pg_config c;
    pg_patch p;
    base_config(&c, &p);
    uint8_t k0[SHA256_DIGEST_LEN], k[SHA256_DIGEST_LEN];
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k0);
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_equal(k0, k, SHA256_DIGEST_LEN);
    /* the upstream text, the version */
    regen_cache_key(&c, "x = 2\n", 6, "5.9.0", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    regen_cache_key(&c, "x = 1\n", 6, "5.16.1", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    /* the text of a sibling config that defines the replacement */
    pg_object sib = obj_a;
    sib.text = "def f():\n    return\n";
    sib.text_len = strlen(sib.text);
    p.replacement = &sib;
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    p.replacement = &obj_a;
    /* a name_map entry, a description, the target file */
    pg_name_map_entry nm = {"X", "Y"};
    p.name_map = &nm;
    p.name_map_len = 1;
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    p.name_map = NULL;
    p.name_map_len = 0;
    p.description = "other";
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    p.description = "Replace f with f";
    c.target_file = "patched_modeling_y.py";
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_not_equal(k0, k, SHA256_DIGEST_LEN);
    c.target_file = "patched_modeling_x.py";
    regen_cache_key(&c, "x = 1\n", 6, "5.9.0", k);
    assert_memory_equal(k0, k, SHA256_DIGEST_LEN);
    /* pgci's build is part of every key */
    assert_true(!strncmp(rcache_build_id(), "build-id ", 9) ||
                !strncmp(rcache_build_id(), "exe ", 4));
}

static void test_codegen_stored_form(void **state)
{
    (void)state;
    cg_result r;
    memset(&r, 0, sizeof(r));
    strbuf_adds(&r.output, "# header\nclass A:\n    pass");
    r.targets_defined = 3;
    cg_note n1 = {CG_NOTE_MISSING_TARGET, 2, "A.gone", 0, "not upstream\nat all"};
    cg_note n2 = {CG_NOTE_DROPPED_STATEMENT, -1, "if_statement", 36, NULL};
    VEC_PUSH(&r.notes, n1);
    VEC_PUSH(&r.notes, n2);
    strbuf enc = STRBUF_INIT;
    regen_cache_encode(&r, &enc);
    cg_result back;
    memset(&back, 0, sizeof(back));
    assert_int_equal(regen_cache_decode(enc.buf, enc.len, &back), 0);
    assert_string_equal(back.output.buf, r.output.buf);
    assert_int_equal(back.targets_defined, 3);
    assert_int_equal(back.notes.len, 2);
    assert_int_equal(back.notes.items[0].kind, CG_NOTE_MISSING_TARGET);
    assert_int_equal(back.notes.items[0].patch, 2);
    assert_string_equal(back.notes.items[0].target, "A.gone");
    assert_string_equal(back.notes.items[0].detail, "not upstream\nat all");
    assert_int_equal(back.notes.items[1].patch, -1);
    assert_int_equal(back.notes.items[1].line, 36);
    assert_null(back.notes.items[1].detail);
    cg_result_free(&back);
    /* every proper prefix is refused */
    for (size_t cut = 0; cut < enc.len; cut++) {
        memset(&back, 0, sizeof(back));
        assert_int_equal(regen_cache_decode(enc.buf, cut, &back), -1);
        cg_result_free(&back);
    }
    strbuf_free(&enc);
    VEC_FREE(&r.notes);
    strbuf_free(&r.output);
}

/* Findings survive their JSON form (what the names check keeps in the cache),
 * and a malformed form is refused whole. */
static void test_findings_json(void **state)
{
    (void)state;
    findings fs = FINDINGS_INIT, back = FINDINGS_INIT;
    json_t *d = json_object();
    json_object_set_new(d, "name", json_string("Optional"));
    findings_add(&fs, "names", SEV_ERROR, "pkg.cfg", "gen/x.py", 12, 5, d,
                 "undefined name '%s' (F821)", "Optional");
    finding *f = findings_add(&fs, "names", SEV_INFO, NULL, NULL, 0, 0, NULL, "100%% done");
    finding_set_detail(f, "two\nlines");
    json_t *arr = findings_to_json(&fs);
    assert_int_equal(findings_from_json(&back, arr), 0);
    json_t *again = findings_to_json(&back);
    assert_true(json_equal(arr, again));
    assert_int_equal(back.len, 2);
    assert_string_equal(back.items[1]->title, "100% done");
    assert_null(back.items[1]->config);
    json_decref(again);
    /* one bad element: nothing is appended */
    json_object_set_new(json_array_get(arr, 1), "line", json_string("x"));
    assert_int_equal(findings_from_json(&back, arr), -1);
    assert_int_equal(back.len, 2);
    assert_int_equal(findings_from_json(&back, json_object_get(d, "name")), -1);
    json_decref(arr);
    findings_free(&fs);
    findings_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),         cmocka_unit_test(test_corrupt_entries),
        cmocka_unit_test(test_trim_bound),         cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_codegen_key_inputs), cmocka_unit_test(test_codegen_stored_form),
        cmocka_unit_test(test_findings_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
