/*
 * logits.c - the `logits` check (see logits.h).
 */
#include "checks/logits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "kernels/kgpu.h"
#include "kernels/krng.h"
#include "kernels/model.h"
#include "kernels/reference.h"
#include "kernels/safetensors.h"
#include "kernels/twin.h"

static logits_row *row_add(logits_report *rep, const model *m, int bf16, const char *device)
{
    if (rep->len == rep->cap) {
        rep->cap = rep->cap ? 2 * rep->cap : 16;
        rep->rows = pgci_realloc(rep->rows, rep->cap * sizeof(*rep->rows));
    }
    logits_row *r = &rep->rows[rep->len++];
    memset(r, 0, sizeof(*r));
    r->toy = pgci_strdup(m->cfg.name);
    r->family = pgci_strdup(toy_family_name(m->cfg.family));
    r->path = pgci_strdup(m->cfg.path);
    r->bf16 = bf16;
    r->device = device;
    r->first_bad_layer = -1;
    r->layers = m->cfg.layers;
    return r;
}

/* Compares a kernel forward pass with the reference and fills the row. */
static void compare_run(logits_row *r, const kref_out *ref, const kfwd_out *got)
{
    const kcmp_tol *tol = kcmp_tolerance(r->bf16);
    size_t TH = (size_t)ref->T * (size_t)ref->H;
    for (int l = 0; l < ref->L; l++) {
        kcmp_stats st;
        kcmp_tensor(ref->hidden + (size_t)l * TH, got->hidden + (size_t)l * TH, TH, &st);
        if (st.max_rel > r->worst_layer_rel || st.nonfinite)
            r->worst_layer_rel = st.nonfinite ? INFINITY : st.max_rel;
        if (r->first_bad_layer < 0 && !kcmp_ok(&st, tol))
            r->first_bad_layer = l;
    }
    kcmp_tensor(ref->logits, got->logits, (size_t)ref->T * (size_t)ref->V, &r->logits);
    if (r->first_bad_layer < 0 && !kcmp_ok(&r->logits, tol))
        r->first_bad_layer = ref->L;
    r->loss_ref = ref->loss;
    r->loss = got->loss;
    r->loss_rel = kcmp_loss_rel(ref->loss, got->loss);
    r->ms = got->ms;
    strbuf why = STRBUF_INIT;
    if (r->logits.nonfinite)
        strbuf_addf(&why, "%zu NaN/inf logits; ", r->logits.nonfinite);
    if (r->first_bad_layer >= 0 && r->first_bad_layer < ref->L)
        strbuf_addf(&why, "hidden state diverges at layer %d; ", r->first_bad_layer);
    if (r->logits.max_rel > tol->max_rel)
        strbuf_addf(&why, "logits max rel error %.3g > %.3g; ", r->logits.max_rel, tol->max_rel);
    if (r->logits.rel_l2 > tol->rel_l2)
        strbuf_addf(&why, "logits rel_l2 error %.3g > %.3g; ", r->logits.rel_l2, tol->rel_l2);
    if (r->logits.cosine < tol->min_cos)
        strbuf_addf(&why, "logits cosine %.7f < %.7f; ", r->logits.cosine, tol->min_cos);
    if (!(r->loss_rel <= tol->loss_rel))
        strbuf_addf(&why, "fused cross-entropy %.6g vs reference %.6g (rel %.3g > %.3g); ", r->loss,
                    r->loss_ref, r->loss_rel, tol->loss_rel);
    if (why.len) {
        strbuf_setlen(&why, why.len - 2);
        r->status = LOGITS_FAIL;
        r->reason = strbuf_detach(&why, NULL);
    } else {
        r->status = LOGITS_PASS;
    }
    strbuf_free(&why);
}

