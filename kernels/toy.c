/*
 * toy.c - reading config.json for the llama / qwen2 / qwen3 / qwen3_moe families.
 *
 * Defaults follow the transformers configuration classes of each family, so a
 * config that omits a field means what it means to transformers. Everything the
 * kernels do not implement is an error that names the field: a check that
 * silently ran a different model would prove nothing.
 */
#include "kernels/toy.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "kernels/kmath.h"

static const char *const family_names[TOY_N_FAMILIES] = {"llama", "qwen2", "qwen3", "qwen3_moe"};

const char *toy_family_name(toy_family f)
{
    return (unsigned)f < TOY_N_FAMILIES ? family_names[f] : "?";
}

int toy_family_parse(const char *s)
{
    for (int i = 0; i < TOY_N_FAMILIES; i++)
        if (!strcmp(s, family_names[i]))
            return i;
    return -1;
}

/* Reads an integer field in [lo, hi]; `def` < 0 makes it required. */
static int get_int(json_t *root, const char *path, const char *key, long long def, long long lo,
                   long long hi, int *out)
{
    json_t *v = json_object_get(root, key);
    long long x;
    if (!v || json_is_null(v)) {
        if (def < 0)
            return pgci_error_set(PGCI_EINVALID, "%s: required field '%s' is missing", path, key);
        x = def;
    } else if (json_is_integer(v)) {
        x = json_integer_value(v);
    } else {
        return pgci_error_set(PGCI_EINVALID, "%s: field '%s' must be an integer", path, key);
    }
    if (x < lo || x > hi)
        return pgci_error_set(PGCI_EINVALID, "%s: field '%s' = %lld is out of range [%lld, %lld]",
                              path, key, x, lo, hi);
    *out = (int)x;
    return 0;
}

static int get_num(json_t *root, const char *path, const char *key, double def, double lo,
                   double hi, double *out)
{
    json_t *v = json_object_get(root, key);
    double x = def;
    if (v && !json_is_null(v)) {
        if (!json_is_number(v))
            return pgci_error_set(PGCI_EINVALID, "%s: field '%s' must be a number", path, key);
        x = json_number_value(v);
    }
    if (!(x >= lo && x <= hi))
        return pgci_error_set(PGCI_EINVALID, "%s: field '%s' = %g is out of range [%g, %g]", path,
                              key, x, lo, hi);
    *out = x;
    return 0;
}

static int get_bool(json_t *root, const char *path, const char *key, int def, int *out)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) {
        *out = def;
        return 0;
    }
    if (!json_is_boolean(v))
        return pgci_error_set(PGCI_EINVALID, "%s: field '%s' must be true or false", path, key);
    *out = json_is_true(v);
    return 0;
}

/* rope_scaling / rope_parameters: only the default (unscaled) rotary is
 * implemented. Reads rope_theta from rope_parameters when it is there. */
static int read_rope(json_t *root, const char *path, toy_config *cfg)
{
    static const char *const keys[] = {"rope_scaling", "rope_parameters"};
    for (int k = 0; k < 2; k++) {
        json_t *rp = json_object_get(root, keys[k]);
        if (!rp || json_is_null(rp))
            continue;
        if (!json_is_object(rp))
            return pgci_error_set(PGCI_EINVALID, "%s: field '%s' must be an object or null", path,
                                  keys[k]);
        json_t *t = json_object_get(rp, "rope_type");
        if (!t)
            t = json_object_get(rp, "type");
        if (t && (!json_is_string(t) || strcmp(json_string_value(t), "default")))
            return pgci_error_set(PGCI_EUNSUPPORTED,
                                  "%s: %s.rope_type '%s' is not supported (only the default, "
                                  "unscaled rotary embedding is)",
                                  path, keys[k], json_is_string(t) ? json_string_value(t) : "?");
        json_t *prf = json_object_get(rp, "partial_rotary_factor");
        if (prf && json_is_number(prf) && json_number_value(prf) != 1.0)
            return pgci_error_set(PGCI_EUNSUPPORTED,
                                  "%s: %s.partial_rotary_factor = %g: partial rotary is not "
                                  "supported (the fused rotary kernel rotates the full head dim)",
                                  path, keys[k], json_number_value(prf));
        if (json_object_get(rp, "rope_theta") &&
            get_num(rp, path, "rope_theta", 0, 1e-3, 1e12, &cfg->rope_theta) < 0)
            return PGCI_EINVALID;
    }
    json_t *prf = json_object_get(root, "partial_rotary_factor");
    if (prf && !json_is_null(prf) && (!json_is_number(prf) || json_number_value(prf) != 1.0))
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s: partial_rotary_factor = %g: partial rotary is not supported "
                              "(the fused rotary kernel rotates the full head dim)",
                              path, json_is_number(prf) ? json_number_value(prf) : NAN);
    return 0;
}

