/* Unit tests for kernels/: every host twin against the double reference, op by
 * op and per family (fp32 tight, bf16 within the documented tolerance), bf16
 * rounding, the generator, and the deliberately broken kernel variants being
 * caught by the logits check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks/logits.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "kernels/compare.h"
#include "kernels/kgpu.h"
#include "kernels/kmath.h"
#include "kernels/kpar.h"
#include "kernels/krng.h"
#include "kernels/model.h"
#include "kernels/reference.h"
#include "kernels/twin.h"

#define TOYS "fixtures/toy_config/"
static const char *const fixture_toys[] = {TOYS "llama_tiny", TOYS "llama_tied_bias",
                                           TOYS "qwen2_tiny", TOYS "qwen3_tiny",
                                           TOYS "qwen3_moe_tiny"};
#define N_TOYS (sizeof(fixture_toys) / sizeof(fixture_toys[0]))

/* Random test inputs: x[i] ~ N(0, std), rounded to bf16 when bf16 (so both sides
 * start from the same stored values). */
static void fill(float *f, double *d, size_t n, const char *stream, double std, int bf16)
{
    uint64_t key = krng_key(7, stream);
    for (size_t i = 0; i < n; i++) {
        float v = (float)(std * krng_normal(key, i));
        if (bf16)
            v = kmath_bf16_round(v);
        f[i] = v;
        if (d)
            d[i] = v;
    }
}

static void expect_close(const double *ref, const float *got, size_t n, int bf16, double max_rel)
{
    kcmp_stats st;
    kcmp_tensor(ref, got, n, &st);
    if (st.nonfinite || st.max_rel > max_rel)
        fail_msg("max_rel %.3g (limit %.3g), %zu non-finite", st.max_rel, max_rel, st.nonfinite);
    (void)bf16;
}

/* A twin differs from the reference only by fp32 sum order: 1e-5 relative. In bf16
 * an occasional rounding flips by one bf16 ulp (2^-8 relative). */
#define OP_TOL(bf16) ((bf16) ? 1.0 / 64 : 1e-5)

static void test_bf16_rounding(void **state)
{
    (void)state;
    /* ties go to even, halfway above rounds up, exact values stay */
    assert_true(kmath_bf16_round(kmath_f32_from_bits(0x3f808000u)) == 1.0f);
    assert_true(kmath_bf16_bits(kmath_f32_from_bits(0x3f818000u)) == 0x3f82);
    assert_true(kmath_bf16_bits(kmath_f32_from_bits(0x3f808001u)) == 0x3f81);
    assert_true(kmath_bf16_round(1.5f) == 1.5f);
    assert_true(isinf(kmath_bf16_round(3.4e38f)));
    assert_true(isnan(kmath_bf16_round(NAN)));
    assert_true(kmath_bf16_round(-0.0f) == 0.0f && signbit(kmath_bf16_round(-0.0f)));
    /* the twin's bit trick and the reference's frexp arithmetic agree everywhere */
    uint64_t key = krng_key(1, "bf16");
    for (uint64_t i = 0; i < 200000; i++) {
        uint32_t bits = (uint32_t)krng_below(key, i, 0xffffffffull);
        float f = kmath_f32_from_bits(bits);
        if (isnan(f))
            continue;
        double r = kref_store(f, 1);
        float t = kmath_bf16_round(f);
        if (!(r == t || (isinf(r) && isinf(t))))
            fail_msg("bits %08x: reference %.9g, twin %.9g", bits, r, (double)t);
    }
}

static void test_generator(void **state)
{
    (void)state;
    size_t n = 1u << 21; /* large enough for kpar_for to use threads */
    float *a = malloc(n * sizeof(float));
    uint64_t key = krng_key(42, "model.embed_tokens.weight");
    krng_fill_normal(a, n, key, 0.0, 1.0);
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        /* threads or not, element i is the i-th normal of the stream */
        if (i % 9973 == 0)
            assert_true(a[i] == (float)krng_normal(key, i));
        s += a[i];
        s2 += (double)a[i] * a[i];
    }
    double mean = s / (double)n, var = s2 / (double)n - mean * mean;
    assert_true(fabs(mean) < 0.005);
    assert_true(fabs(var - 1.0) < 0.01);
    assert_true(krng_key(42, "a") != krng_key(42, "b"));
    assert_true(krng_key(42, "a") != krng_key(43, "a"));
    free(a);
}

