/*
 * The protocol checks' settings: defaults that fit a VeOmni-like layout, then
 * [tool.pgci.protocol] of the workspace's pyproject.toml.
 *
 * A rule whose convention a workspace may simply not use is off or auto-detected
 * by default (the tests tables are off until named; the patch headers are checked
 * only in configs that use them), so that no rule fires on most models of a
 * workspace for a convention it never adopted.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/protocol.h"
#include "core/error.h"

const proto_rule proto_rules[] = {
    {"registration.decorator", "protocol-registration", SEV_ERROR,
     "the package's __init__.py registers the model with the registry decorator"},
    {"registration.import", "protocol-registration", SEV_ERROR,
     "classes come from .generated.<target stem>, not from upstream (unless excluded)"},
    {"registration.npu-branch", "protocol-registration", SEV_ERROR,
     "with an NPU config, the import branches on the device flag between the two modules"},
    {"registration.converter", "protocol-registration", SEV_ERROR,
     "with a checkpoint tensor converter, every returned generated class gets it as a "
     "staticmethod"},
    {"retired.file", "protocol-retired", SEV_ERROR,
     "no hand-written modeling_<model>.py, gpu_patch.py or npu_patch.py next to a config"},
    {"retired.generated-only", "protocol-retired", SEV_ERROR,
     "with --base: generated/ changed without a change to a config it comes from"},
    {"comments.header", "protocol-comments", SEV_WARNING,
     "a numbered '# Patch: <Target>' header above every patch (configs that use headers)"},
    {"comments.markers", "protocol-comments", SEV_WARNING,
     "'# --- Patch.N ---' markers paired, numbered as in the header, every number used"},
    {"comments.regen-command", "protocol-comments", SEV_WARNING,
     "the config's docstring carries its regeneration command"},
    {"siblings.pair", "protocol-siblings", SEV_ERROR,
     "an NPU config has its GPU sibling and both regenerate"},
    {"siblings.copied-body", "protocol-siblings", SEV_WARNING,
     "an NPU patch copies a GPU patch body verbatim instead of importing it"},
    {"siblings.name-map", "protocol-siblings", PROTO_OFF,
     "a name_map reuse builds an output dataclass without the renamed one's fields (off: "
     "pgci survey reports it)"},
    {"tests.toy-config", "protocol-tests", SEV_ERROR, "a toy config directory for the model"},
    {"tests.registry", "protocol-tests", SEV_ERROR, "the model is in the registry test table"},
    {"tests.logits", "protocol-tests", SEV_ERROR, "the model is in the logits test table"},
    {"import.smoke", "protocol-import", SEV_ERROR,
     "every generated module imports ([tool.pgci] python)"},
};
const size_t proto_n_rules = sizeof(proto_rules) / sizeof(proto_rules[0]);

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = v ? pgci_strdup(v) : NULL;
}

static void defaults(proto_settings *s)
{
    memset(s, 0, sizeof(*s));
    set_str(&s->registry, "MODELING_REGISTRY");
    set_str(&s->device_flag, "IS_NPU_AVAILABLE");
    set_str(&s->converter_file, "checkpoint_tensor_converter.py");
    set_str(&s->converter_attr, "_create_checkpoint_tensor_converter");
    set_str(&s->upstream_package, "transformers");
    strvec_push(&s->retired, "modeling_{model}.py");
    strvec_push(&s->retired, "gpu_patch.py");
    strvec_push(&s->retired, "npu_patch.py");
    s->headers = PROTO_MODE_AUTO;
    set_str(&s->header_prefix, "# Patch:");
    set_str(&s->marker_word, "Patch");
    set_str(&s->regen_command, "patchgen {module}");
    set_str(&s->gpu_suffix, "_gpu");
    set_str(&s->npu_suffix, "_npu");
    set_str(&s->toy_config_name, "{model}_toy");
    s->import_timeout_s = 120;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->import_jobs = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
    s->sev = pgci_calloc(proto_n_rules, sizeof(int));
    for (size_t i = 0; i < proto_n_rules; i++)
        s->sev[i] = proto_rules[i].sev;
}

void proto_settings_free(proto_settings *s)
{
    char **strs[] = {
        &s->registry,         &s->device_flag,     &s->converter_file, &s->converter_attr,
        &s->upstream_package, &s->header_prefix,   &s->marker_word,    &s->regen_command,
        &s->gpu_suffix,       &s->npu_suffix,      &s->toy_config_dir, &s->toy_config_name,
        &s->registry_test,    &s->registry_marker, &s->logits_test,    &s->logits_marker};
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
    strvec_free(&s->retired);
    strvec_free(&s->python);
    strvec_free(&s->python_path);
    free(s->sev);
    s->sev = NULL;
}

int proto_sev(const proto_settings *s, const char *rule)
{
    for (size_t i = 0; i < proto_n_rules; i++)
        if (!strcmp(proto_rules[i].id, rule))
            return s->sev ? s->sev[i] : proto_rules[i].sev;
    return PROTO_OFF;
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct reader {
    const workspace *ws;
    const char *table; /* "tool.pgci.protocol.registration" for messages */
} reader;