/* Fields whose non-default values change the math in ways not implemented. */
static int refuse_unsupported(json_t *root, const char *path)
{
    json_t *act = json_object_get(root, "hidden_act");
    if (act && (!json_is_string(act) || strcmp(json_string_value(act), "silu")))
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s: hidden_act '%s' is not supported (only silu)",
                              path, json_is_string(act) ? json_string_value(act) : "?");
    if (json_is_true(json_object_get(root, "mlp_bias")))
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s: mlp_bias = true is not supported", path);
    if (json_is_true(json_object_get(root, "use_sliding_window")))
        return pgci_error_set(PGCI_EUNSUPPORTED,
                              "%s: use_sliding_window = true is not supported (the attention "
                              "kernel is full causal)",
                              path);
    json_t *lt = json_object_get(root, "layer_types");
    size_t i;
    json_t *v;
    json_array_foreach(lt, i, v)
    {
        if (!json_is_string(v) || strcmp(json_string_value(v), "full_attention"))
            return pgci_error_set(PGCI_EUNSUPPORTED,
                                  "%s: layer_types[%zu] = '%s' is not supported (only "
                                  "full_attention)",
                                  path, i, json_is_string(v) ? json_string_value(v) : "?");
    }
    json_t *sh = json_object_get(root, "shared_expert_intermediate_size");
    if (sh && json_is_integer(sh) && json_integer_value(sh) > 0)
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s: shared experts are not supported", path);
    return 0;
}

static int read_moe(json_t *root, const char *path, toy_config *cfg)
{
    int step = 1;
    if (get_int(root, path, "num_experts", 128, 1, KMATH_MAX_EXPERTS, &cfg->num_experts) < 0 ||
        get_int(root, path, "num_experts_per_tok", 8, 1, 64, &cfg->top_k) < 0 ||
        get_int(root, path, "moe_intermediate_size", 768, 1, 1 << 20, &cfg->moe_inter) < 0 ||
        get_bool(root, path, "norm_topk_prob", 0, &cfg->norm_topk_prob) < 0 ||
        get_int(root, path, "decoder_sparse_step", 1, 1, 1 << 20, &step) < 0)
        return PGCI_EINVALID;
    if (cfg->top_k > cfg->num_experts)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: num_experts_per_tok (%d) is larger than num_experts (%d)", path,
                              cfg->top_k, cfg->num_experts);
    for (int l = 0; l < cfg->layers; l++)
        cfg->layer_is_moe[l] = (l + 1) % step == 0;
    json_t *only = json_object_get(root, "mlp_only_layers");
    if (only && !json_is_null(only) && !json_is_array(only))
        return pgci_error_set(PGCI_EINVALID, "%s: mlp_only_layers must be a list", path);
    size_t i;
    json_t *v;
    json_array_foreach(only, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= cfg->layers)
            return pgci_error_set(PGCI_EINVALID, "%s: mlp_only_layers[%zu] is not a layer index",
                                  path, i);
        cfg->layer_is_moe[json_integer_value(v)] = 0;
    }
    return 0;
}

