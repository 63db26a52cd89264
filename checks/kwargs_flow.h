/*
 * kwargs_flow.h - where a definition's `**kwargs` goes: the calls in its body that
 * pass it on (`self.self_attn(hidden_states=h, **kwargs)`), with the keywords each
 * of them also passes by name.
 *
 * A keyword a caller passes that the callee no longer names lands in its
 * `**kwargs`; if a call the callee makes passes both that keyword by name and
 * `**kwargs`, Python raises "got multiple values for keyword argument" there,
 * whatever is called (transformers 5.9's audio encoder layers dropped
 * `attention_mask` and pass `**kwargs` on to an attention call that passes
 * `attention_mask=None` itself). The survey follows such a keyword through these
 * calls (checks/callees.c). Read from the definition's syntax tree.
 *
 * Also what a method reads off `self`: a method run on a stand-in for `self` (a
 * `SimpleNamespace` holding only `config`) breaks when it starts reading another
 * attribute (transformers 5.9's `get_rope_index` and `get_vision_position_ids`).
 */
#ifndef PGCI_CHECKS_KWARGS_FLOW_H
#define PGCI_CHECKS_KWARGS_FLOW_H

#include <stddef.h>

#include "core/vec.h"
#include "py/py.h"

typedef struct kw_splat {
    char *callee;    /* the called expression as written: "self.self_attn", "attention_interface" */
    strvec keywords; /* the keywords it passes by name */
    unsigned line;   /* 1-based, in the tree's source */
} kw_splat;

typedef struct kw_flow {
    char *param;      /* the definition's `**param`; NULL when it has none */
    int other_use;    /* the body names param otherwise (`kwargs.pop("x")`, `kwargs["x"]`,
                       * `kwargs = ...`, a nested definition): where a keyword goes is unknown */
    kw_splat *splats; /* each call that passes `**param` on, in source order */
    size_t n;
} kw_flow;

/* Reads the function (decorated or not) that starts at byte `at` of t. Fails when
 * no function starts there. */
int kw_flow_read(kw_flow *f, const py_tree *t, unsigned at);

void kw_flow_free(kw_flow *f);

/* Appends to out the attributes the function that starts at byte `at` of t reads off
 * its first parameter (`self.x`, `self.m(...)`), each once, in order of first use;
 * nested definitions and lambdas left out. Fails when no function starts there. */
int self_reads(strvec *out, const py_tree *t, unsigned at);

#endif