static int bad(const reader *r, const toml_value *v, const char *key, const char *want)
{
    return pgci_error_set(PGCI_EINVALID, "%s:%u: [%s] %s: expected %s, got %s",
                          r->ws->pyproject_name ? r->ws->pyproject_name : "pyproject.toml", v->line,
                          r->table, key, want, toml_type_name(v->type));
}

static int get_str(const reader *r, const toml_value *v, const char *key, char **dst)
{
    if (v->type != TOML_STRING)
        return bad(r, v, key, "a string");
    set_str(dst, v->str);
    return 0;
}

static int get_strs(const reader *r, const toml_value *v, const char *key, strvec *dst)
{
    if (v->type != TOML_ARRAY)
        return bad(r, v, key, "an array of strings");
    strvec_free(dst);
    for (size_t i = 0; i < v->items.len; i++) {
        if (v->items.items[i]->type != TOML_STRING)
            return bad(r, v->items.items[i], key, "an array of strings");
        strvec_push(dst, v->items.items[i]->str);
    }
    return 0;
}

static int unknown(const reader *r, const toml_value *v, const char *key)
{
    return pgci_error_set(PGCI_EINVALID, "%s:%u: [%s] has no setting '%s' (see docs/protocol.md)",
                          r->ws->pyproject_name ? r->ws->pyproject_name : "pyproject.toml", v->line,
                          r->table, key);
}

static int read_rules(const reader *r, const toml_value *t, proto_settings *s)
{
    for (size_t i = 0; i < t->entries.len; i++) {
        const char *key = t->entries.items[i].key;
        const toml_value *v = t->entries.items[i].value;
        size_t k = 0;
        while (k < proto_n_rules && strcmp(proto_rules[k].id, key))
            k++;
        if (k == proto_n_rules)
            return pgci_error_set(PGCI_EINVALID, "%s:%u: [%s] no rule '%s' (see docs/protocol.md)",
                                  r->ws->pyproject_name ? r->ws->pyproject_name : "pyproject.toml",
                                  v->line, r->table, key);
        if (v->type == TOML_BOOL) {
            /* true: the default severity, or warning for a rule that is off by default */
            s->sev[k] = !v->boolean                       ? PROTO_OFF
                        : proto_rules[k].sev == PROTO_OFF ? SEV_WARNING
                                                          : proto_rules[k].sev;
            continue;
        }
        if (v->type != TOML_STRING)
            return bad(r, v, key, "error, warning, info, off or a boolean");
        int sev = !strcmp(v->str, "off") ? PROTO_OFF : severity_parse(v->str);
        if (sev == -1 && strcmp(v->str, "off"))
            return pgci_error_set(PGCI_EINVALID,
                                  "%s:%u: [%s] %s: expected error, warning, info or off, not '%s'",
                                  r->ws->pyproject_name ? r->ws->pyproject_name : "pyproject.toml",
                                  v->line, r->table, key, v->str);
        s->sev[k] = sev;
    }
    return 0;
}

/* One family table: key -> string field, or a handler for the odd ones. */
typedef struct str_key {
    const char *key;
    size_t off;
} str_key;

#define SK(name, field)                                                                            \
    {                                                                                              \
        name, offsetof(proto_settings, field)                                                      \
    }

static const str_key str_keys[] = {
    SK("registration.registry", registry),
    SK("registration.device_flag", device_flag),
    SK("registration.converter_file", converter_file),
    SK("registration.converter_attr", converter_attr),
    SK("registration.upstream_package", upstream_package),
    SK("comments.header_prefix", header_prefix),
    SK("comments.marker_word", marker_word),
    SK("comments.regen_command", regen_command),
    SK("siblings.gpu_suffix", gpu_suffix),
    SK("siblings.npu_suffix", npu_suffix),
    SK("tests.toy_config_dir", toy_config_dir),
    SK("tests.toy_config_name", toy_config_name),
    SK("tests.registry_test", registry_test),
    SK("tests.registry_marker", registry_marker),
    SK("tests.logits_test", logits_test),
    SK("tests.logits_marker", logits_marker),
};

