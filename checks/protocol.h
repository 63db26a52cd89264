/*
 * protocol.h - what the protocol checks share: their settings from
 * [tool.pgci.protocol] and the model packages they check.
 *
 * The protocol checks (protocol_registration.c, protocol_retired.c,
 * protocol_comments.c, protocol_siblings.c, protocol_tests.c, protocol_import.c)
 * check that every model follows the workspace's modeling protocol, not only that
 * its generated file regenerates: how the generated classes are registered,
 * which files are retired, how patches are commented, that GPU/NPU siblings
 * agree, that the tests enumerate the model and that the generated modules
 * import. Each finding names a rule ("registration.import") in its data; every
 * rule has a default severity that [tool.pgci.protocol] rules can change or turn
 * "off". docs/protocol.md lists the rules, their settings and what they report
 * on the real VeOmni tree.
 */
#ifndef PGCI_CHECKS_PROTOCOL_H
#define PGCI_CHECKS_PROTOCOL_H

#include "checks/check.h"
#include "core/vec.h"
#include "py/py.h"

/* Severity of a rule; PROTO_OFF turns it off. */
#define PROTO_OFF (-1)

/* Tri-state for conventions a workspace may or may not use. */
typedef enum proto_mode { PROTO_MODE_OFF = 0, PROTO_MODE_ON = 1, PROTO_MODE_AUTO = 2 } proto_mode;

typedef struct proto_settings {
    /* registration */
    char *registry;         /* decorator object: "MODELING_REGISTRY" */
    char *device_flag;      /* NPU branch condition: "IS_NPU_AVAILABLE" */
    char *converter_file;   /* "checkpoint_tensor_converter.py" */
    char *converter_attr;   /* "_create_checkpoint_tensor_converter" */
    char *upstream_package; /* "transformers" */
    /* retired */
    strvec retired; /* file name patterns, {model} = the model stem */
    /* comments */
    proto_mode headers;  /* auto: configs with at least one header */
    char *header_prefix; /* "# Patch:" */
    char *marker_word;   /* "Patch" in "# --- Patch.N ---" */
    char *regen_command; /* "patchgen {module}": {module} is the config module, {dir}
                            the config's directory */
    /* siblings */
    char *gpu_suffix, *npu_suffix; /* "_gpu", "_npu" in config stems */
    /* tests */
    char *toy_config_dir;  /* NULL: rule off */
    char *toy_config_name; /* "{model}_toy" */
    char *registry_test, *registry_marker;
    char *logits_test, *logits_marker;
    /* import */
    strvec python;      /* argv of [tool.pgci] python; empty: not configured */
    strvec python_path; /* extra sys.path entries ({tag}), relative to the root */
    int import_timeout_s;
    int import_jobs; /* interpreters at once */
    /* rule id -> severity (or PROTO_OFF); see proto_rules[] */
    int *sev;
} proto_settings;

/* One rule: its id, its family (the check id) and its default severity. */
typedef struct proto_rule {
    const char *id;    /* "registration.import" */
    const char *check; /* "protocol-registration" */
    int sev;           /* default severity or PROTO_OFF */
    const char *what;  /* one line for docs and --help */
} proto_rule;

extern const proto_rule proto_rules[];
extern const size_t proto_n_rules;

/* Reads [tool.pgci.protocol] (and [tool.pgci] python) of ws into s, defaults
 * first. ws may be NULL (defaults only). Unknown keys, unknown rules and values of
 * the wrong type are errors naming pyproject.toml and the line. */
int proto_settings_read(proto_settings *s, const workspace *ws);
void proto_settings_free(proto_settings *s);

/* The body of a protocol check over the settings read for it; returns as a
 * check_def's run does. */
typedef int (*proto_check_fn)(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why);

/* The protocol checks' common run: without a workspace there is nothing to check
 * (ran); else the workspace's protocol settings are read, fn runs over them, and
 * they are freed. A settings error is the check's error. */
int proto_run(const check_ctx *ctx, findings *out, strbuf *why, proto_check_fn fn);

/* The severity of a rule by id (PROTO_OFF when off). */
int proto_sev(const proto_settings *s, const char *rule);

/* A model package: a directory holding patch configs. */
typedef struct proto_package {
    char *dir;   /* workspace-relative */
    char *model; /* model stem: "qwen3_moe" from qwen3_moe_gpu_patch_gen_config */
    /* the package's configs: the checked ones first, then its other configs when
     * only some are checked (check_ctx.context) */
    VEC(const check_input *) inputs;
} proto_package;

typedef VEC(proto_package) proto_packages;

/* Groups ctx's inputs by directory, in input order, and adds the context inputs
 * of those directories. */
void proto_packages_build(proto_packages *out, const check_ctx *ctx, const proto_settings *s);
void proto_packages_free(proto_packages *ps);

/* The model stem of a config file name or stem: "qwen3_moe_npu_patch_gen_config.py"
 * -> "qwen3_moe" (suffixes from the settings); malloc'ed. */
char *proto_model_stem(const char *config_path, const proto_settings *s);

/* 1 when the config (by its path) is the NPU one. */
int proto_is_npu(const char *config_path, const proto_settings *s);

/* The generated module's stem of an input: "patched_modeling_qwen3_gpu" (from its
 * target file, or py_path); malloc'ed, NULL when unknown. */
char *proto_target_stem(const check_input *in);

/* Reads ws-relative rel into out; 0, or negative when missing (error cleared). */
int proto_read(const workspace *ws, const char *rel, strbuf *out);

/* The tree of src, the workspace file rel: from the run's parse set when it has
 * one (the registration and the retired-module rules both read each package's
 * __init__.py), else parsed; release it with proto_tree_free(ctx, t). 0, or
 * negative (error cleared). */
int proto_parse(const check_ctx *ctx, const strbuf *src, const char *rel, py_tree *t);
void proto_tree_free(const check_ctx *ctx, py_tree *t);

/* 1 when ws-relative rel is a file. */
int proto_exists(const workspace *ws, const char *rel);

/* Adds a finding for a rule at its configured severity (nothing when off). */
finding *proto_add(findings *fs, const proto_settings *s, const char *rule, const char *config,
                   const char *path, unsigned line, const char *title_fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Code that runs under another transformers (checks/protocol_gate.c): 1 when
 * cond is `is_transformers_version_greater_or_equal_to("X")` (a dotted name ending
 * so, under `not` or parentheses too) and holds at tag, 0 when it does not, -1 when
 * cond is no such test or tag is NULL. */
int proto_version_test(const py_tree *t, TSNode cond, const char *tag);
/* The clauses of an if statement (`if`, `elif`s, `else`) at tag, when every test
 * up to the one that holds is such a version test: 1, the body that runs in *live
 * (null when none does) and the others in dead[0..*n_dead) (dead has room for
 * one per named child of if_stmt); 0 when a test before the one that holds is
 * not one the tag decides. */
int proto_gate_branches(const py_tree *t, TSNode if_stmt, const char *tag, TSNode *live,
                        TSNode *dead, size_t *n_dead);
/* Adds to out the modules of the package (stems) that t imports relatively only in
 * branches such a test makes dead at tag. */
void proto_dead_imports(const py_tree *t, const char *tag, strvec *out);
/* Adds to out the package's modules (stems) t imports relatively, anywhere. */
void proto_relative_imports(const py_tree *t, strvec *out);

/* Replaces every "{key}" in pattern by value; malloc'ed. */
char *proto_subst(const char *pattern, const char *key, const char *value);

#endif