json_t *logits_row_json(const logits_row *r)
{
    static const char *const st[] = {"pass", "fail", "skipped"};
    const kcmp_tol *tol = kcmp_tolerance(r->bf16);
    json_t *o = json_object();
    json_object_set_new(o, "toy", json_string(r->toy));
    json_object_set_new(o, "family", json_string(r->family));
    json_object_set_new(o, "dtype", json_string(r->bf16 ? "bf16" : "fp32"));
    json_object_set_new(o, "device", json_string(r->device));
    json_object_set_new(o, "status", json_string(st[r->status]));
    /* a skipped comparison is not a passed one */
    json_object_set_new(o, "passed", json_boolean(r->status == LOGITS_PASS));
    if (r->reason)
        json_object_set_new(o, "reason", json_string(r->reason));
    if (r->status != LOGITS_SKIP) {
        /* JSON has no NaN or infinity: non-finite numbers are written as null */
#define NUM(v) (isfinite(v) ? json_real(v) : json_null())
        json_object_set_new(o, "max_abs", NUM(r->logits.max_abs));
        json_object_set_new(o, "max_rel", NUM(r->logits.max_rel));
        json_object_set_new(o, "rel_l2", NUM(r->logits.rel_l2));
        json_object_set_new(o, "cosine", NUM(r->logits.cosine));
        json_object_set_new(o, "nonfinite", json_integer((json_int_t)r->logits.nonfinite));
        json_object_set_new(o, "worst_layer_rel", NUM(r->worst_layer_rel));
        json_object_set_new(o, "first_diverging_layer",
                            r->first_bad_layer < 0 ? json_null()
                                                   : json_integer(r->first_bad_layer));
        json_object_set_new(o, "loss_ref", NUM(r->loss_ref));
        json_object_set_new(o, "loss", NUM(r->loss));
        json_object_set_new(o, "loss_rel", NUM(r->loss_rel));
        json_object_set_new(o, "ms_reference", NUM(r->ms_ref));
        json_object_set_new(o, "ms", NUM(r->ms));
#undef NUM
    }
    json_object_set_new(o, "tolerance",
                        json_pack("{s:f,s:f,s:f,s:f}", "max_rel", tol->max_rel, "rel_l2",
                                  tol->rel_l2, "min_cosine", tol->min_cos, "loss_rel",
                                  tol->loss_rel));
    return o;
}

static void row_finding(const logits_row *r, findings *fs)
{
    const char *dt = r->bf16 ? "bf16" : "fp32";
    json_t *data = logits_row_json(r);
    finding *f;
    if (r->status == LOGITS_PASS) {
        f = findings_add(fs, "logits", SEV_INFO, r->toy, r->path, 0, 0, data,
                         "%s %s %s: logits match the reference (max rel %.2g, cosine %.7f)", r->toy,
                         dt, r->device, r->logits.max_rel, r->logits.cosine);
    } else if (r->status == LOGITS_SKIP) {
        f = findings_add(fs, "logits", SEV_WARNING, r->toy, r->path, 0, 0, data,
                         "%s %s %s: comparison not run (skipped): %s", r->toy, dt, r->device,
                         r->reason);
    } else {
        f = findings_add(fs, "logits", SEV_ERROR, r->toy, r->path, 0, 0, data,
                         "%s %s %s: kernels differ from the reference", r->toy, dt, r->device);
        finding_set_detail(f, r->reason);
    }
    (void)f;
}

/* Input ids of a run: uniform over the vocabulary, from the seed. */
static int *make_ids(uint64_t seed, int vocab, size_t T)
{
    int *ids = pgci_malloc(T * sizeof(int));
    uint64_t key = krng_key(seed, "input_ids");
    for (size_t i = 0; i < T; i++)
        ids[i] = (int)krng_below(key, i, (uint64_t)vocab);
    return ids;
}