static int read_family(reader *r, const char *family, const toml_value *t, proto_settings *s)
{
    for (size_t i = 0; i < t->entries.len; i++) {
        const char *key = t->entries.items[i].key;
        const toml_value *v = t->entries.items[i].value;
        char full[128];
        snprintf(full, sizeof(full), "%s.%s", family, key);
        int done = 0, rc = 0;
        for (size_t k = 0; k < sizeof(str_keys) / sizeof(str_keys[0]) && !done; k++)
            if (!strcmp(str_keys[k].key, full)) {
                rc = get_str(r, v, key, (char **)((char *)s + str_keys[k].off));
                done = 1;
            }
        if (done) {
            if (rc < 0)
                return rc;
            continue;
        }
        if (!strcmp(full, "retired.files")) {
            if ((rc = get_strs(r, v, key, &s->retired)) < 0)
                return rc;
        } else if (!strcmp(full, "comments.headers")) {
            if (v->type == TOML_BOOL)
                s->headers = v->boolean ? PROTO_MODE_ON : PROTO_MODE_OFF;
            else if (v->type == TOML_STRING && !strcmp(v->str, "auto"))
                s->headers = PROTO_MODE_AUTO;
            else
                return bad(r, v, key, "true, false or \"auto\"");
        } else if (!strcmp(full, "import.path")) {
            if ((rc = get_strs(r, v, key, &s->python_path)) < 0)
                return rc;
        } else if (!strcmp(full, "import.jobs")) {
            if (v->type != TOML_INTEGER || v->integer < 1 || v->integer > 64)
                return bad(r, v, key, "an integer number of interpreters (1 to 64)");
            s->import_jobs = (int)v->integer;
        } else if (!strcmp(full, "import.timeout")) {
            if (v->type != TOML_INTEGER || v->integer < 1 || v->integer > 3600)
                return bad(r, v, key, "an integer number of seconds (1 to 3600)");
            s->import_timeout_s = (int)v->integer;
        } else {
            return unknown(r, v, key);
        }
    }
    return 0;
}

int proto_settings_read(proto_settings *s, const workspace *ws)
{
    defaults(s);
    if (!ws || !ws->pgci)
        return 0;
    reader r = {ws, "tool.pgci"};
    const toml_value *py = toml_get(ws->pgci, "python");
    if (py) {
        int rc = py->type == TOML_STRING ? (strvec_push(&s->python, py->str), 0)
                                         : get_strs(&r, py, "python", &s->python);
        if (rc < 0)
            return rc;
        if (s->python.len == 0 || !s->python.items[0][0])
            return bad(&r, py, "python", "a command (string or non-empty array)");
    }
    const toml_value *p = toml_get(ws->pgci, "protocol");
    if (!p)
        return 0;
    r.table = "tool.pgci.protocol";
    if (p->type != TOML_TABLE)
        return bad(&r, p, "protocol", "a table");
    static const char *const families[] = {"registration", "retired", "comments",
                                           "siblings",     "tests",   "import"};
    for (size_t i = 0; i < p->entries.len; i++) {
        const char *key = p->entries.items[i].key;
        const toml_value *v = p->entries.items[i].value;
        int rc;
        if (!strcmp(key, "rules")) {
            if (v->type != TOML_TABLE)
                return bad(&r, v, key, "a table of rule = severity");
            reader rr = {ws, "tool.pgci.protocol.rules"};
            if ((rc = read_rules(&rr, v, s)) < 0)
                return rc;
            continue;
        }
        size_t f = 0;
        while (f < sizeof(families) / sizeof(families[0]) && strcmp(families[f], key))
            f++;
        if (f == sizeof(families) / sizeof(families[0]))
            return unknown(&r, v, key);
        if (v->type != TOML_TABLE)
            return bad(&r, v, key, "a table");
        char name[64];
        snprintf(name, sizeof(name), "tool.pgci.protocol.%s", key);
        reader fr = {ws, name};
        if ((rc = read_family(&fr, key, v, s)) < 0)
            return rc;
    }
    return 0;
}

int proto_run(const check_ctx *ctx, findings *out, strbuf *why, proto_check_fn fn)
{
    if (!ctx->ws)
        return CHECK_RAN;
    proto_settings s;
    int r = proto_settings_read(&s, ctx->ws);
    if (r == 0)
        r = fn(ctx, &s, out, why);
    proto_settings_free(&s);
    return r;
}
