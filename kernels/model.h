/*
 * model.h - a toy model's weights: named tensors in HuggingFace's layout and names.
 *
 * Every tensor is held in fp32 (the master copy). A bf16 run uses the same values
 * rounded to bf16, so the fp32 and bf16 runs of one seed see the same model, and a
 * file exported once serves both. Names and shapes are those of transformers
 * (v5 layout for MoE experts):
 *
 *   model.embed_tokens.weight                      [V, H]
 *   model.layers.N.input_layernorm.weight          [H]
 *   model.layers.N.self_attn.{q,k,v}_proj.weight   [heads*hd | kv*hd, H]  (+ .bias)
 *   model.layers.N.self_attn.o_proj.weight         [H, heads*hd]          (+ .bias)
 *   model.layers.N.self_attn.{q,k}_norm.weight     [hd]                   (qwen3)
 *   model.layers.N.post_attention_layernorm.weight [H]
 *   model.layers.N.mlp.{gate,up}_proj.weight       [I, H]; down_proj [H, I]
 *   model.layers.N.mlp.gate.weight                 [E, H]                 (MoE router)
 *   model.layers.N.mlp.experts.gate_up_proj        [E, 2*Im, H]  gate rows first
 *   model.layers.N.mlp.experts.down_proj           [E, H, Im]
 *   model.norm.weight                              [H]
 *   lm_head.weight                                 [V, H]   (absent when tied)
 */
#ifndef PGCI_KERNELS_MODEL_H
#define PGCI_KERNELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/toy.h"

typedef struct model_tensor {
    char *name;
    int ndim;
    size_t shape[3];
    size_t numel;
    float *data;
} model_tensor;

typedef struct model_layer {
    const float *in_norm, *post_norm;
    const float *q_w, *k_w, *v_w, *o_w;
    const float *q_b, *k_b, *v_b, *o_b;             /* NULL when absent */
    const float *q_norm, *k_norm;                   /* NULL when absent */
    const float *gate_w, *up_w, *down_w;            /* dense MLP */
    const float *router_w, *exp_gate_up, *exp_down; /* MoE */
    int is_moe;
} model_layer;

typedef struct model {
    toy_config cfg; /* owned */
    model_tensor *tensors;
    size_t n_tensors;
    const float *embed, *final_norm, *lm_head; /* lm_head == embed when tied */
    model_layer *layers;
} model;

/* Builds a model with every weight drawn from `seed` (see krng.h): matrices and
 * embeddings normal(0, initializer_range); biases normal(0, initializer_range);
 * RMSNorm weights 1 + normal(0, 0.1) so that a kernel ignoring the weight, or
 * using the `1 + weight` form by mistake, is visible. Takes ownership of cfg. */
int model_init_seeded(model *m, toy_config *cfg, uint64_t seed);

/* Builds a model whose weights come from a safetensors file (F32, BF16 or F16);
 * every expected tensor must be present with its exact shape, and no unexpected
 * tensor may be (lm_head.weight is ignored when the embeddings are tied). Takes
 * ownership of cfg. */
int model_init_safetensors(model *m, toy_config *cfg, const char *path);

/* Writes the weights to a safetensors file (F32, sorted by name) atomically. */
int model_export_safetensors(const model *m, const char *path);

/* The tensor with this name, or NULL. */
const model_tensor *model_find(const model *m, const char *name);

/* A copy of the model with every weight rounded to bf16 (for bf16 runs). */
void model_round_bf16(model *dst, const model *src);

void model_free(model *m);

#endif
