/*
 * twin.c - the host twins: each kernel's loops written serially around the
 * shared per-element math of kmath.h.
 */
#include "kernels/twin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "kernels/kmath.h"
#include "kernels/kpar.h"
#include "kernels/reference.h"

int kfwd_out_alloc(kfwd_out *out, const toy_config *c, size_t T)
{
    memset(out, 0, sizeof(*out));
    out->T = (int)T;
    out->H = c->hidden;
    out->V = c->vocab;
    out->L = c->layers;
    out->logits = malloc(T * (size_t)c->vocab * sizeof(float));
    out->hidden = malloc((size_t)c->layers * T * (size_t)c->hidden * sizeof(float));
    if (!out->logits || !out->hidden) {
        kfwd_out_free(out);
        return pgci_error_set(PGCI_ELIMIT, "out of memory for the forward pass outputs");
    }
    return 0;
}

void kfwd_out_free(kfwd_out *out)
{
    free(out->logits);
    free(out->hidden);
    memset(out, 0, sizeof(*out));
}

int kbreak_parse(const char *s, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"rmsnorm", KBREAK_RMSNORM}, {"swiglu", KBREAK_SWIGLU},
                 {"rotary", KBREAK_ROTARY},   {"attention", KBREAK_ATTENTION},
                 {"moe", KBREAK_MOE},         {"ce", KBREAK_CE}};
    *mask = 0;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == n && !strncmp(s, names[i].name, n)) {
                *mask |= names[i].bit;
                found = 1;
            }
        if (!found && n)
            return pgci_error_set(PGCI_EUSAGE,
                                  "unknown kernel '%.*s' to break (rmsnorm, swiglu, rotary, "
                                  "attention, moe, ce)",
                                  (int)n, s);
        s += n;
        if (*s == ',')
            s++;
    }
    return 0;
}

void ktwin_rmsnorm(const float *x, size_t rows, int n, const float *w, float eps, int one_plus,
                   int bf16, unsigned brk, float *out)
{
    int form = (brk & KBREAK_RMSNORM) ? !one_plus : one_plus;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * (size_t)n;
        float ss = 0;
        for (int i = 0; i < n; i++)
            ss += xr[i] * xr[i];
        float inv = kmath_rms_inv(ss, n, eps);
        for (int i = 0; i < n; i++)
            out[r * (size_t)n + i] = kmath_rmsnorm_elem(xr[i], inv, w[i], form, bf16);
    }
}

struct linear_job {
    const float *x, *W, *b;
    size_t T;
    int in, out, bf16;
    float *y;
};

static void linear_cols(void *vctx, size_t j0, size_t j1)
{
    const struct linear_job *c = vctx;
    for (size_t j = j0; j < j1; j++) {
        const float *wj = c->W + j * (size_t)c->in;
        for (size_t t = 0; t < c->T; t++) {
            const float *xt = c->x + t * (size_t)c->in;
            float acc = 0;
            for (int k = 0; k < c->in; k++)
                acc += xt[k] * wj[k];
            /* the GEMM epilogue: fp32 accumulator plus bias, stored once */
            c->y[t * (size_t)c->out + j] = kmath_store(c->b ? acc + c->b[j] : acc, c->bf16);
        }
    }
}

void ktwin_linear(const float *x, size_t T, int in, const float *W, const float *b, int out,
                  int bf16, float *y)
{
    struct linear_job c = {x, W, b, T, in, out, bf16, y};
    kpar_for((size_t)out, T * (size_t)in, linear_cols, &c);
}

void ktwin_rope(float *x, size_t T, int heads, int hd, const int *pos, float theta, int bf16,
                unsigned brk)
{
    int half = hd / 2;
    for (size_t t = 0; t < T; t++)
        for (int h = 0; h < heads; h++) {
            float *v = x + (t * (size_t)heads + (size_t)h) * (size_t)hd;
            for (int i = 0; i < half; i++) {
                float ang = kmath_rope_angle(pos[t], i, hd, theta);
                /* the kernel's pairing: (i, i + half), or the broken interleaved one */
                int a = (brk & KBREAK_ROTARY) ? 2 * i : i;
                int b = (brk & KBREAK_ROTARY) ? 2 * i + 1 : i + half;
                float o1, o2;
                kmath_rope_pair(v[a], v[b], cosf(ang), sinf(ang), bf16, &o1, &o2);
                v[a] = o1;
                v[b] = o2;
            }
        }
}

