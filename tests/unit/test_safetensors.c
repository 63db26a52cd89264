/* Unit tests for kernels/safetensors.c and the model's import/export: a round
 * trip through the writer and reader, and malformed files refused with a clear
 * error (truncated, offsets past the end, overlaps, gaps, wrong dtype or shape). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "kernels/kmath.h"
#include "kernels/model.h"
#include "kernels/safetensors.h"

/* A file from a header text and n data bytes (0x11 each). */
static void make_file(strbuf *out, const char *header, size_t n)
{
    strbuf_reset(out);
    uint64_t hl = strlen(header);
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)(hl >> (8 * i));
    strbuf_add(out, len8, 8);
    strbuf_adds(out, header);
    for (size_t i = 0; i < n; i++)
        strbuf_addc(out, 0x11);
}

static void expect_bad(const char *header, size_t n, const char *needle)
{
    strbuf f = STRBUF_INIT;
    make_file(&f, header, n);
    st_file st;
    int rc = st_parse(&st, f.buf, f.len, "w.safetensors");
    if (rc >= 0 || !strstr(pgci_error_last(), needle))
        fail_msg("header %s: rc %d, message '%s' (want '%s')", header, rc, pgci_error_last(),
                 needle);
    assert_non_null(strstr(pgci_error_last(), "w.safetensors"));
    strbuf_free(&f);
}

static void test_round_trip(void **state)
{
    (void)state;
    float a[6] = {1.5f, -2.25f, 3.0f, 0.0f, 1e-3f, -7.0f};
    uint16_t b[4] = {kmath_bf16_bits(1.0f), kmath_bf16_bits(-0.5f), kmath_bf16_bits(3.25f),
                     kmath_bf16_bits(100.0f)};
    uint16_t h[2] = {0x3c00, 0xc000}; /* f16 1.0 and -2.0 */
    int64_t ids[3] = {5, 0, 123456789012ll};
    st_writer w = ST_WRITER_INIT;
    uint64_t s23[2] = {2, 3}, s4[1] = {4}, s2[1] = {2}, s3[1] = {3};
    st_writer_add(&w, "z.weight", ST_F32, 2, s23, a);
    st_writer_add(&w, "a.bf16", ST_BF16, 1, s4, b);
    st_writer_add(&w, "m.f16", ST_F16, 1, s2, h);
    st_writer_add(&w, "ids", ST_I64, 1, s3, ids);
    strbuf buf = STRBUF_INIT;
    assert_int_equal(st_writer_build(&w, &buf), 0);
    /* data is 8-byte aligned after the padded header */
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--)
        hl = hl << 8 | (unsigned char)buf.buf[i];
    assert_int_equal(hl % 8, 0);
    st_file f;
    assert_int_equal(st_parse(&f, buf.buf, buf.len, "mem"), 0);
    assert_int_equal(f.n, 4);
    const st_tensor *t = st_find(&f, "z.weight");
    assert_non_null(t);
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 3);
    float out[6];
    assert_int_equal(st_read_f32(&f, t, out), 0);
    assert_memory_equal(out, a, sizeof(a));
    assert_int_equal(st_read_f32(&f, st_find(&f, "a.bf16"), out), 0);
    assert_true(out[0] == 1.0f && out[1] == -0.5f && out[2] == 3.25f && out[3] == 100.0f);
    assert_int_equal(st_read_f32(&f, st_find(&f, "m.f16"), out), 0);
    assert_true(out[0] == 1.0f && out[1] == -2.0f);
    t = st_find(&f, "ids");
    assert_int_equal(t->dtype, ST_I64);
    assert_memory_equal(f.data + t->begin, ids, sizeof(ids));
    assert_int_equal(st_read_f32(&f, t, out), PGCI_EINVALID); /* not a float tensor */
    assert_null(st_find(&f, "nope"));
    st_close(&f);
    /* a duplicate name is refused when writing */
    st_writer_add(&w, "ids", ST_I64, 1, s3, ids);
    strbuf_reset(&buf);
    assert_int_equal(st_writer_build(&w, &buf), PGCI_EINVALID);
    st_writer_free(&w);
    strbuf_free(&buf);
}

static void test_malformed(void **state)
{
    (void)state;
    st_file st;
    assert_int_equal(st_parse(&st, "abc", 3, "w.safetensors"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "truncated"));
    /* header length past the end of the file */
    strbuf f = STRBUF_INIT;
    make_file(&f, "{}", 0);
    f.buf[0] = 100;
    assert_int_equal(st_parse(&st, f.buf, f.len, "w.safetensors"), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "truncated header"));
    strbuf_free(&f);
    expect_bad("{\"a\":", 0, "not valid JSON");
    expect_bad("[]", 0, "not a JSON object");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4,
               "past the end of the data");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
               12, "overlaps");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
               12, "gap of 4");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 9,
               "5 bytes after the last tensor");
    expect_bad("{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
               "unsupported dtype 'F8_E4M3'");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "need 12");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, "shape[0]");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,8],"
               "\"data_offsets\":[0,4]}}",
               4, "overflow");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4,
               "end before they begin");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "data_offsets");
    expect_bad("{\"__metadata__\":{\"k\":1}}", 0, "not a string");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
               4, "not valid JSON"); /* duplicate keys */
}

