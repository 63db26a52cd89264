/*
 * returned.h - how a function computes what it returns, value by value.
 *
 * A body change that keeps a function's signature and the number of values it
 * returns can still change what one of them means: Qwen3-MoE's router at 5.9.0
 * stopped rebinding `router_logits` to its softmax before `return router_logits,
 * ...`, so every caller that took probabilities now gets logits. This reads, for
 * each value of a function's last `return` that is a plain name, the steps that
 * bind that name in the body (each assignment, in order, with the arguments of
 * its calls left out), so that two releases can be compared step by step.
 *
 * Arguments are left out on purpose: a keyword added to a call that computes a
 * value (`self_attn(..., cache_position=...)` dropped) is the signature checks'
 * business; a step added, dropped or replaced (a softmax gone) is this one's.
 */
#ifndef PGCI_CHECKS_RETURNED_H
#define PGCI_CHECKS_RETURNED_H

#include <stddef.h>

#include "core/vec.h"
#include "py/py.h"

typedef struct returned_value {
    char *name;   /* the name returned at this position; NULL when not a plain name */
    int call;     /* not a name but a call returned as is (`return self.visual(x)`): its
                     one step is that call, so that `out = self.visual(x); out.y = z;
                     return out` at another release shares it */
    strvec steps; /* each binding of name before the return: its shape (arguments out);
                     a field of it set (`name.attr = value`) is the step `.attr = value`,
                     which alone is never the step two releases share */
    strvec texts; /* the same bindings as written, one line each, for messages */
} returned_value;

typedef struct returned {
    returned_value *values; /* of the body's last top-level `return`; n 0 when none */
    size_t n;
    int many;         /* that return gives a tuple (`return a, b`, `return (a, b)`) */
    int single_plain; /* it gives one name or attribute (`return x`, `return self.x`) */
    char *text;       /* what it returns as written, on one line; NULL when n is 0 */
} returned;

/* Reads the definition (decorated or not) that starts at byte `at` of t. Fails
 * when no definition starts there. */
int returned_read(returned *r, const py_tree *t, unsigned at);

void returned_free(returned *r);

/* 1 when a and b return tuples of different sizes, or one a tuple and the other a
 * single name or attribute (`return router_logits` where it is now `return
 * router_logits, topk_weights, topk_indices`): what upstream's callers unpack of it
 * changed. A single value of another form (a call) may be a tuple itself: 0. */
int returned_count_changed(const returned *a, const returned *b);

/* 1 when value i is a name or a returned call at both sides (a name at one at
 * least) and the steps binding it differ while sharing at least one step that
 * binds the name: a step added to, dropped from or replaced in the same
 * computation (the router's softmax, a field of the result rebound). Steps that
 * share nothing are a rewrite (a helper now computes the value), which says
 * nothing of the value itself: 0, and the body's change is reported as such. */
int returned_value_changed(const returned *a, const returned *b, size_t i);

/* The name value i is returned as: a's, else b's (a returned call at a); NULL
 * when neither is a name. */
const char *returned_value_name(const returned *a, const returned *b, size_t i);

/* Appends to out what a and b bind value i with, under the two tags' names:
 *     5.2.0: router_logits = F.linear(hidden_states, self.weight)
 *            router_logits = torch.nn.functional.softmax(...) */
void returned_describe(strbuf *out, const returned *a, const returned *b, size_t i,
                       const char *tag_a, const char *tag_b);

#endif
