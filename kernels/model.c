/*
 * model.c - the toy model's tensors: their names and shapes, seeded weights,
 * safetensors import and export.
 */
#include "kernels/model.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "kernels/kmath.h"
#include "kernels/kpar.h"
#include "kernels/krng.h"
#include "kernels/safetensors.h"

/* Norm weights get 1 + N(0, this): far enough from 1 that ignoring them shows. */
#define MODEL_NORM_STD 0.1

enum tensor_kind { TK_MATRIX, TK_BIAS, TK_NORM };

typedef struct tensor_spec {
    char *name;
    int ndim;
    size_t shape[3];
    enum tensor_kind kind;
} tensor_spec;

typedef struct spec_list {
    tensor_spec *items;
    size_t len, cap;
} spec_list;

static void spec_add(spec_list *l, enum tensor_kind kind, int ndim, size_t d0, size_t d1, size_t d2,
                     const char *fmt, int layer)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->items = pgci_realloc(l->items, l->cap * sizeof(*l->items));
    }
    tensor_spec *s = &l->items[l->len++];
    s->name = pgci_asprintf(fmt, layer);
    s->ndim = ndim;
    s->shape[0] = d0;
    s->shape[1] = d1;
    s->shape[2] = d2;
    s->kind = kind;
}

/* Every tensor of a config, in model order. */
static void model_specs(const toy_config *c, spec_list *l)
{
    size_t H = (size_t)c->hidden, hd = (size_t)c->head_dim, V = (size_t)c->vocab;
    size_t q = (size_t)c->heads * hd, kv = (size_t)c->kv_heads * hd;
    spec_add(l, TK_MATRIX, 2, V, H, 0, "model.embed_tokens.weight", 0);
    for (int i = 0; i < c->layers; i++) {
        spec_add(l, TK_NORM, 1, H, 0, 0, "model.layers.%d.input_layernorm.weight", i);
        spec_add(l, TK_MATRIX, 2, q, H, 0, "model.layers.%d.self_attn.q_proj.weight", i);
        spec_add(l, TK_MATRIX, 2, kv, H, 0, "model.layers.%d.self_attn.k_proj.weight", i);
        spec_add(l, TK_MATRIX, 2, kv, H, 0, "model.layers.%d.self_attn.v_proj.weight", i);
        spec_add(l, TK_MATRIX, 2, H, q, 0, "model.layers.%d.self_attn.o_proj.weight", i);
        if (c->qkv_bias) {
            spec_add(l, TK_BIAS, 1, q, 0, 0, "model.layers.%d.self_attn.q_proj.bias", i);
            spec_add(l, TK_BIAS, 1, kv, 0, 0, "model.layers.%d.self_attn.k_proj.bias", i);
            spec_add(l, TK_BIAS, 1, kv, 0, 0, "model.layers.%d.self_attn.v_proj.bias", i);
        }
        if (c->o_bias)
            spec_add(l, TK_BIAS, 1, H, 0, 0, "model.layers.%d.self_attn.o_proj.bias", i);
        if (c->qk_norm) {
            spec_add(l, TK_NORM, 1, hd, 0, 0, "model.layers.%d.self_attn.q_norm.weight", i);
            spec_add(l, TK_NORM, 1, hd, 0, 0, "model.layers.%d.self_attn.k_norm.weight", i);
        }
        spec_add(l, TK_NORM, 1, H, 0, 0, "model.layers.%d.post_attention_layernorm.weight", i);
        if (c->layer_is_moe[i]) {
            size_t E = (size_t)c->num_experts, I = (size_t)c->moe_inter;
            spec_add(l, TK_MATRIX, 2, E, H, 0, "model.layers.%d.mlp.gate.weight", i);
            spec_add(l, TK_MATRIX, 3, E, 2 * I, H, "model.layers.%d.mlp.experts.gate_up_proj", i);
            spec_add(l, TK_MATRIX, 3, E, H, I, "model.layers.%d.mlp.experts.down_proj", i);
        } else {
            size_t I = (size_t)c->inter;
            spec_add(l, TK_MATRIX, 2, I, H, 0, "model.layers.%d.mlp.gate_proj.weight", i);
            spec_add(l, TK_MATRIX, 2, I, H, 0, "model.layers.%d.mlp.up_proj.weight", i);
            spec_add(l, TK_MATRIX, 2, H, I, 0, "model.layers.%d.mlp.down_proj.weight", i);
        }
    }
    spec_add(l, TK_NORM, 1, H, 0, 0, "model.norm.weight", 0);
    if (!c->tie_embeddings)
        spec_add(l, TK_MATRIX, 2, V, H, 0, "lm_head.weight", 0);
}

static void specs_free(spec_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i].name);
    free(l->items);
}

const model_tensor *model_find(const model *m, const char *name)
{
    for (size_t i = 0; i < m->n_tensors; i++)
        if (!strcmp(m->tensors[i].name, name))
            return &m->tensors[i];
    return NULL;
}

static const float *find_data(const model *m, const char *fmt, int layer)
{
    char *name = pgci_asprintf(fmt, layer);
    const model_tensor *t = model_find(m, name);
    free(name);
    return t ? t->data : NULL;
}

