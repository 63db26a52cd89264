/*
 * reference.c - the reference forward pass, in double, in HF eager order.
 *
 * Written for obviousness, not speed: loops over tokens, features and keys in the
 * order the math is written. Only the matrix products are spread over threads
 * (kpar.h), one output element per thread, so results do not depend on threads.
 */
#include "kernels/reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "kernels/kpar.h"

double kref_store(double x, int bf16)
{
    if (!bf16 || x == 0 || !isfinite(x))
        return x;
    /* bf16 keeps 8 significant bits; its smallest spacing (subnormals) is 2^-133. */
    int e;
    frexp(x, &e);
    double ulp = ldexp(1.0, e - 8 < -133 ? -133 : e - 8);
    double r = nearbyint(x / ulp) * ulp; /* the default rounding mode: ties to even */
    if (fabs(r) > 0x1.fep127)            /* past the largest finite bf16: overflow */
        return r > 0 ? INFINITY : -INFINITY;
    return r;
}

void kref_rmsnorm(const double *x, size_t rows, int n, const float *w, double eps, int one_plus,
                  int bf16, double *out)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * (size_t)n;
        double ss = 0;
        for (int i = 0; i < n; i++)
            ss += xr[i] * xr[i];
        double inv = 1.0 / sqrt(ss / n + eps);
        for (int i = 0; i < n; i++) {
            if (one_plus)
                out[r * (size_t)n + i] = kref_store(xr[i] * inv * (1.0 + w[i]), bf16);
            else
                out[r * (size_t)n + i] = kref_store(kref_store(xr[i] * inv, bf16) * w[i], bf16);
        }
    }
}

struct linear_job {
    const double *x;
    size_t T;
    int in, out, bf16;
    const float *W, *b;
    double *y;
};

static void linear_rows(void *vctx, size_t j0, size_t j1)
{
    const struct linear_job *c = vctx;
    for (size_t j = j0; j < j1; j++) {
        const float *wj = c->W + j * (size_t)c->in;
        for (size_t t = 0; t < c->T; t++) {
            const double *xt = c->x + t * (size_t)c->in;
            double acc = 0;
            for (int k = 0; k < c->in; k++)
                acc += xt[k] * wj[k];
            if (c->b)
                acc += c->b[j];
            c->y[t * (size_t)c->out + j] = kref_store(acc, c->bf16);
        }
    }
}

void kref_linear(const double *x, size_t T, int in, const float *W, const float *b, int out,
                 int bf16, double *y)
{
    struct linear_job c = {x, T, in, out, bf16, W, b, y};
    kpar_for((size_t)out, T * (size_t)in, linear_rows, &c);
}

void kref_rope(double *x, size_t T, int heads, int hd, const int *pos, double theta, int bf16)
{
    int half = hd / 2;
    for (size_t t = 0; t < T; t++)
        for (int h = 0; h < heads; h++) {
            double *v = x + (t * (size_t)heads + (size_t)h) * (size_t)hd;
            for (int i = 0; i < half; i++) {
                double inv_freq = 1.0 / pow(theta, (double)(2 * i) / hd);
                double ang = pos[t] * inv_freq;
                double c = kref_store(cos(ang), bf16), s = kref_store(sin(ang), bf16);
                double a = v[i], b = v[i + half];
                /* q * cos + rotate_half(q) * sin, rotate_half(q) = cat(-q2, q1) */
                v[i] = kref_store(kref_store(a * c, bf16) + kref_store(-b * s, bf16), bf16);
                v[i + half] = kref_store(kref_store(b * c, bf16) + kref_store(a * s, bf16), bf16);
            }
        }
}

void kref_attention(const double *q, const double *k, const double *v, int batch, int seq, int nh,
                    int nkv, int hd, int bf16, double *out)
{
    int group = nh / nkv;
    double scale = 1.0 / sqrt((double)hd);
    double *p = pgci_malloc((size_t)seq * sizeof(double));
    size_t qs = (size_t)nh * hd, ks = (size_t)nkv * hd;
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < nh; h++) {
            int kh = h / group; /* repeat_kv: query head h reads kv head h / group */
            for (int i = 0; i < seq; i++) {
                const double *qi = q + ((size_t)b * seq + i) * qs + (size_t)h * hd;
                double mx = -INFINITY;
                for (int j = 0; j <= i; j++) {
                    const double *kj = k + ((size_t)b * seq + j) * ks + (size_t)kh * hd;
                    double dot = 0;
                    for (int d = 0; d < hd; d++)
                        dot += qi[d] * kj[d];
                    p[j] = kref_store(kref_store(dot, bf16) * scale, bf16);
                    if (p[j] > mx)
                        mx = p[j];
                }
                double sum = 0;
                for (int j = 0; j <= i; j++)
                    sum += exp(p[j] - mx);
                for (int j = 0; j <= i; j++)
                    p[j] = kref_store(exp(p[j] - mx) / sum, bf16);
                double *oi = out + ((size_t)b * seq + i) * qs + (size_t)h * hd;
                for (int d = 0; d < hd; d++) {
                    double acc = 0;
                    for (int j = 0; j <= i; j++)
                        acc += p[j] * v[((size_t)b * seq + j) * ks + (size_t)kh * hd + d];
                    oi[d] = kref_store(acc, bf16);
                }
            }
        }
    free(p);
}

