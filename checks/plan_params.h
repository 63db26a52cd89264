/*
 * plan_params.h - every parameter path under one module of the model at one tag,
 * and whether a parallel plan key can match one, as VeOmni's ParallelPlan.apply
 * matches (`veomni/distributed/utils.py` check_fqn_match: the key re.escape'd,
 * each `*` made `.*`, anchored `^...$`, re.match against each name of
 * `model.named_parameters()`; `*` spans dots, so `layers.*.mlp.experts.w` also
 * matches `layers.0.block.mlp.experts.w`).
 *
 * The walk reads what every method of each class on the way stores to `self`
 * (plan_class_stores, the config's overrides too), through the classes of the
 * module, lists of them, torch leaf modules and activations (plan_classes.h),
 * and takes every branch: the paths it yields are a superset of the parameters
 * the module can have. So when it reads everything and no path matches, the key
 * certainly matches no parameter under the module; anything it cannot read (an
 * unknown value, a class of another module, a base it cannot read, an attribute
 * set by name, a class within itself, too many classes) makes it say so instead.
 */
#ifndef PGCI_CHECKS_PLAN_PARAMS_H
#define PGCI_CHECKS_PLAN_PARAMS_H

#include "checks/plan_classes.h"

/* In a path pattern: one or more digits (a ModuleList's index), and any one
 * segment (an activation's own parameter). */
#define PLAN_PATH_INDEX '\001'
#define PLAN_PATH_SEGMENT '\002'

/* 1 when some name the path pattern stands for matches key as check_fqn_match
 * does (the whole name; `*` any run of characters, dots included). */
int plan_key_matches(const char *key, const char *path);

typedef enum plan_params_verdict {
    PLAN_PARAMS_UNKNOWN, /* something on the way is not read */
    PLAN_PARAMS_NONE,    /* every path read, none matches */
    PLAN_PARAMS_MATCH    /* a path may match */
} plan_params_verdict;

/* Whether key may match a parameter under the module at path (dotted, no
 * pattern characters), an instance of cls at side, or a ModuleList of them when
 * list. *paths: how many parameter paths the walk read. */
plan_params_verdict plan_params_match(plan_model *m, int side, const char *cls, int list,
                                      const char *path, const char *key, size_t *paths);

#endif