static void test_op_rmsnorm(void **state)
{
    (void)state;
    size_t rows = 6;
    int n = 96;
    for (int bf16 = 0; bf16 < 2; bf16++)
        for (int one_plus = 0; one_plus < 2; one_plus++) {
            float *x = malloc(rows * n * sizeof(float)), *w = malloc(n * sizeof(float));
            double *xd = malloc(rows * n * sizeof(double)), *rd = malloc(rows * n * sizeof(double));
            float *got = malloc(rows * n * sizeof(float));
            fill(x, xd, rows * n, "x", 3.0, bf16);
            fill(w, NULL, n, "w", 0.5, bf16);
            kref_rmsnorm(xd, rows, n, w, 1e-6, one_plus, bf16, rd);
            ktwin_rmsnorm(x, rows, n, w, 1e-6f, one_plus, bf16, 0, got);
            expect_close(rd, got, rows * n, bf16, OP_TOL(bf16));
            /* the broken variant (the other form) is far off */
            ktwin_rmsnorm(x, rows, n, w, 1e-6f, one_plus, bf16, KBREAK_RMSNORM, got);
            kcmp_stats st;
            kcmp_tensor(rd, got, rows * n, &st);
            assert_true(st.max_rel > 0.1);
            free(x), free(w), free(xd), free(rd), free(got);
        }
}

static void test_op_linear(void **state)
{
    (void)state;
    size_t T = 5;
    int in = 70, out = 33;
    for (int bf16 = 0; bf16 < 2; bf16++) {
        float *x = malloc(T * in * sizeof(float)), *W = malloc(out * in * sizeof(float));
        float *b = malloc(out * sizeof(float)), *got = malloc(T * out * sizeof(float));
        double *xd = malloc(T * in * sizeof(double)), *rd = malloc(T * out * sizeof(double));
        fill(x, xd, T * in, "x", 1.0, bf16);
        fill(W, NULL, out * in, "W", 0.1, bf16);
        fill(b, NULL, out, "b", 0.1, bf16);
        kref_linear(xd, T, in, W, b, out, bf16, rd);
        ktwin_linear(x, T, in, W, b, out, bf16, got);
        expect_close(rd, got, T * out, bf16, OP_TOL(bf16));
        free(x), free(W), free(b), free(got), free(xd), free(rd);
    }
}

static void test_op_rope(void **state)
{
    (void)state;
    size_t T = 12;
    int heads = 3, hd = 32;
    int pos[12];
    for (int i = 0; i < 12; i++)
        pos[i] = i * 37 % 50; /* positions up to 49 */
    size_t n = T * heads * hd;
    for (int bf16 = 0; bf16 < 2; bf16++) {
        float *x = malloc(n * sizeof(float)), *bx = malloc(n * sizeof(float));
        double *xd = malloc(n * sizeof(double));
        fill(x, xd, n, "q", 1.0, bf16);
        memcpy(bx, x, n * sizeof(float));
        kref_rope(xd, T, heads, hd, pos, 10000.0, bf16);
        ktwin_rope(x, T, heads, hd, pos, 10000.0f, bf16, 0);
        /* angles up to 49 rad in fp32 carry ~4e-6 absolute error in cos/sin */
        expect_close(xd, x, n, bf16, bf16 ? OP_TOL(1) : 2e-5);
        ktwin_rope(bx, T, heads, hd, pos, 10000.0f, bf16, KBREAK_ROTARY);
        kcmp_stats st;
        kcmp_tensor(xd, bx, n, &st);
        assert_true(st.max_rel > 0.1);
        free(x), free(bx), free(xd);
    }
}