/* Writes ids and the reference outputs for the HF parity script. */
static int dump_reference(const char *path, const int *ids, int batch, int seq,
                          const kref_out *refs[2])
{
    st_writer w = ST_WRITER_INIT;
    size_t T = (size_t)batch * (size_t)seq;
    int64_t *ids64 = pgci_malloc(T * sizeof(int64_t));
    for (size_t i = 0; i < T; i++)
        ids64[i] = ids[i];
    uint64_t s2[2] = {(uint64_t)batch, (uint64_t)seq};
    st_writer_add(&w, "input_ids", ST_I64, 2, s2, ids64);
    float *bufs[2][2] = {{NULL, NULL}, {NULL, NULL}};
    double losses[2];
    char *names[2][3] = {{NULL}};
    for (int d = 0; d < 2; d++) {
        const kref_out *r = refs[d];
        if (!r)
            continue;
        const char *dt = d ? "bf16" : "fp32";
        size_t nl = T * (size_t)r->V, nh = (size_t)r->L * T * (size_t)r->H;
        bufs[d][0] = pgci_malloc(nl * sizeof(float));
        bufs[d][1] = pgci_malloc(nh * sizeof(float));
        for (size_t i = 0; i < nl; i++)
            bufs[d][0][i] = (float)r->logits[i];
        for (size_t i = 0; i < nh; i++)
            bufs[d][1][i] = (float)r->hidden[i];
        losses[d] = r->loss;
        names[d][0] = pgci_asprintf("logits.%s", dt);
        names[d][1] = pgci_asprintf("hidden.%s", dt);
        names[d][2] = pgci_asprintf("loss.%s", dt);
        uint64_t s3[3] = {(uint64_t)batch, (uint64_t)seq, (uint64_t)r->V};
        uint64_t s4[4] = {(uint64_t)r->L, (uint64_t)batch, (uint64_t)seq, (uint64_t)r->H};
        uint64_t s1[1] = {1};
        st_writer_add(&w, names[d][0], ST_F32, 3, s3, bufs[d][0]);
        st_writer_add(&w, names[d][1], ST_F32, 4, s4, bufs[d][1]);
        st_writer_add(&w, names[d][2], ST_F64, 1, s1, &losses[d]);
    }
    int rc = st_writer_write(&w, path);
    st_writer_free(&w);
    free(ids64);
    for (int d = 0; d < 2; d++) {
        free(bufs[d][0]);
        free(bufs[d][1]);
        for (int k = 0; k < 3; k++)
            free(names[d][k]);
    }
    return rc;
}

/* Runs one toy at every requested dtype and device. */
static int run_toy(const logits_opts *o, model *master, logits_report *rep, findings *fs,
                   int gpu_ok, const char *gpu_why)
{
    size_t T = (size_t)o->batch * (size_t)o->seq;
    int *ids = make_ids(o->seed, master->cfg.vocab, T);
    kref_out refs[2];
    memset(refs, 0, sizeof(refs));
    int rc = 0;
    for (int bf16 = 0; bf16 < 2 && !rc; bf16++) {
        if (bf16 ? !o->bf16 : !o->fp32)
            continue;
        model rounded;
        const model *m = master;
        if (bf16) {
            model_round_bf16(&rounded, master);
            m = &rounded;
        }
        double t0 = now_ms();
        rc = kref_forward(m, ids, o->batch, o->seq, bf16, &refs[bf16]);
        double ms_ref = now_ms() - t0;
        for (int dev = 0; dev < 2 && !rc; dev++) {
            if (dev == 0 && o->device == LOGITS_DEVICE_CUDA)
                continue;
            if (dev == 1 && o->device == LOGITS_DEVICE_CPU)
                continue;
            logits_row *r = row_add(rep, m, bf16, dev ? "cuda" : "cpu");
            r->ms_ref = ms_ref;
            if (dev == 1 && !gpu_ok) {
                r->status = LOGITS_SKIP;
                r->reason = pgci_strdup(gpu_why);
                row_finding(r, fs);
                continue;
            }
            kfwd_out got;
            rc = dev ? kgpu_forward(m, ids, o->batch, o->seq, bf16, o->brk, &got)
                     : ktwin_forward(m, ids, o->batch, o->seq, bf16, o->brk, &got);
            if (rc < 0) {
                rc = pgci_error_wrap(rc, "%s (%s, %s)", m->cfg.name, bf16 ? "bf16" : "fp32",
                                     dev ? "cuda" : "cpu");
                rep->len--; /* the row never ran */
                free(r->toy), free(r->family), free(r->path);
                break;
            }
            compare_run(r, &refs[bf16], &got);
            row_finding(r, fs);
            kfwd_out_free(&got);
        }
        if (bf16)
            model_free(&rounded);
    }
    if (!rc && o->dump_path) {
        const kref_out *rp[2] = {o->fp32 ? &refs[0] : NULL, o->bf16 ? &refs[1] : NULL};
        rc = dump_reference(o->dump_path, ids, o->batch, o->seq, rp);
    }
    kref_out_free(&refs[0]);
    kref_out_free(&refs[1]);
    free(ids);
    return rc;
}