/* Points the layer structs at the tensors. */
static void model_bind(model *m)
{
    const toy_config *c = &m->cfg;
    m->embed = find_data(m, "model.embed_tokens.weight", 0);
    m->final_norm = find_data(m, "model.norm.weight", 0);
    m->lm_head = c->tie_embeddings ? m->embed : find_data(m, "lm_head.weight", 0);
    m->layers = pgci_calloc((size_t)c->layers, sizeof(*m->layers));
    for (int i = 0; i < c->layers; i++) {
        model_layer *L = &m->layers[i];
        L->is_moe = c->layer_is_moe[i];
        L->in_norm = find_data(m, "model.layers.%d.input_layernorm.weight", i);
        L->post_norm = find_data(m, "model.layers.%d.post_attention_layernorm.weight", i);
        L->q_w = find_data(m, "model.layers.%d.self_attn.q_proj.weight", i);
        L->k_w = find_data(m, "model.layers.%d.self_attn.k_proj.weight", i);
        L->v_w = find_data(m, "model.layers.%d.self_attn.v_proj.weight", i);
        L->o_w = find_data(m, "model.layers.%d.self_attn.o_proj.weight", i);
        L->q_b = find_data(m, "model.layers.%d.self_attn.q_proj.bias", i);
        L->k_b = find_data(m, "model.layers.%d.self_attn.k_proj.bias", i);
        L->v_b = find_data(m, "model.layers.%d.self_attn.v_proj.bias", i);
        L->o_b = find_data(m, "model.layers.%d.self_attn.o_proj.bias", i);
        L->q_norm = find_data(m, "model.layers.%d.self_attn.q_norm.weight", i);
        L->k_norm = find_data(m, "model.layers.%d.self_attn.k_norm.weight", i);
        L->gate_w = find_data(m, "model.layers.%d.mlp.gate_proj.weight", i);
        L->up_w = find_data(m, "model.layers.%d.mlp.up_proj.weight", i);
        L->down_w = find_data(m, "model.layers.%d.mlp.down_proj.weight", i);
        L->router_w = find_data(m, "model.layers.%d.mlp.gate.weight", i);
        L->exp_gate_up = find_data(m, "model.layers.%d.mlp.experts.gate_up_proj", i);
        L->exp_down = find_data(m, "model.layers.%d.mlp.experts.down_proj", i);
    }
}

/* Toy models are small by definition: a config.json from a pull request must not
 * make pgci allocate (and touch) hundreds of gigabytes. 8G parameters (32 GB in
 * fp32) leaves room for the full-size toys (2.5G at most). */
#define MODEL_MAX_PARAMS 8e9

/* Allocates every tensor of the config (uninitialised data). */
static int model_alloc(model *m, toy_config *cfg, spec_list *specs)
{
    memset(m, 0, sizeof(*m));
    /* counted in double: the product of hostile sizes may not fit in size_t */
    double H = cfg->hidden, hd = cfg->head_dim, q = (double)cfg->heads * hd;
    double kv = (double)cfg->kv_heads * hd, n = 2.0 * cfg->vocab * H;
    for (int l = 0; l < cfg->layers; l++)
        n += H * (q + 2 * kv) + q * H +
             (cfg->layer_is_moe[l] ? (double)cfg->num_experts * (H + 3 * H * cfg->moe_inter)
                                   : 3 * H * cfg->inter);
    if (n > MODEL_MAX_PARAMS) {
        int rc = pgci_error_set(PGCI_ELIMIT,
                                "%s: the model has %.3g parameters, over the %.0e limit for toy "
                                "models",
                                cfg->path, n, MODEL_MAX_PARAMS);
        toy_config_free(cfg);
        return rc;
    }
    m->cfg = *cfg;
    memset(cfg, 0, sizeof(*cfg));
    model_specs(&m->cfg, specs);
    m->tensors = pgci_calloc(specs->len, sizeof(*m->tensors));
    m->n_tensors = specs->len;
    for (size_t i = 0; i < specs->len; i++) {
        model_tensor *t = &m->tensors[i];
        tensor_spec *s = &specs->items[i];
        t->name = pgci_strdup(s->name);
        t->ndim = s->ndim;
        t->numel = 1;
        for (int d = 0; d < s->ndim; d++) {
            t->shape[d] = s->shape[d];
            t->numel *= s->shape[d];
        }
        t->data = malloc(t->numel * sizeof(float));
        if (!t->data) {
            model_free(m);
            return pgci_error_set(PGCI_ELIMIT, "out of memory for tensor %s (%zu elements)",
                                  s->name, t->numel);
        }
    }
    return 0;
}

int model_init_seeded(model *m, toy_config *cfg, uint64_t seed)
{
    spec_list specs = {0};
    int rc = model_alloc(m, cfg, &specs);
    if (rc < 0) {
        specs_free(&specs);
        return rc;
    }
    for (size_t i = 0; i < m->n_tensors; i++) {
        model_tensor *t = &m->tensors[i];
        uint64_t key = krng_key(seed, t->name);
        if (specs.items[i].kind == TK_NORM)
            krng_fill_normal(t->data, t->numel, key, 1.0, MODEL_NORM_STD);
        else
            krng_fill_normal(t->data, t->numel, key, 0.0, m->cfg.init_range);
    }
    specs_free(&specs);
    model_bind(m);
    return 0;
}