void kref_swiglu(const double *gate, const double *up, size_t rows, int n, int ld, int bf16,
                 double *out)
{
    for (size_t r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
            double g = gate[r * (size_t)ld + i], u = up[r * (size_t)ld + i];
            double act = kref_store(g / (1.0 + exp(-g)), bf16);
            out[r * (size_t)n + i] = kref_store(act * u, bf16);
        }
}

void kref_moe(const double *x, size_t T, const toy_config *c, const model_layer *L, int bf16,
              double *out)
{
    int E = c->num_experts, K = c->top_k, H = c->hidden, I = c->moe_inter;
    double *logits = pgci_malloc(T * (size_t)E * sizeof(double));
    int *sel = pgci_malloc(T * (size_t)K * sizeof(int));
    double *selw = pgci_malloc(T * (size_t)K * sizeof(double));
    kref_linear(x, T, H, L->router_w, NULL, E, bf16, logits);
    double *prob = pgci_malloc((size_t)E * sizeof(double));
    for (size_t t = 0; t < T; t++) {
        /* softmax in float32 (here: double), top-k, optional renormalisation */
        const double *lt = logits + t * (size_t)E;
        double mx = -INFINITY, sum = 0;
        for (int e = 0; e < E; e++)
            mx = lt[e] > mx ? lt[e] : mx;
        for (int e = 0; e < E; e++)
            sum += (prob[e] = exp(lt[e] - mx));
        double picked = 0;
        for (int j = 0; j < K; j++) {
            int best = -1;
            for (int e = 0; e < E; e++) {
                int used = 0;
                for (int u = 0; u < j; u++)
                    used |= sel[t * (size_t)K + (size_t)u] == e;
                if (!used && (best < 0 || prob[e] > prob[best]))
                    best = e;
            }
            sel[t * (size_t)K + (size_t)j] = best;
            selw[t * (size_t)K + (size_t)j] = prob[best] / sum;
            picked += prob[best] / sum;
        }
        if (c->norm_topk_prob)
            for (int j = 0; j < K; j++)
                selw[t * (size_t)K + (size_t)j] /= picked;
    }
    memset(out, 0, T * (size_t)H * sizeof(double));
    double *gu = pgci_malloc(2 * (size_t)I * sizeof(double));
    double *act = pgci_malloc((size_t)I * sizeof(double));
    double *y = pgci_malloc((size_t)H * sizeof(double));
    /* Experts in ascending order, tokens in ascending order within an expert: the
     * order in which HF's index_add_ accumulates into the bf16 output. */
    for (int e = 0; e < E; e++)
        for (size_t t = 0; t < T; t++)
            for (int j = 0; j < K; j++) {
                if (sel[t * (size_t)K + (size_t)j] != e)
                    continue;
                const float *Wgu = L->exp_gate_up + (size_t)e * 2 * (size_t)I * (size_t)H;
                const float *Wd = L->exp_down + (size_t)e * (size_t)H * (size_t)I;
                kref_linear(x + t * (size_t)H, 1, H, Wgu, NULL, 2 * I, bf16, gu);
                kref_swiglu(gu, gu + I, 1, I, 2 * I, bf16, act);
                kref_linear(act, 1, I, Wd, NULL, H, bf16, y);
                double w = selw[t * (size_t)K + (size_t)j];
                for (int h = 0; h < H; h++) {
                    double *o = out + t * (size_t)H + (size_t)h;
                    *o = kref_store(*o + kref_store(y[h] * w, bf16), bf16);
                }
            }
    free(logits);
    free(sel);
    free(selw);
    free(prob);
    free(gu);
    free(act);
    free(y);
}

double kref_cross_entropy(const double *logits, size_t T, int V, const int *labels)
{
    double total = 0;
    size_t n = 0;
    for (size_t t = 0; t < T; t++) {
        if (labels[t] < 0)
            continue;
        const double *lt = logits + t * (size_t)V;
        double mx = -INFINITY, sum = 0;
        for (int i = 0; i < V; i++)
            mx = lt[i] > mx ? lt[i] : mx;
        for (int i = 0; i < V; i++)
            sum += exp(lt[i] - mx);
        total += mx + log(sum) - lt[labels[t]];
        n++;
    }
    return n ? total / (double)n : 0.0;
}

void kref_labels(const int *ids, int batch, int seq, int *labels)
{
    for (int b = 0; b < batch; b++)
        for (int s = 0; s < seq; s++)
            labels[b * seq + s] = s + 1 < seq ? ids[b * seq + s + 1] : -100;
}

