/*
 * signatures.h - what changed upstream, between two tags, under each patch.
 *
 * For every target a config names (override_method, replace_class,
 * replace_function, modify_init, add_helper_after, external replacements) the
 * index of the upstream module at tag A is compared with the one at tag B:
 * presence (kept, added, vanished, with rename candidates), parameters (added
 * required or optional, removed, renamed, reordered, kind, default, annotation),
 * the return annotation, decorators, base classes, a replaced class's methods and
 * class attributes, `self.<attr>` attributes set in `__init__`, and the body of an
 * overridden method (the override was written against the old body). Targets
 * absent from both tags were added by the config and are left alone.
 *
 * Also here, because they read the same two indexes: names a patch body uses that
 * upstream imported at A but no longer at B, and the auto-docstring rule (an
 * override of an @auto_docstring method whose new parameters its docstring lacks).
 *
 * Findings: check "signatures" (or "auto-docstring"), the config, the config file
 * and the line where the patch was registered; titles do not depend on the config,
 * so one upstream change hitting many configs groups into one entry.
 */
#ifndef PGCI_CHECKS_SIGNATURES_H
#define PGCI_CHECKS_SIGNATURES_H

#include "checks/finding.h"
#include "index/index.h"
#include "patchgen/patch_spec.h"
#include "py/parse_set.h"

typedef struct survey_bodies survey_bodies;

/* A module outside the model's own that patch bodies call functions from, as the
 * model's module imports them (`from ...masking_utils import create_causal_mask`),
 * at A and B; NULL where it could not be read. */
typedef struct survey_ext {
    const char *module; /* "transformers.masking_utils" */
    const index_module *a, *b;
    const char *src_a, *src_b; /* their sources */
    size_t src_a_len, src_b_len;
} survey_ext;

typedef struct survey_pair {
    const char *config;      /* config module name */
    const char *config_path; /* workspace-relative config file */
    const pg_config *cfg;
    const index_module *a; /* upstream source_module at tag A; NULL when absent there */
    const index_module *b; /* ... at tag B */
    const char *tag_a, *tag_b;
    const char *src_b; /* the upstream source at tag B (for checks that read bodies) */
    size_t src_b_len;
    const char *src_a; /* ... at tag A; NULL: body changes judged by fingerprint alone */
    size_t src_a_len;
    const index_module *config_b; /* configuration_<model>.py at B, NULL when absent */
    /* transformers.modeling_utils (the base classes models inherit) at A and B, with
     * their sources; NULL when not fetched */
    const index_module *base_a, *base_b;
    const char *base_src_a, *base_src_b;
    size_t base_src_a_len, base_src_b_len;
    /* the run's parse set: the checks' trees of patch bodies come from it, one
     * parse per distinct text (checks/survey_trees.h); NULL: parse each time */
    py_parse_set *parses;
    /* the parse set holding the trees of the modules at A (the survey keeps them
     * apart); NULL: parses */
    py_parse_set *parses_a;
    /* what each patch body uses, read once a run (checks/survey_trees.h); NULL:
     * read where needed */
    survey_bodies *bodies;
    /* transformers.utils.auto_docstring at A and B: the argument docs @auto_docstring
     * fills in by name (its *Args classes); NULL when not fetched or absent */
    const index_module *docs_a, *docs_b;
    /* the modules the functions patch bodies call are imported from (callees.h) */
    const survey_ext *ext;
    size_t n_ext;
    /* the transformers modules the workspace's modules that the generated module
     * imports import names from (checks/ws_imports.h), at A and B; apart from ext,
     * whose modules the other checks follow calls into */
    const survey_ext *ws_ext;
    size_t n_ws_ext;
} survey_pair;

/* Compares every target of one config; appends findings. */
void signatures_compare(findings *out, const survey_pair *p);

/* Scored successors in b for a class or function that vanished from a: the same
 * kind, not present in a, ranked by name tokens, body and signature similarity.
 * Fills up to max candidates (qualnames) and their scores in [0, 1]; returns how
 * many. */
/* The similarity at or above which a rename candidate is named as the likely
 * successor (0.35 name tokens + 0.40 body + 0.25 shape: a body kept whole and a
 * name sharing half its tokens, or a kept shape and a close name). */
#define SIGNATURES_CONFIDENT 0.6

size_t signatures_rename_candidates(const index_module *a, const index_module *b,
                                    const char *qualname, const char **names, double *scores,
                                    size_t max);

/* The source lines of a config object (first decorator to its end), malloc'ed;
 * NULL when the object has no text. */
char *signatures_object_text(const pg_object *o);

/* Where a finding goes: a workspace-relative file and a line in it (0: the file
 * only). */
typedef struct survey_site {
    const char *path;
    unsigned line, col;
} survey_site;

/* Where a finding about a patched class belongs: the first line that registers
 * a patch of it (the class replaced, or one of its methods overridden), in the
 * file that registers it (pg_patch_site); else the config's file. */
survey_site signatures_class_site(const survey_pair *p, const char *cls);

/* Where a finding about a positioned helper's target belongs: the
 * add_helper_after that names it, in its file; else the config's file. */
survey_site signatures_positioned_site(const survey_pair *p, const pg_positioned_helper *ph);

/* Where a finding about what a helper's text uses belongs: the helper's first
 * line in its file (column 1) when that file is the workspace's, else the
 * add_helper_after that registered it (ph may be NULL), else the config's file. */
survey_site signatures_helper_site(const survey_pair *p, const pg_object *h,
                                   const pg_positioned_helper *ph);

/* Renders "name(a, b: int = 3, *, c=None, **kw) -> T" into out. */
void signatures_render(strbuf *out, const index_def *fn);

/* 1 when the annotations are one type (Optional[X], Union[X, None], X | None;
 * typing's List and list, ...); both NULL counts as equal. */
int signatures_annotation_eq(const char *a, const char *b);

/* 1 when module m binds name at module level (import, def, class, assignment). */
int signatures_module_binds(const index_module *m, const char *name);

/* 1 when the config itself provides name to the generated module: an additional
 * import, a post-import block that binds it (an import, def, class or assignment
 * at its top level, read from the block as the generated module holds it:
 * dedented; the block's index comes from p->bodies), a helper, a replaced function
 * or class. */
int signatures_config_binds(const survey_pair *p, const char *name);

#endif