static void shape_str(strbuf *sb, int ndim, const uint64_t *shape)
{
    strbuf_addc(sb, '[');
    for (int d = 0; d < ndim; d++)
        strbuf_addf(sb, "%s%llu", d ? ", " : "", (unsigned long long)shape[d]);
    strbuf_addc(sb, ']');
}

int model_init_safetensors(model *m, toy_config *cfg, const char *path)
{
    st_file f;
    int rc = st_open(&f, path);
    if (rc < 0)
        return rc;
    spec_list specs = {0};
    if ((rc = model_alloc(m, cfg, &specs)) < 0) {
        specs_free(&specs);
        st_close(&f);
        return rc;
    }
    for (size_t i = 0; i < m->n_tensors && !rc; i++) {
        model_tensor *t = &m->tensors[i];
        const st_tensor *s = st_find(&f, t->name);
        if (!s) {
            rc =
                pgci_error_set(PGCI_EINVALID, "%s: tensor '%s' is missing (the %s config needs it)",
                               path, t->name, toy_family_name(m->cfg.family));
            break;
        }
        int same = s->ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = s->shape[d] == t->shape[d];
        if (!same) {
            strbuf a = STRBUF_INIT, b = STRBUF_INIT;
            uint64_t want[3] = {t->shape[0], t->shape[1], t->shape[2]};
            shape_str(&a, s->ndim, s->shape);
            shape_str(&b, t->ndim, want);
            rc = pgci_error_set(PGCI_EINVALID, "%s: tensor '%s' has shape %s, the config needs %s",
                                path, t->name, a.buf, b.buf);
            strbuf_free(&a);
            strbuf_free(&b);
            break;
        }
        if (s->dtype != ST_F32 && s->dtype != ST_BF16 && s->dtype != ST_F16) {
            rc = pgci_error_set(PGCI_EINVALID,
                                "%s: tensor '%s' has dtype %s (F32, BF16 or F16 "
                                "expected)",
                                path, t->name, st_dtype_name(s->dtype));
            break;
        }
        rc = st_read_f32(&f, s, t->data);
    }
    for (size_t i = 0; i < f.n && !rc; i++) {
        const char *name = f.tensors[i].name;
        if (model_find(m, name))
            continue;
        if (m->cfg.tie_embeddings && !strcmp(name, "lm_head.weight"))
            continue; /* some exporters write the tied copy; it is not used */
        rc = pgci_error_set(PGCI_EINVALID, "%s: unexpected tensor '%s' (not part of the %s model)",
                            path, name, toy_family_name(m->cfg.family));
    }
    specs_free(&specs);
    st_close(&f);
    if (rc < 0) {
        model_free(m);
        return rc;
    }
    model_bind(m);
    return 0;
}

int model_export_safetensors(const model *m, const char *path)
{
    st_writer w = ST_WRITER_INIT;
    for (size_t i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensors[i];
        uint64_t shape[3] = {t->shape[0], t->shape[1], t->shape[2]};
        st_writer_add(&w, t->name, ST_F32, t->ndim, shape, t->data);
    }
    int rc = st_writer_write(&w, path);
    st_writer_free(&w);
    return rc;
}

static void config_copy(toy_config *dst, const toy_config *src)
{
    *dst = *src;
    dst->path = pgci_strdup(src->path ? src->path : "");
    dst->name = pgci_strdup(src->name ? src->name : "");
    dst->layer_is_moe = pgci_malloc((size_t)src->layers);
    memcpy(dst->layer_is_moe, src->layer_is_moe, (size_t)src->layers);
}

struct round_job {
    const float *in;
    float *out;
};

static void round_range(void *vctx, size_t b, size_t e)
{
    const struct round_job *j = vctx;
    for (size_t k = b; k < e; k++)
        j->out[k] = kmath_bf16_round(j->in[k]);
}

void model_round_bf16(model *dst, const model *src)
{
    memset(dst, 0, sizeof(*dst));
    config_copy(&dst->cfg, &src->cfg);
    dst->n_tensors = src->n_tensors;
    dst->tensors = pgci_calloc(src->n_tensors, sizeof(*dst->tensors));
    for (size_t i = 0; i < src->n_tensors; i++) {
        const model_tensor *s = &src->tensors[i];
        model_tensor *t = &dst->tensors[i];
        *t = *s;
        t->name = pgci_strdup(s->name);
        t->data = pgci_malloc(s->numel * sizeof(float));
        struct round_job j = {s->data, t->data};
        kpar_for(s->numel, 4, round_range, &j);
    }
    model_bind(dst);
}

void model_free(model *m)
{
    for (size_t i = 0; i < m->n_tensors; i++) {
        free(m->tensors[i].name);
        free(m->tensors[i].data);
    }
    free(m->tensors);
    free(m->layers);
    toy_config_free(&m->cfg);
    memset(m, 0, sizeof(*m));
}