/* One decoder layer on the residual stream h[T, H], in place. */
static void ref_layer(const model *m, const model_layer *L, double *h, int batch, int seq,
                      const int *pos, int bf16)
{
    const toy_config *c = &m->cfg;
    size_t T = (size_t)batch * (size_t)seq, H = (size_t)c->hidden;
    int hd = c->head_dim, qd = c->heads * hd, kvd = c->kv_heads * hd;
    int inter = L->is_moe ? c->moe_inter : c->inter;
    double *x = pgci_malloc(T * H * sizeof(double));
    double *q = pgci_malloc(T * (size_t)qd * sizeof(double));
    double *k = pgci_malloc(T * (size_t)kvd * sizeof(double));
    double *v = pgci_malloc(T * (size_t)kvd * sizeof(double));
    double *a = pgci_malloc(T * (size_t)qd * sizeof(double));
    double *o = pgci_malloc(T * H * sizeof(double));

    kref_rmsnorm(h, T, (int)H, L->in_norm, c->rms_eps, 0, bf16, x);
    kref_linear(x, T, (int)H, L->q_w, L->q_b, qd, bf16, q);
    kref_linear(x, T, (int)H, L->k_w, L->k_b, kvd, bf16, k);
    kref_linear(x, T, (int)H, L->v_w, L->v_b, kvd, bf16, v);
    if (c->qk_norm) { /* Qwen3: RMSNorm over each head's vector, before rotary */
        kref_rmsnorm(q, T * (size_t)c->heads, hd, L->q_norm, c->rms_eps, 0, bf16, q);
        kref_rmsnorm(k, T * (size_t)c->kv_heads, hd, L->k_norm, c->rms_eps, 0, bf16, k);
    }
    kref_rope(q, T, c->heads, hd, pos, c->rope_theta, bf16);
    kref_rope(k, T, c->kv_heads, hd, pos, c->rope_theta, bf16);
    kref_attention(q, k, v, batch, seq, c->heads, c->kv_heads, hd, bf16, a);
    kref_linear(a, T, qd, L->o_w, L->o_b, (int)H, bf16, o);
    for (size_t i = 0; i < T * H; i++)
        h[i] = kref_store(h[i] + o[i], bf16);

    kref_rmsnorm(h, T, (int)H, L->post_norm, c->rms_eps, 0, bf16, x);
    if (L->is_moe) {
        kref_moe(x, T, c, L, bf16, o);
    } else {
        double *g = pgci_malloc(T * (size_t)inter * sizeof(double));
        double *u = pgci_malloc(T * (size_t)inter * sizeof(double));
        kref_linear(x, T, (int)H, L->gate_w, NULL, inter, bf16, g);
        kref_linear(x, T, (int)H, L->up_w, NULL, inter, bf16, u);
        kref_swiglu(g, u, T, inter, inter, bf16, g);
        kref_linear(g, T, inter, L->down_w, NULL, (int)H, bf16, o);
        free(g);
        free(u);
    }
    for (size_t i = 0; i < T * H; i++)
        h[i] = kref_store(h[i] + o[i], bf16);
    free(x);
    free(q);
    free(k);
    free(v);
    free(a);
    free(o);
}

int kref_forward(const model *m, const int *ids, int batch, int seq, int bf16, kref_out *out)
{
    const toy_config *c = &m->cfg;
    memset(out, 0, sizeof(*out));
    size_t T = (size_t)batch * (size_t)seq, H = (size_t)c->hidden, V = (size_t)c->vocab;
    for (size_t t = 0; t < T; t++)
        if (ids[t] < 0 || ids[t] >= c->vocab)
            return pgci_error_set(PGCI_EINVALID, "token id %d at %zu is outside the vocabulary",
                                  ids[t], t);
    out->T = (int)T;
    out->H = (int)H;
    out->V = (int)V;
    out->L = c->layers;
    out->logits = malloc(T * V * sizeof(double));
    out->hidden = malloc((size_t)c->layers * T * H * sizeof(double));
    double *h = malloc(T * H * sizeof(double));
    int *pos = malloc(T * sizeof(int));
    int *labels = malloc(T * sizeof(int));
    if (!out->logits || !out->hidden || !h || !pos || !labels) {
        free(h);
        free(pos);
        free(labels);
        kref_out_free(out);
        return pgci_error_set(PGCI_ELIMIT, "out of memory for the reference forward pass");
    }
    for (size_t t = 0; t < T; t++) {
        pos[t] = (int)(t % (size_t)seq);
        for (size_t i = 0; i < H; i++)
            h[t * H + i] = m->embed[(size_t)ids[t] * H + i];
    }
    for (int l = 0; l < c->layers; l++) {
        ref_layer(m, &m->layers[l], h, batch, seq, pos, bf16);
        memcpy(out->hidden + (size_t)l * T * H, h, T * H * sizeof(double));
    }
    kref_rmsnorm(h, T, (int)H, m->final_norm, c->rms_eps, 0, bf16, h);
    kref_linear(h, T, (int)H, m->lm_head, NULL, (int)V, bf16, out->logits);
    kref_labels(ids, batch, seq, labels);
    out->loss = kref_cross_entropy(out->logits, T, (int)V, labels);
    free(h);
    free(pos);
    free(labels);
    return 0;
}

void kref_out_free(kref_out *out)
{
    free(out->logits);
    free(out->hidden);
    memset(out, 0, sizeof(*out));
}