static void test_op_attention(void **state)
{
    (void)state;
    int batch = 2, seq = 9, nh = 6, nkv = 2, hd = 16;
    size_t T = (size_t)batch * seq, nq = T * nh * hd, nk = T * nkv * hd;
    for (int bf16 = 0; bf16 < 2; bf16++) {
        float *q = malloc(nq * sizeof(float)), *k = malloc(nk * sizeof(float));
        float *v = malloc(nk * sizeof(float)), *got = malloc(nq * sizeof(float));
        double *qd = malloc(nq * sizeof(double)), *kd = malloc(nk * sizeof(double));
        double *vd = malloc(nk * sizeof(double)), *rd = malloc(nq * sizeof(double));
        fill(q, qd, nq, "q", 2.0, bf16);
        fill(k, kd, nk, "k", 2.0, bf16);
        fill(v, vd, nk, "v", 1.0, bf16);
        kref_attention(qd, kd, vd, batch, seq, nh, nkv, hd, bf16, rd);
        ktwin_attention(q, k, v, batch, seq, nh, nkv, hd, bf16, 0, got);
        expect_close(rd, got, nq, bf16, OP_TOL(bf16));
        /* the first query of each sequence sees only itself: output = its v */
        for (int d = 0; d < hd; d++)
            assert_true(fabs(rd[d] - vd[d]) < 1e-12);
        ktwin_attention(q, k, v, batch, seq, nh, nkv, hd, bf16, KBREAK_ATTENTION, got);
        kcmp_stats st;
        kcmp_tensor(rd, got, nq, &st);
        assert_true(st.max_rel > 0.1);
        free(q), free(k), free(v), free(got), free(qd), free(kd), free(vd), free(rd);
    }
}

static void test_op_swiglu(void **state)
{
    (void)state;
    size_t rows = 4;
    int n = 50, ld = 100; /* the fused gate_up layout: gate then up in one row */
    for (int bf16 = 0; bf16 < 2; bf16++) {
        float *gu = malloc(rows * ld * sizeof(float)), *got = malloc(rows * n * sizeof(float));
        double *gud = malloc(rows * ld * sizeof(double)), *rd = malloc(rows * n * sizeof(double));
        fill(gu, gud, rows * ld, "gu", 2.0, bf16);
        kref_swiglu(gud, gud + n, rows, n, ld, bf16, rd);
        ktwin_swiglu(gu, gu + n, rows, n, ld, bf16, 0, got);
        expect_close(rd, got, rows * n, bf16, OP_TOL(bf16));
        ktwin_swiglu(gu, gu + n, rows, n, ld, bf16, KBREAK_SWIGLU, got);
        kcmp_stats st;
        kcmp_tensor(rd, got, rows * n, &st);
        assert_true(st.max_rel > 0.1);
        free(gu), free(got), free(gud), free(rd);
    }
}

static void load_model(model *m, const char *toy)
{
    toy_config cfg;
    if (toy_config_load(&cfg, toy) < 0)
        fail_msg("%s", pgci_error_last());
    assert_int_equal(model_init_seeded(m, &cfg, 3), 0);
}

static void test_op_moe(void **state)
{
    (void)state;
    model m0;
    load_model(&m0, TOYS "qwen3_moe_tiny");
    assert_true(m0.layers[0].is_moe && !m0.layers[1].is_moe && m0.layers[2].is_moe);
    size_t T = 24, H = (size_t)m0.cfg.hidden;
    for (int bf16 = 0; bf16 < 2; bf16++) {
        model mb;
        const model *m = &m0;
        if (bf16) {
            model_round_bf16(&mb, &m0);
            m = &mb;
        }
        float *x = malloc(T * H * sizeof(float)), *got = malloc(T * H * sizeof(float));
        double *xd = malloc(T * H * sizeof(double)), *rd = malloc(T * H * sizeof(double));
        /* large inputs so the router's choices are clear-cut, not near ties */
        fill(x, xd, T * H, "x", 30.0, bf16);
        kref_moe(xd, T, &m->cfg, &m->layers[0], bf16, rd);
        ktwin_moe(x, T, &m->cfg, &m->layers[0], bf16, 0, got);
        expect_close(rd, got, T * H, bf16, OP_TOL(bf16));
        ktwin_moe(x, T, &m->cfg, &m->layers[0], bf16, KBREAK_MOE, got);
        kcmp_stats st;
        kcmp_tensor(rd, got, T * H, &st);
        assert_true(st.max_rel > 0.05);
        free(x), free(got), free(xd), free(rd);
        if (bf16)
            model_free(&mb);
    }
    model_free(&m0);
}