void ktwin_attention(const float *q, const float *k, const float *v, int batch, int seq, int nh,
                     int nkv, int hd, int bf16, unsigned brk, float *out)
{
    int group = nh / nkv;
    float scale = kmath_attn_scale(hd);
    float *p = pgci_malloc((size_t)seq * sizeof(float));
    size_t qs = (size_t)nh * hd, ks = (size_t)nkv * hd;
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < nh; h++)
            for (int i = 0; i < seq; i++) {
                int kh = h / group;
                int last = (brk & KBREAK_ATTENTION) && i + 1 < seq ? i + 1 : i;
                const float *qi = q + ((size_t)b * seq + i) * qs + (size_t)h * hd;
                float mx = -INFINITY, sum = 0;
                for (int j = 0; j <= last; j++) {
                    const float *kj = k + ((size_t)b * seq + j) * ks + (size_t)kh * hd;
                    float dot = 0;
                    for (int d = 0; d < hd; d++)
                        dot += qi[d] * kj[d];
                    p[j] = kmath_attn_score(dot, scale, bf16);
                    mx = fmaxf(mx, p[j]);
                }
                for (int j = 0; j <= last; j++)
                    sum += expf(p[j] - mx);
                for (int j = 0; j <= last; j++)
                    p[j] = kmath_softmax_prob(p[j], mx, sum, bf16);
                float *oi = out + ((size_t)b * seq + i) * qs + (size_t)h * hd;
                for (int d = 0; d < hd; d++) {
                    float acc = 0;
                    for (int j = 0; j <= last; j++)
                        acc += p[j] * v[((size_t)b * seq + j) * ks + (size_t)kh * hd + d];
                    oi[d] = kmath_store(acc, bf16);
                }
            }
    free(p);
}

void ktwin_swiglu(const float *gate, const float *up, size_t rows, int n, int ld, int bf16,
                  unsigned brk, float *out)
{
    for (size_t r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
            float g = gate[r * (size_t)ld + i], u = up[r * (size_t)ld + i];
            out[r * (size_t)n + i] =
                (brk & KBREAK_SWIGLU) ? kmath_swiglu(u, g, bf16) : kmath_swiglu(g, u, bf16);
        }
}

void ktwin_add(float *h, const float *o, size_t n, int bf16)
{
    for (size_t i = 0; i < n; i++)
        h[i] = kmath_add(h[i], o[i], bf16);
}

void ktwin_moe(const float *x, size_t T, const toy_config *c, const model_layer *L, int bf16,
               unsigned brk, float *out)
{
    int E = c->num_experts, K = c->top_k, H = c->hidden, I = c->moe_inter;
    int norm = (brk & KBREAK_MOE) ? !c->norm_topk_prob : c->norm_topk_prob;
    float *logits = pgci_malloc(T * (size_t)E * sizeof(float));
    int *sel = pgci_malloc(T * (size_t)K * sizeof(int));
    float *selw = pgci_malloc(T * (size_t)K * sizeof(float));
    ktwin_linear(x, T, H, L->router_w, NULL, E, bf16, logits);
    for (size_t t = 0; t < T; t++)
        kmath_moe_route(logits + t * (size_t)E, E, K, norm, sel + t * (size_t)K,
                        selw + t * (size_t)K);
    memset(out, 0, T * (size_t)H * sizeof(float));
    /* Per expert: gather its tokens, two GEMMs around SwiGLU, scatter-add. */
    float *xe = pgci_malloc(T * (size_t)H * sizeof(float));
    float *gu = pgci_malloc(T * 2 * (size_t)I * sizeof(float));
    float *act = pgci_malloc(T * (size_t)I * sizeof(float));
    float *y = pgci_malloc(T * (size_t)H * sizeof(float));
    size_t *tok = pgci_malloc(T * sizeof(size_t));
    float *tw = pgci_malloc(T * sizeof(float));
    for (int e = 0; e < E; e++) {
        size_t n = 0;
        for (size_t t = 0; t < T; t++)
            for (int j = 0; j < K; j++)
                if (sel[t * (size_t)K + (size_t)j] == e) {
                    tok[n] = t;
                    tw[n] = selw[t * (size_t)K + (size_t)j];
                    memcpy(xe + n * (size_t)H, x + t * (size_t)H, (size_t)H * sizeof(float));
                    n++;
                }
        if (!n)
            continue;
        ktwin_linear(xe, n, H, L->exp_gate_up + (size_t)e * 2 * (size_t)I * (size_t)H, NULL, 2 * I,
                     bf16, gu);
        ktwin_swiglu(gu, gu + I, n, I, 2 * I, bf16, brk, act);
        ktwin_linear(act, n, I, L->exp_down + (size_t)e * (size_t)H * (size_t)I, NULL, H, bf16, y);
        for (size_t r = 0; r < n; r++)
            for (int h = 0; h < H; h++) {
                float *o = out + tok[r] * (size_t)H + (size_t)h;
                *o = kmath_moe_combine(*o, y[r * (size_t)H + (size_t)h], tw[r], bf16);
            }
    }
    free(logits);
    free(sel);
    free(selw);
    free(xe);
    free(gu);
    free(act);
    free(y);
    free(tok);
    free(tw);
}