static void seeded(model *m, const char *toy, uint64_t seed)
{
    toy_config c;
    assert_int_equal(toy_config_load(&c, toy), 0);
    assert_int_equal(model_init_seeded(m, &c, seed), 0);
}

static void test_model_export_import(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-st"), 0);
    char *path = pgci_asprintf("%s/w.safetensors", dir.buf);
    const char *toys[] = {"fixtures/toy_config/qwen3_moe_tiny", "fixtures/toy_config/qwen2_tiny"};
    for (int i = 0; i < 2; i++) {
        model a, b;
        seeded(&a, toys[i], 11);
        assert_int_equal(model_export_safetensors(&a, path), 0);
        toy_config c;
        assert_int_equal(toy_config_load(&c, toys[i]), 0);
        if (model_init_safetensors(&b, &c, path) < 0)
            fail_msg("%s", pgci_error_last());
        assert_int_equal(a.n_tensors, b.n_tensors);
        for (size_t k = 0; k < a.n_tensors; k++) {
            assert_string_equal(a.tensors[k].name, b.tensors[k].name);
            assert_memory_equal(a.tensors[k].data, b.tensors[k].data,
                                a.tensors[k].numel * sizeof(float));
        }
        /* tied embeddings: lm_head is the embedding, not a tensor of its own */
        if (a.cfg.tie_embeddings)
            assert_ptr_equal(b.lm_head, b.embed);
        model_free(&a);
        model_free(&b);
    }
    /* the MoE weights in the wrong model: missing tensors are named */
    toy_config c;
    model b;
    model a;
    seeded(&a, "fixtures/toy_config/qwen3_tiny", 1);
    assert_int_equal(model_export_safetensors(&a, path), 0);
    model_free(&a);
    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/llama_tiny"), 0);
    assert_int_equal(model_init_safetensors(&b, &c, path), PGCI_EINVALID);
    assert_non_null(
        strstr(pgci_error_last(), "q_proj.weight' has shape [128, 64], the config needs [64, 64]"));
    /* the same attention with MoE layers: the router is missing */
    const char *moe = "{\"model_type\":\"qwen3_moe\",\"vocab_size\":256,\"hidden_size\":64,"
                      "\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                      "\"num_key_value_heads\":2,\"head_dim\":32,\"num_experts\":4,"
                      "\"num_experts_per_tok\":2,\"moe_intermediate_size\":8,"
                      "\"tie_word_embeddings\":true}";
    assert_int_equal(toy_config_parse(&c, moe, strlen(moe), "moe/config.json"), 0);
    assert_int_equal(model_init_safetensors(&b, &c, path), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "'model.layers.0.mlp.gate.weight' is missing"));

    /* an extra tensor is refused, and so is an integer weight */
    st_writer w = ST_WRITER_INIT;
    float one = 1;
    int32_t i32 = 1;
    uint64_t s1[1] = {1};
    seeded(&a, "fixtures/toy_config/qwen3_tiny", 1);
    for (size_t k = 0; k < a.n_tensors; k++) {
        uint64_t sh[3] = {a.tensors[k].shape[0], a.tensors[k].shape[1], a.tensors[k].shape[2]};
        st_writer_add(&w, a.tensors[k].name, ST_F32, a.tensors[k].ndim, sh, a.tensors[k].data);
    }
    st_writer_add(&w, "model.extra", ST_F32, 1, s1, &one);
    assert_int_equal(st_writer_write(&w, path), 0);
    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/qwen3_tiny"), 0);
    assert_int_equal(model_init_safetensors(&b, &c, path), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "unexpected tensor 'model.extra'"));
    st_writer_free(&w);
    for (size_t k = 0; k < a.n_tensors; k++) {
        uint64_t sh[3] = {a.tensors[k].shape[0], a.tensors[k].shape[1], a.tensors[k].shape[2]};
        if (!strcmp(a.tensors[k].name, "model.norm.weight"))
            st_writer_add(&w, a.tensors[k].name, ST_I32, 1, s1, &i32);
        else
            st_writer_add(&w, a.tensors[k].name, ST_F32, a.tensors[k].ndim, sh, a.tensors[k].data);
    }
    assert_int_equal(st_writer_write(&w, path), 0);
    assert_int_equal(toy_config_load(&c, "fixtures/toy_config/qwen3_tiny"), 0);
    assert_int_equal(model_init_safetensors(&b, &c, path), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "model.norm.weight"));
    st_writer_free(&w);
    model_free(&a);

    /* a truncated file on disk */
    strbuf data = STRBUF_INIT;
    assert_int_equal(fs_read_file(&data, path, 0), 0);
    assert_int_equal(fs_write_atomic(path, data.buf, data.len - 3), 0);
    st_file f;
    assert_int_equal(st_open(&f, path), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), path));
    /* and one that is not there */
    char *missing = pgci_asprintf("%s/none.safetensors", dir.buf);
    assert_int_equal(st_open(&f, missing), PGCI_EIO);
    free(missing);
    strbuf_free(&data);
    fs_remove_tree(dir.buf);
    free(path);
    strbuf_free(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_model_export_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