static void test_op_fused_ce(void **state)
{
    (void)state;
    /* a vocabulary over two chunks, so the online merge across chunks runs */
    size_t T = 6;
    int H = 24, V = KMATH_CE_CHUNK + 1000;
    int labels[6] = {3, KMATH_CE_CHUNK + 5, -100, V - 1, 0, KMATH_CE_CHUNK};
    for (int bf16 = 0; bf16 < 2; bf16++) {
        float *x = malloc(T * H * sizeof(float)), *W = malloc((size_t)V * H * sizeof(float));
        double *xd = malloc(T * H * sizeof(double)), *ld = malloc(T * (size_t)V * sizeof(double));
        fill(x, xd, T * H, "x", 1.0, bf16);
        fill(W, NULL, (size_t)V * H, "W", 1.0, bf16);
        kref_linear(xd, T, H, W, NULL, V, bf16, ld);
        double ref = kref_cross_entropy(ld, T, V, labels);
        double got = ktwin_fused_ce(x, T, H, W, V, labels, bf16, 0);
        assert_true(kcmp_loss_rel(ref, got) < (bf16 ? 1e-3 : 1e-6));
        double bad = ktwin_fused_ce(x, T, H, W, V, labels, bf16, KBREAK_CE);
        assert_true(kcmp_loss_rel(ref, bad) > 0.1);
        free(x), free(W), free(xd), free(ld);
    }
}

/* Every family, fp32 and bf16: the whole twin forward pass within tolerance. */
static void test_forward_families(void **state)
{
    (void)state;
    int ids[2 * 11];
    for (size_t i = 0; i < N_TOYS; i++) {
        model m0;
        load_model(&m0, fixture_toys[i]);
        for (int t = 0; t < 22; t++)
            ids[t] = (t * 131 + 7) % m0.cfg.vocab;
        for (int bf16 = 0; bf16 < 2; bf16++) {
            model mb;
            const model *m = &m0;
            if (bf16) {
                model_round_bf16(&mb, &m0);
                m = &mb;
            }
            kref_out ref;
            kfwd_out got;
            assert_int_equal(kref_forward(m, ids, 2, 11, bf16, &ref), 0);
            assert_int_equal(ktwin_forward(m, ids, 2, 11, bf16, 0, &got), 0);
            const kcmp_tol *tol = kcmp_tolerance(bf16);
            kcmp_stats st;
            size_t TH = (size_t)ref.T * ref.H;
            for (int l = 0; l < ref.L; l++) {
                kcmp_tensor(ref.hidden + l * TH, got.hidden + l * TH, TH, &st);
                if (!kcmp_ok(&st, tol))
                    fail_msg("%s %s layer %d: max_rel %.3g", fixture_toys[i],
                             bf16 ? "bf16" : "fp32", l, st.max_rel);
            }
            kcmp_tensor(ref.logits, got.logits, (size_t)ref.T * ref.V, &st);
            if (!kcmp_ok(&st, tol))
                fail_msg("%s %s logits: max_rel %.3g rel_l2 %.3g", fixture_toys[i],
                         bf16 ? "bf16" : "fp32", st.max_rel, st.rel_l2);
            /* the tiny toys are far tighter than the tolerance needs */
            assert_true(st.max_rel < (bf16 ? 1e-2 : 1e-5));
            assert_true(kcmp_loss_rel(ref.loss, got.loss) <= tol->loss_rel);
            assert_true(ref.loss > 4.0 && ref.loss < 7.0); /* ~ln(V) for a random model */
            kref_out_free(&ref);
            kfwd_out_free(&got);
            if (bf16)
                model_free(&mb);
        }
        model_free(&m0);
    }
}