int toy_config_parse(toy_config *cfg, const char *json_text, size_t len, const char *path)
{
    memset(cfg, 0, sizeof(*cfg));
    json_error_t jerr;
    json_t *root = json_loadb(json_text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return pgci_error_set(PGCI_EINVALID, "%s:%d: invalid JSON: %s", path, jerr.line, jerr.text);
    int rc = PGCI_EINVALID;
    if (!json_is_object(root)) {
        pgci_error_set(PGCI_EINVALID, "%s: a config must be a JSON object", path);
        goto out;
    }
    json_t *mt = json_object_get(root, "model_type");
    if (!json_is_string(mt)) {
        pgci_error_set(PGCI_EINVALID, "%s: 'model_type' is missing", path);
        goto out;
    }
    int fam = toy_family_parse(json_string_value(mt));
    if (fam < 0) {
        rc = pgci_error_set(PGCI_EUNSUPPORTED,
                            "%s: model_type '%s' is not supported (llama, qwen2, qwen3, "
                            "qwen3_moe are)",
                            path, json_string_value(mt));
        goto out;
    }
    cfg->family = (toy_family)fam;
    cfg->path = pgci_strdup(path);
    char *dir = fs_dirname(path);
    const char *base = strrchr(dir, '/');
    cfg->name = pgci_strdup(base ? base + 1 : dir);
    free(dir);

    if (refuse_unsupported(root, path) < 0) {
        rc = pgci_error_code();
        goto out;
    }
    int moe = cfg->family == TOY_QWEN3_MOE;
    if (get_int(root, path, "vocab_size", -1, 2, 1 << 21, &cfg->vocab) < 0 ||
        get_int(root, path, "hidden_size", -1, 2, 1 << 15, &cfg->hidden) < 0 ||
        get_int(root, path, "num_hidden_layers", -1, 1, 512, &cfg->layers) < 0 ||
        get_int(root, path, "num_attention_heads", -1, 1, 1024, &cfg->heads) < 0 ||
        get_int(root, path, "num_key_value_heads", cfg->heads, 1, 1024, &cfg->kv_heads) < 0 ||
        get_int(root, path, "intermediate_size", moe ? 6144 : -1, 1, 1 << 20, &cfg->inter) < 0)
        goto out;
    int hd_def = cfg->family == TOY_QWEN3 ? 128 : cfg->hidden / cfg->heads;
    if (get_int(root, path, "head_dim", hd_def, 2, 1024, &cfg->head_dim) < 0)
        goto out;
    if (cfg->head_dim % 2) {
        pgci_error_set(PGCI_EINVALID, "%s: head_dim %d must be even for rotary", path,
                       cfg->head_dim);
        goto out;
    }
    if (cfg->heads % cfg->kv_heads) {
        pgci_error_set(PGCI_EINVALID,
                       "%s: num_attention_heads (%d) is not a multiple of num_key_value_heads "
                       "(%d)",
                       path, cfg->heads, cfg->kv_heads);
        goto out;
    }
    cfg->rope_theta = 10000.0;
    if (get_num(root, path, "rms_norm_eps", 1e-6, 0, 1, &cfg->rms_eps) < 0 ||
        get_num(root, path, "rope_theta", 10000.0, 1e-3, 1e12, &cfg->rope_theta) < 0 ||
        get_num(root, path, "initializer_range", 0.02, 0, 10, &cfg->init_range) < 0 ||
        get_bool(root, path, "tie_word_embeddings", 0, &cfg->tie_embeddings) < 0)
        goto out;
    if (read_rope(root, path, cfg) < 0) {
        rc = pgci_error_code();
        goto out;
    }
    int attn_bias = 0;
    if (get_bool(root, path, "attention_bias", 0, &attn_bias) < 0)
        goto out;
    cfg->qkv_bias = cfg->family == TOY_QWEN2 ? 1 : attn_bias;
    cfg->o_bias = cfg->family == TOY_QWEN2 ? 0 : attn_bias;
    cfg->qk_norm = cfg->family == TOY_QWEN3 || cfg->family == TOY_QWEN3_MOE;
    cfg->layer_is_moe = pgci_calloc((size_t)cfg->layers, 1);
    if (moe && read_moe(root, path, cfg) < 0)
        goto out;
    rc = 0;
out:
    json_decref(root);
    if (rc < 0)
        toy_config_free(cfg);
    return rc;
}

int toy_config_load(toy_config *cfg, const char *path)
{
    strbuf file = STRBUF_INIT, text = STRBUF_INIT;
    if (fs_is_dir(path))
        fs_join(&file, path, "config.json");
    else
        strbuf_adds(&file, path);
    int rc = fs_read_file(&text, file.buf, 16u << 20);
    if (rc < 0)
        rc = pgci_error_wrap(rc, "cannot read toy config");
    else
        rc = toy_config_parse(cfg, text.buf, text.len, file.buf);
    strbuf_free(&file);
    strbuf_free(&text);
    return rc;
}

void toy_config_free(toy_config *cfg)
{
    free(cfg->path);
    free(cfg->name);
    free(cfg->layer_is_moe);
    memset(cfg, 0, sizeof(*cfg));
}

size_t toy_config_params(const toy_config *c)
{
    size_t H = (size_t)c->hidden, hd = (size_t)c->head_dim;
    size_t q = (size_t)c->heads * hd, kv = (size_t)c->kv_heads * hd;
    size_t n = (size_t)c->vocab * H * (c->tie_embeddings ? 1 : 2) + H;
    for (int l = 0; l < c->layers; l++) {
        n += 2 * H + H * (q + 2 * kv) + q * H;
        if (c->qkv_bias)
            n += q + 2 * kv;
        if (c->o_bias)
            n += H;
        if (c->qk_norm)
            n += 2 * hd;
        if (c->layer_is_moe[l])
            n += (size_t)c->num_experts * (H + 3 * H * (size_t)c->moe_inter);
        else
            n += 3 * H * (size_t)c->inter;
    }
    return n;
}
