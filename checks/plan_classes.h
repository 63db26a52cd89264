/*
 * plan_classes.h - the classes a generated module holds at one tag, as the keys
 * of a parallel plan (plan_paths.h) walk them: read from the texts without a
 * parse, logical lines, brackets and strings followed. A class is the config's
 * replacement or upstream's top-level class; what its `__init__` assigns to
 * `self.<attr>` (the config's `__init__` override first) is classified:
 *
 *   Cls(...), Cls._from_config(...)           a class of the module (or the config)
 *   nn.ModuleList([Cls(...) for ...])        a list of such, indexed by `*` or n
 *   nn.Parameter(...)                         a parameter
 *   nn.Linear(...), nn.Embedding(...), ...    a torch leaf module: its parameters
 *                                             (weight; bias unless bias=False)
 *   ACT2FN[...]                               an activation: parameters of its own
 *                                             only (nn.PReLU's weight, xIELU's)
 *   config.x, literals, a scalar parameter    data: no module, no parameter
 *
 * and anything else is unknown. Certainty is the callers' (plan_paths.c,
 * plan_params.c): this module reads, it does not judge.
 */
#ifndef PGCI_CHECKS_PLAN_CLASSES_H
#define PGCI_CHECKS_PLAN_CLASSES_H

#include "checks/signatures.h"

#define PLAN_CHAIN_MAX 16
#define PLAN_ALTS_MAX 8

/* ---- logical lines ------------------------------------------------------------------ */

int plan_ident_char(char c);

/* One logical line of code: [s, e), indented by indent. */
typedef struct plan_line {
    const char *s, *e;
    size_t indent;
} plan_line;

/* The next logical line of code at or after *p in [.., end) into *l; 0 at the end. */
int plan_next_line(const char **p, const char *end, plan_line *l);

/* 1 when the line starts with w. */
int plan_starts(const plan_line *l, const char *w);

/* The body of the block whose header is h (a def, a class): [*bs, *be) and its
 * indentation; 0 when it has no body on lines of its own. */
int plan_body_of(const plan_line *h, const char *end, const char **bs, const char **be,
                 size_t *indent);

/* The header of `def name(` at indentation indent in [s, end) (any indentation
 * when indent is (size_t)-1; name NULL: the first def). */
int plan_find_def(const char *s, const char *end, const char *name, size_t indent, plan_line *out);

/* The ')' (or ']', '}') matching the bracket at p in [p, e), or NULL. */
const char *plan_close_paren(const char *p, const char *e);

/* [v, e) folded: comments out, whitespace runs one space, none inside brackets'
 * edges (malloc'ed). */
char *plan_fold(const char *v, const char *e);

/* ---- what an assignment holds ------------------------------------------------------- */

typedef enum plan_vkind {
    PLAN_V_UNKNOWN,
    PLAN_V_CLASS,
    PLAN_V_LIST,
    PLAN_V_PARAM,
    PLAN_V_LEAF,
    PLAN_V_DATA
} plan_vkind;

/* A torch leaf module's parameters: bits over names[] it may have and it must
 * have, by its constructor call; any: an activation's own parameters, of any name. */
typedef struct plan_leaf {
    const char *cls; /* "nn.Linear", "ACT2FN" */
    const char *const *names;
    unsigned may, must;
    int any;
} plan_leaf;

typedef struct plan_asg {
    char *attr;
    plan_vkind kind;
    char *cls;      /* PLAN_V_CLASS, PLAN_V_LIST: the class's name */
    int top;        /* at the body's own indentation: always runs */
    plan_leaf leaf; /* PLAN_V_LEAF */
} plan_asg;

typedef VEC(plan_asg) plan_asgs;

/* What the folded value v, assigned in the def whose header is sig[0..sig_len)
 * (NULL: none) after the assignments prior, holds: the class's name into *cls
 * (malloc'ed) for PLAN_V_CLASS and PLAN_V_LIST, *leaf for PLAN_V_LEAF
 * (plan_values.c). */
plan_vkind plan_value_kind(const char *v, const char *sig, size_t sig_len, const plan_asgs *prior,
                           char **cls, plan_leaf *leaf);

/* 1 when the leaf certainly has the parameter name (must), or may have it. */
int plan_leaf_must(const plan_leaf *l, const char *name);
int plan_leaf_may(const plan_leaf *l, const char *name);

/* ---- the classes -------------------------------------------------------------------- */

typedef struct plan_class {
    char *name;
    int side;
    int ok;
    const char *text; /* the class's definition, from its first decorator */
    size_t len;
    plan_asgs init; /* what its __init__ (the config's, when it overrides it) assigns */
    int has_init;
    strvec bases;
    int stores_read;  /* plan_class_stores: 0 not yet, 1 read, -1 not all readable */
    plan_asgs stores; /* every `self.x = v` of every method, the config's overrides' too */
} plan_class;

typedef struct plan_model {
    const survey_pair *p;
    VEC(plan_class *) classes;
    strvec texts; /* owned texts the classes point into */
} plan_model;

void plan_model_free(plan_model *m);

/* The last patch of type t for target of cfg (a later one supersedes), or NULL. */
const pg_patch *plan_config_patch(const pg_config *cfg, pg_patch_type t, const char *target);

/* Class name as the generated module defines it at side (0 A, 1 B): the config's
 * replacement, else upstream's top-level class; NULL when neither or unreadable. */
const plan_class *plan_class_get(plan_model *m, int side, const char *name);

/* The classes of name's chain at side, depth first in base order, each once, into
 * out[*n..]; -1 when a base is not read (another module's, a keyword, `mod.Base`).
 * nn.Module, PreTrainedModel, GenerationMixin, GradientCheckpointingLayer are
 * left out: they hold no submodule or parameter. */
int plan_class_chain(plan_model *m, int side, const char *name, const plan_class **out, size_t *n);

typedef enum plan_look { PLAN_L_UNKNOWN, PLAN_L_ABSENT, PLAN_L_FOUND } plan_look;

/* What the chain of cls at side sets `self.<attr>` to: the assignments of the
 * first __init__ of the chain that makes any (PLAN_L_FOUND, into found[] and *n),
 * none with certainty (PLAN_L_ABSENT: nothing else in the chain nor in the
 * config's overrides names it, nothing sets attributes by name), or cannot tell. */
plan_look plan_class_lookup(plan_model *m, int side, const char *cls, const char *attr,
                            const plan_asg **found, size_t *n);

/* Every store to `self.<x>` in k's text and in the config's overrides of k's
 * methods, each a plain `self.x = v` (classified as above); NULL when one is not
 * (a tuple target, `self.x.y = `, `for self.x in`), when something sets attributes
 * by name (setattr, add_module, register_*, __getattr__, __dict__), or when a
 * decorator of k is not one known to add no parameter. */
const plan_asgs *plan_class_stores(plan_model *m, const plan_class *k);

#endif