/* Runs the logits check on every fixture with a KBREAK mask and counts rows. */
static void run_check(unsigned brk, int fp32, int bf16, size_t n_status[3], findings *fs)
{
    logits_opts o = {0};
    o.toys = fixture_toys;
    o.n_toys = N_TOYS;
    o.family = -1;
    o.fp32 = fp32;
    o.bf16 = bf16;
    o.device = LOGITS_DEVICE_AUTO;
    o.batch = 2;
    o.seq = 12;
    o.brk = brk;
    logits_report rep = {0};
    if (check_logits(&o, &rep, fs) < 0)
        fail_msg("%s", pgci_error_last());
    n_status[0] = n_status[1] = n_status[2] = 0;
    for (size_t i = 0; i < rep.len; i++)
        n_status[rep.rows[i].status]++;
    logits_report_free(&rep);
}

static void test_check_clean_and_skip(void **state)
{
    (void)state;
    findings fs = FINDINGS_INIT;
    size_t n[3];
    run_check(0, 1, 1, n, &fs);
    int gpu = kgpu_probe(NULL, 0, NULL, 0);
    assert_int_equal(n[LOGITS_FAIL], 0);
    if (gpu) {
        assert_int_equal(n[LOGITS_PASS], 4 * N_TOYS);
    } else {
        /* no GPU: the CPU rows pass, the GPU rows are skipped, never passed */
        assert_int_equal(n[LOGITS_PASS], 2 * N_TOYS);
        assert_int_equal(n[LOGITS_SKIP], 2 * N_TOYS);
        assert_int_equal(findings_count_at_least(&fs, SEV_WARNING), 2 * N_TOYS);
        for (size_t i = 0; i < fs.len; i++)
            if (fs.items[i]->sev == SEV_WARNING)
                assert_non_null(strstr(fs.items[i]->title, "skipped"));
    }
    assert_int_equal(findings_count_at_least(&fs, SEV_ERROR), 0);
    findings_free(&fs);
}

/* Every deliberately wrong kernel is caught at fp32 on every toy that uses it. */
static void test_check_catches_broken_kernels(void **state)
{
    (void)state;
    static const struct {
        unsigned brk;
        size_t toys_using_it;
    } cases[] = {{KBREAK_RMSNORM, N_TOYS},   {KBREAK_SWIGLU, N_TOYS}, {KBREAK_ROTARY, N_TOYS},
                 {KBREAK_ATTENTION, N_TOYS}, {KBREAK_MOE, 1},         {KBREAK_CE, N_TOYS}};
    int gpu = kgpu_probe(NULL, 0, NULL, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        findings fs = FINDINGS_INIT;
        size_t n[3];
        run_check(cases[i].brk, 1, 0, n, &fs);
        size_t devices = gpu ? 2 : 1;
        if (n[LOGITS_FAIL] != cases[i].toys_using_it * devices)
            fail_msg("break mask %#x: %zu failing rows, expected %zu", cases[i].brk, n[LOGITS_FAIL],
                     cases[i].toys_using_it * devices);
        assert_int_equal(findings_count_at_least(&fs, SEV_ERROR), n[LOGITS_FAIL]);
        findings_free(&fs);
    }
    /* the grossest ones are caught in bf16 too */
    unsigned bf16_caught[] = {KBREAK_RMSNORM, KBREAK_ATTENTION};
    for (size_t i = 0; i < 2; i++) {
        findings fs = FINDINGS_INIT;
        size_t n[3];
        run_check(bf16_caught[i], 0, 1, n, &fs);
        assert_int_equal(n[LOGITS_FAIL], N_TOYS * (gpu ? 2 : 1));
        findings_free(&fs);
    }
}

