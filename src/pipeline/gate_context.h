/*
 * gate_context.h - the rest of each checked model package, for the checks that
 * read a package as a whole.
 *
 * `pgci check CONFIG` and `--shard K/N` regenerate a subset of the configs, but
 * a package's __init__.py registers the modules of all its configs, and an NPU
 * config is checked against its GPU sibling. The package-wide checks (the
 * protocol checks through proto_packages_build) must see every config of a
 * package whatever subset is regenerated: the configs outside the subset are
 * evaluated and their checked-in files read, never regenerated nor checked on
 * their own.
 */
#ifndef PGCI_PIPELINE_GATE_CONTEXT_H
#define PGCI_PIPELINE_GATE_CONTEXT_H

#include "checks/check.h"
#include "patchgen/config_eval.h"

typedef struct gate_context {
    check_input *inputs; /* the unselected configs of the selected configs' packages */
    size_t n;
    char **owned; /* buffers and paths the inputs point into */
    size_t n_owned;
} gate_context;

/* Fills out with the configs of ws that share a directory with one of sel[0..n)
 * and are not among them. A config that does not evaluate is kept with its error
 * (its own run reports it). Never fails. */
void gate_context_build(gate_context *out, const workspace *ws, const ws_config *const *sel,
                        size_t n, config_eval *ev, const char *var_name);

void gate_context_free(gate_context *c);

#endif
