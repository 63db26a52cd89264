/*
 * toy.h - HuggingFace config.json files of the decoder families pgci checks.
 *
 * A toy config is an ordinary config.json (as written by transformers) for one of
 * the families below. Only what changes the forward math is read; fields that
 * would change it in ways the kernels do not implement (partial rotary, rope
 * scaling, sliding windows, MLP bias, another activation) are refused with a clear
 * error instead of being ignored.
 */
#ifndef PGCI_KERNELS_TOY_H
#define PGCI_KERNELS_TOY_H

#include <stddef.h>

typedef enum toy_family {
    TOY_LLAMA = 0,     /* llama: optional attention_bias on q/k/v/o */
    TOY_QWEN2 = 1,     /* qwen2: bias on q/k/v, none on o */
    TOY_QWEN3 = 2,     /* qwen3: per-head RMSNorm on q and k */
    TOY_QWEN3_MOE = 3, /* qwen3_moe: qwen3 attention, sparse MoE MLP */
} toy_family;

#define TOY_N_FAMILIES 4

typedef struct toy_config {
    toy_family family;
    char *path; /* the config.json read */
    char *name; /* its directory's base name */
    int vocab, hidden, layers, heads, kv_heads, head_dim, inter;
    double rms_eps, rope_theta, init_range;
    int tie_embeddings;
    int qkv_bias, o_bias; /* bias on q/k/v and on o_proj */
    int qk_norm;          /* per-head RMSNorm on q and k (qwen3) */
    /* MoE (qwen3_moe); num_experts == 0 for dense families. */
    int num_experts, top_k, moe_inter, norm_topk_prob;
    unsigned char *layer_is_moe; /* [layers]: 1 when the layer's MLP is sparse */
} toy_config;

/* The model_type string of a family ("llama", ...). */
const char *toy_family_name(toy_family f);

/* "llama" | "qwen2" | "qwen3" | "qwen3_moe" -> family; -1 when unknown. */
int toy_family_parse(const char *s);

/* Reads a config: `path` is a config.json or a directory holding one. */
int toy_config_load(toy_config *cfg, const char *path);

/* Parses config.json text; `path` names it in errors. */
int toy_config_parse(toy_config *cfg, const char *json_text, size_t len, const char *path);

void toy_config_free(toy_config *cfg);

/* Number of parameters (counting a tied lm_head once). */
size_t toy_config_params(const toy_config *cfg);

#endif