static int check_opts(const logits_opts *o)
{
    if (o->batch < 1 || o->batch > 64)
        return pgci_error_set(PGCI_EUSAGE, "--batch %d is out of range [1, 64]", o->batch);
    if (o->seq < 1 || o->seq > 2048)
        return pgci_error_set(PGCI_EUSAGE, "--seq %d is out of range [1, 2048]", o->seq);
    if (!o->fp32 && !o->bf16)
        return pgci_error_set(PGCI_EUSAGE, "no dtype selected (fp32, bf16)");
    if ((o->weights || o->export_path || o->dump_path) && o->n_toys != 1)
        return pgci_error_set(PGCI_EUSAGE,
                              "--weights, --export-weights and --dump need exactly one --toy");
    if (!o->n_toys)
        return pgci_error_set(PGCI_EUSAGE, "no toy config given (--toy DIR)");
    return 0;
}

int check_logits(const logits_opts *o, logits_report *rep, findings *fs)
{
    int rc = check_opts(o);
    if (rc < 0)
        return rc;
    char why[1024] = "", name[128] = "";
    int gpu_ok = 0;
    if (o->device != LOGITS_DEVICE_CPU)
        gpu_ok = kgpu_probe(why, sizeof(why), name, sizeof(name));
    snprintf(rep->device_name, sizeof(rep->device_name), "%s", gpu_ok ? name : "");
    if (o->device == LOGITS_DEVICE_CUDA && !gpu_ok)
        return pgci_error_set(PGCI_EUNSUPPORTED, "--device cuda: no usable CUDA device: %s", why);
    size_t ran = 0;
    for (size_t i = 0; i < o->n_toys && !rc; i++) {
        toy_config cfg;
        if ((rc = toy_config_load(&cfg, o->toys[i])) < 0)
            break;
        if (o->family >= 0 && (int)cfg.family != o->family) {
            toy_config_free(&cfg);
            continue;
        }
        model m;
        rc = o->weights ? model_init_safetensors(&m, &cfg, o->weights)
                        : model_init_seeded(&m, &cfg, o->seed);
        if (rc < 0) {
            toy_config_free(&cfg);
            break;
        }
        if (o->export_path && (rc = model_export_safetensors(&m, o->export_path)) < 0) {
            model_free(&m);
            break;
        }
        rc = run_toy(o, &m, rep, fs, gpu_ok, why);
        model_free(&m);
        ran++;
    }
    if (!rc && !ran)
        rc = pgci_error_set(PGCI_ENOTFOUND, "no toy config of family '%s' among the %zu given",
                            toy_family_name((toy_family)o->family), o->n_toys);
    return rc;
}

void logits_report_free(logits_report *rep)
{
    for (size_t i = 0; i < rep->len; i++) {
        free(rep->rows[i].toy);
        free(rep->rows[i].family);
        free(rep->rows[i].path);
        free(rep->rows[i].reason);
    }
    free(rep->rows);
    memset(rep, 0, sizeof(*rep));
}
