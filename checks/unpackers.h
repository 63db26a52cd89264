/*
 * unpackers.h - where upstream's own code at B unpacks what a patched method
 * returns into another number of values than the patch returns.
 *
 * A method override returns what upstream's callers took at A. When upstream's
 * method now returns another number of values (DeepSeek-V3's router at 5.14.1:
 * `return router_logits, topk_weights, topk_indices` where it returned
 * `router_logits`), its callers at B are written for the new number: a caller the
 * config does not patch that unpacks the result (`a, b, c = self.gate(h)`) into
 * another number than the patch returns fails with Python's ValueError on every
 * call, or, worse, unpacks a tensor's first dimension. The callers looked at are
 * the module's own: for `forward`, a method of a class whose `__init__` builds an
 * instance by name (`self.gate = Router(config)`) calling `self.gate(...)`; for
 * another method, a method of the class itself calling `self.method(...)`.
 */
#ifndef PGCI_CHECKS_UNPACKERS_H
#define PGCI_CHECKS_UNPACKERS_H

#include <stddef.h>

#include "checks/signatures.h"

typedef struct unpack_site {
    char *where;   /* "DeepseekV3MoE.forward" */
    char *call;    /* "self.gate(...)" */
    unsigned line; /* at B, 1-based */
    size_t count;  /* how many values it unpacks */
} unpack_site;

/* The first caller at B (module order, then member order) of cls.method, a method
 * the config does not define, that unpacks its result into a number of targets
 * other than n (a starred target takes any number: not counted): 1 and *site,
 * else 0. */
int unpackers_find(const survey_pair *p, const char *cls, const char *method, size_t n,
                   unpack_site *site);

void unpack_site_free(unpack_site *s);

/* 1 when cls.method's callers are module B's own code: `forward` of a class that
 * another class of the module builds by name in its `__init__` (a submodule: the
 * framework calls a model's `forward`, not a layer's), or a private method
 * (`_name`, not a dunder), called through `self`. */
int unpackers_callers_in_module(const survey_pair *p, const char *cls, const char *method);

#endif
