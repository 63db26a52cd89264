/*
 * init_fields.h - a patch body that builds a dataclass by name, `Out(loss=...,
 * rope_deltas=...)`: its `__init__` is the dataclass's fields, and the fields come
 * from a chain of bases that may live in the model's module, in the config (a
 * helper subclass), in another transformers module (transformers.modeling_outputs)
 * or in a module of the workspace (veomni.utils.model_outputs). When a base drops a
 * field at B, the call raises `TypeError: __init__() got an unexpected keyword
 * argument` every time it runs, while the override's body did not change.
 *
 * Each keyword the call passes by name is judged at A and at B over the class's
 * whole chain as Python builds it: the fields are the annotations of every class of
 * the chain that is a dataclass (a base that is not one contributes none of its
 * own), ClassVar annotations left out. transformers' `ModelOutput` takes part as
 * its release defines it: from 5.24.0 its metaclass (`_BCCacheNameMeta`) wraps the
 * `__init__` that `@dataclass` gives every subclass so that `past_key_values=` (or
 * else `cache_params=`) arrives as `cache=`; from 5.25.0 it does so only for a class
 * with neither old name among its fields. Those two shapes are read from
 * transformers/utils/generic.py at each tag; another shape leaves the classes under
 * `ModelOutput` unjudged at that tag.
 *
 * Precision first: a call is judged only when the class and every base of its chain
 * are read at both tags (a base from a module not read, a base written `mod.Base`,
 * a metaclass other than ModelOutput's, a decorator other than `@dataclass` and
 * `@auto_docstring`, an `__init__` of the class's own, a `field(init=False)` leave
 * it unjudged), and a keyword is reported only when the chain takes it at A and
 * certainly does not at B.
 */
#ifndef PGCI_CHECKS_INIT_FIELDS_H
#define PGCI_CHECKS_INIT_FIELDS_H

#include "checks/body_uses.h"
#include "checks/signatures.h"

/* Why a call of the class `cls` (the name as the generated code reads it) binds at
 * A and not at B. */
typedef struct init_fields_break {
    char *keyword;     /* the keyword the call passes ("rope_deltas") */
    int renamed;       /* ModelOutput's metaclass turns it into `cache=` at B */
    char *because;     /* "it passes `rope_deltas=`, which no field of ... takes" */
    char *declared_by; /* the class of A's chain that declared the field at A */
    char *detail;      /* both chains and their fields */
    char *notice;      /* what A's docstring of the field says of its deprecation, or NULL */
} init_fields_break;

/* 1 and *out when the call `cls(...)` as the body writes it binds at A and raises
 * TypeError (or ValueError, for both `past_key_values=` and `cache=`) at B; 0 when
 * it binds at B, did not at A, or cannot be judged. */
int init_fields_call_breaks(const survey_pair *p, const char *cls, const body_call *call,
                            init_fields_break *out);
void init_fields_break_free(init_fields_break *b);

/* Appends to mods (unique) transformers.modeling_outputs (the output dataclasses'
 * bases) and transformers.utils.generic (ModelOutput's metaclass) when a class
 * that cfg's bodies build by name (a CapWords name) reaches, through its bases at
 * A (p->a, the model's module at A; the config's classes and the workspace's
 * modules read on the way), another transformers module or ModelOutput: what the
 * survey fetches at both tags for survey_pair.ext. A base in any other
 * transformers module leaves its chain unjudged. */
void init_fields_modules(strvec *mods, const survey_pair *p);

#endif