double ktwin_fused_ce(const float *x, size_t T, int H, const float *W, int V, const int *labels,
                      int bf16, unsigned brk)
{
    float *m = pgci_malloc((T ? T : 1) * sizeof(float));
    float *s = pgci_calloc(T ? T : 1, sizeof(float));
    float *tgt = pgci_calloc(T ? T : 1, sizeof(float));
    float *z = pgci_malloc((size_t)KMATH_CE_CHUNK * (T ? T : 1) * sizeof(float));
    for (size_t t = 0; t < T; t++)
        m[t] = -INFINITY;
    for (int v0 = 0; v0 < V; v0 += KMATH_CE_CHUNK) {
        int n = V - v0 < KMATH_CE_CHUNK ? V - v0 : KMATH_CE_CHUNK;
        /* one vocabulary chunk of logits for every row: the GEMM of the chunk */
        ktwin_linear(x, T, H, W + (size_t)v0 * (size_t)H, NULL, n, bf16, z);
        for (size_t t = 0; t < T; t++) {
            if (labels[t] < 0)
                continue;
            const float *zt = z + t * (size_t)n;
            float cm = -INFINITY, cs = 0;
            for (int j = 0; j < n; j++)
                cm = fmaxf(cm, zt[j]);
            for (int j = 0; j < n; j++)
                cs += expf(zt[j] - cm);
            kmath_lse_merge(&m[t], &s[t], cm, cs);
            if (labels[t] >= v0 && labels[t] < v0 + n)
                tgt[t] = zt[labels[t] - v0];
        }
    }
    double total = 0;
    size_t count = 0;
    for (size_t t = 0; t < T; t++)
        if (labels[t] >= 0) {
            total += kmath_ce_row(m[t], s[t], tgt[t]);
            count++;
        }
    free(m);
    free(s);
    free(tgt);
    free(z);
    /* the broken variant averages over every row, ignored ones included */
    if (brk & KBREAK_CE)
        count = T;
    return count ? total / (double)count : 0.0;
}