static void test_check_bad_options(void **state)
{
    (void)state;
    logits_opts o = {0};
    o.toys = fixture_toys;
    o.n_toys = 2;
    o.family = -1;
    o.fp32 = 1;
    o.batch = 1;
    o.seq = 4;
    o.export_path = "/tmp/never-written.safetensors";
    logits_report rep = {0};
    findings fs = FINDINGS_INIT;
    assert_int_equal(check_logits(&o, &rep, &fs), PGCI_EUSAGE);
    assert_non_null(strstr(pgci_error_last(), "exactly one --toy"));
    o.export_path = NULL;
    o.seq = 0;
    assert_int_equal(check_logits(&o, &rep, &fs), PGCI_EUSAGE);
    o.seq = 4;
    o.family = TOY_QWEN3_MOE;
    assert_int_equal(check_logits(&o, &rep, &fs), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "qwen3_moe"));
    logits_report_free(&rep);
    findings_free(&fs);

    /* a hostile config cannot make pgci allocate hundreds of gigabytes */
    const char *huge = "{\"model_type\":\"llama\",\"vocab_size\":2000000,\"hidden_size\":32768,"
                       "\"intermediate_size\":4,\"num_hidden_layers\":1,"
                       "\"num_attention_heads\":2,\"head_dim\":64}";
    toy_config c;
    model m;
    assert_int_equal(toy_config_parse(&c, huge, strlen(huge), "huge/config.json"), 0);
    assert_int_equal(model_init_seeded(&m, &c, 0), PGCI_ELIMIT);
    assert_non_null(
        strstr(pgci_error_last(), "huge/config.json: the model has 1.31e+11 parameters"));
    toy_config_free(&c);
}

/* A NaN anywhere fails, even when both sides agree on it. */
static void test_nan_fails(void **state)
{
    (void)state;
    double ref[4] = {1, 2, 3, 4};
    float got[4] = {1, 2, 3, 4};
    kcmp_stats st;
    kcmp_tensor(ref, got, 4, &st);
    assert_true(kcmp_ok(&st, kcmp_tolerance(0)));
    got[2] = NAN;
    kcmp_tensor(ref, got, 4, &st);
    assert_int_equal(st.nonfinite, 1);
    assert_false(kcmp_ok(&st, kcmp_tolerance(1)));
    ref[2] = NAN; /* NaN on both sides is not agreement */
    kcmp_tensor(ref, got, 4, &st);
    assert_false(kcmp_ok(&st, kcmp_tolerance(1)));
    assert_true(isinf(kcmp_loss_rel(NAN, NAN)));

    /* the whole check: a NaN norm weight poisons reference and kernels alike */
    strbuf dir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-nan"), 0);
    char *path = pgci_asprintf("%s/w.safetensors", dir.buf);
    model m;
    load_model(&m, TOYS "qwen3_tiny");
    float *w = (float *)m.layers[1].post_norm;
    w[3] = NAN;
    assert_int_equal(model_export_safetensors(&m, path), 0);
    model_free(&m);
    const char *toy[] = {TOYS "qwen3_tiny"};
    logits_opts o = {0};
    o.toys = toy;
    o.n_toys = 1;
    o.family = -1;
    o.fp32 = o.bf16 = 1;
    o.device = LOGITS_DEVICE_CPU;
    o.batch = 1;
    o.seq = 5;
    o.weights = path;
    logits_report rep = {0};
    findings fs = FINDINGS_INIT;
    assert_int_equal(check_logits(&o, &rep, &fs), 0);
    assert_int_equal(rep.len, 2);
    for (size_t i = 0; i < rep.len; i++) {
        assert_int_equal(rep.rows[i].status, LOGITS_FAIL);
        assert_int_equal(rep.rows[i].first_bad_layer, 1);
        assert_non_null(strstr(rep.rows[i].reason, "NaN"));
    }
    assert_int_equal(findings_count_at_least(&fs, SEV_ERROR), 2);
    logits_report_free(&rep);
    findings_free(&fs);
    fs_remove_tree(dir.buf);
    free(path);
    strbuf_free(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bf16_rounding),
        cmocka_unit_test(test_generator),
        cmocka_unit_test(test_op_rmsnorm),
        cmocka_unit_test(test_op_linear),
        cmocka_unit_test(test_op_rope),
        cmocka_unit_test(test_op_attention),
        cmocka_unit_test(test_op_swiglu),
        cmocka_unit_test(test_op_moe),
        cmocka_unit_test(test_op_fused_ce),
        cmocka_unit_test(test_forward_families),
        cmocka_unit_test(test_check_clean_and_skip),
        cmocka_unit_test(test_check_catches_broken_kernels),
        cmocka_unit_test(test_check_bad_options),
        cmocka_unit_test(test_nan_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