/* One decoder layer on h[T, H], in place: the GPU forward's sequence of kernels. */
static void twin_layer(const model *m, const model_layer *L, float *h, int batch, int seq,
                       const int *pos, int bf16, unsigned brk)
{
    const toy_config *c = &m->cfg;
    size_t T = (size_t)batch * (size_t)seq, H = (size_t)c->hidden;
    int hd = c->head_dim, qd = c->heads * hd, kvd = c->kv_heads * hd;
    float eps = (float)c->rms_eps, theta = (float)c->rope_theta;
    float *x = pgci_malloc(T * H * sizeof(float));
    float *q = pgci_malloc(T * (size_t)qd * sizeof(float));
    float *k = pgci_malloc(T * (size_t)kvd * sizeof(float));
    float *v = pgci_malloc(T * (size_t)kvd * sizeof(float));
    float *a = pgci_malloc(T * (size_t)qd * sizeof(float));
    float *o = pgci_malloc(T * H * sizeof(float));

    ktwin_rmsnorm(h, T, (int)H, L->in_norm, eps, 0, bf16, brk, x);
    ktwin_linear(x, T, (int)H, L->q_w, L->q_b, qd, bf16, q);
    ktwin_linear(x, T, (int)H, L->k_w, L->k_b, kvd, bf16, k);
    ktwin_linear(x, T, (int)H, L->v_w, L->v_b, kvd, bf16, v);
    if (c->qk_norm) {
        ktwin_rmsnorm(q, T * (size_t)c->heads, hd, L->q_norm, eps, 0, bf16, brk, q);
        ktwin_rmsnorm(k, T * (size_t)c->kv_heads, hd, L->k_norm, eps, 0, bf16, brk, k);
    }
    ktwin_rope(q, T, c->heads, hd, pos, theta, bf16, brk);
    ktwin_rope(k, T, c->kv_heads, hd, pos, theta, bf16, brk);
    ktwin_attention(q, k, v, batch, seq, c->heads, c->kv_heads, hd, bf16, brk, a);
    ktwin_linear(a, T, qd, L->o_w, L->o_b, (int)H, bf16, o);
    ktwin_add(h, o, T * H, bf16);

    ktwin_rmsnorm(h, T, (int)H, L->post_norm, eps, 0, bf16, brk, x);
    if (L->is_moe) {
        ktwin_moe(x, T, c, L, bf16, brk, o);
    } else {
        int inter = c->inter;
        float *g = pgci_malloc(T * (size_t)inter * sizeof(float));
        float *u = pgci_malloc(T * (size_t)inter * sizeof(float));
        ktwin_linear(x, T, (int)H, L->gate_w, NULL, inter, bf16, g);
        ktwin_linear(x, T, (int)H, L->up_w, NULL, inter, bf16, u);
        ktwin_swiglu(g, u, T, inter, inter, bf16, brk, g);
        ktwin_linear(g, T, inter, L->down_w, NULL, (int)H, bf16, o);
        free(g);
        free(u);
    }
    ktwin_add(h, o, T * H, bf16);
    free(x);
    free(q);
    free(k);
    free(v);
    free(a);
    free(o);
}

int ktwin_forward(const model *m, const int *ids, int batch, int seq, int bf16, unsigned brk,
                  kfwd_out *out)
{
    const toy_config *c = &m->cfg;
    size_t T = (size_t)batch * (size_t)seq, H = (size_t)c->hidden;
    for (size_t t = 0; t < T; t++)
        if (ids[t] < 0 || ids[t] >= c->vocab)
            return pgci_error_set(PGCI_EINVALID, "token id %d at %zu is outside the vocabulary",
                                  ids[t], t);
    int rc = kfwd_out_alloc(out, c, T);
    if (rc < 0)
        return rc;
    double t0 = now_ms();
    float *h = pgci_malloc(T * H * sizeof(float));
    int *pos = pgci_malloc(T * sizeof(int));
    int *labels = pgci_malloc(T * sizeof(int));
    for (size_t t = 0; t < T; t++) {
        pos[t] = (int)(t % (size_t)seq);
        memcpy(h + t * H, m->embed + (size_t)ids[t] * H, H * sizeof(float));
    }
    for (int l = 0; l < c->layers; l++) {
        twin_layer(m, &m->layers[l], h, batch, seq, pos, bf16, brk);
        memcpy(out->hidden + (size_t)l * T * H, h, T * H * sizeof(float));
    }
    ktwin_rmsnorm(h, T, (int)H, m->final_norm, (float)c->rms_eps, 0, bf16, brk, h);
    ktwin_linear(h, T, (int)H, m->lm_head, NULL, c->vocab, bf16, out->logits);
    kref_labels(ids, batch, seq, labels);
    out->loss = ktwin_fused_ce(h, T, (int)H, m->lm_head, c->vocab, labels, bf16, brk);
    out->ms = now_ms() - t0;
    free(h);
    free(pos);
    free(labels);
    return 0;
}
