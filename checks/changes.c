/*
 * Grouping findings by the upstream change that caused them. Each finding maps to
 * a key naming the change: the upstream symbol (with the model's own prefix
 * written `*` when one change hits several models' copies of a symbol:
 * `*VisionAttention.forward`) and what happened to it. A regeneration failure
 * joins the change that explains it (ruff's "Undefined name `Optional`" is the
 * change "`Optional` is no longer imported").
 */
#include "checks/changes.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/finding.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/vec.h"

static const char *const how_names[] = {"fails-to-regenerate", "silently-dropped",
                                        "breaks-at-run-time",  "contract-changed",
                                        "deprecation",         "note"};

const char *change_how_name(change_how h)
{
    return how_names[h];
}

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- the model prefix as a wildcard ------------------------------------------------ */

/* "transformers.models.qwen3_omni_moe.modeling_qwen3_omni_moe" + "Qwen3OmniMoeVision
 * Attention.forward" -> "*VisionAttention.forward"; the name itself when it does
 * not start with the model's name (underscores and case ignored). */
static char *wildcard(const char *name, const char *module)
{
    const char *m = module ? strrchr(module, '.') : NULL;
    if (!name || !m || strncmp(m + 1, "modeling_", 9))
        return pgci_strdup(name ? name : "");
    const char *model = m + 10, *p = name;
    for (const char *q = model; *q; q++) {
        if (*q == '_')
            continue;
        while (*p == '_')
            p++;
        if (tolower((unsigned char)*p) != tolower((unsigned char)*q))
            return pgci_strdup(name);
        p++;
    }
    while (*p == '_')
        p++;
    if (!isupper((unsigned char)*p)) /* Qwen3 must not eat Qwen3_5's "_5" */
        return pgci_strdup(name);
    return pgci_asprintf("*%s", p);
}

/* ---- one finding -> its change ---------------------------------------------------- */

typedef struct fact {
    char *key;    /* groups findings */
    char *symbol; /* the upstream symbol, wildcarded */
    char *target; /* the real symbol */
    change_how how;
    const char *family; /* "name", "vanished", "signature", ... */
} fact;

/* The name in ruff's "F821 Undefined name `X`" (or F811 "Redefinition of unused
 * `X`"), malloc'ed; *code "F821" / "F811". */
static char *ruff_name(const char *text, const char **code)
{
    static const struct {
        const char *needle, *code;
    } kinds[] = {{"Undefined name `", "F821"}, {"Redefinition of unused `", "F811"}};
    for (size_t k = 0; text && k < 2; k++) {
        const char *p = strstr(text, kinds[k].needle);
        if (!p)
            continue;
        p += strlen(kinds[k].needle);
        const char *e = strchr(p, '`');
        if (!e)
            continue;
        *code = kinds[k].code;
        return pgci_strndup(p, (size_t)(e - p));
    }
    return NULL;
}

static change_how by_severity(const char *sev, change_how dflt)
{
    if (!strcmp(sev, "info"))
        return CHANGE_OTHER;
    if (!strcmp(sev, "error") && dflt >= CHANGE_CONTRACT)
        return CHANGE_BREAKS;
    return dflt;
}

/* The first name patchgen's "positioned helper target(s) not found in generated
 * output: A, B (...)" lists (add_helper_after on a definition upstream dropped),
 * malloc'ed; NULL when text is no such message. */
static char *positioned_target(const char *text)
{
    static const char needle[] = "positioned helper target(s) not found in generated output: ";
    const char *p = text ? strstr(text, needle) : NULL;
    if (!p)
        return NULL;
    p += sizeof(needle) - 1;
    size_t n = strcspn(p, ", \n");
    return n ? pgci_strndup(p, n) : NULL;
}

static void classify_regen(json_t *f, fact *x)
{
    const char *code = NULL;
    char *name = ruff_name(str(f, "title"), &code);
    if (!name)
        name = ruff_name(str(f, "detail"), &code);
    if (!name && (name = positioned_target(str(f, "title"))) != NULL)
        code = "F821"; /* a definition that went: joins its change like an undefined name */
    x->how = CHANGE_FAILS_REGEN;
    if (name && !strcmp(code, "F821")) {
        x->family = "name";
        x->key = pgci_asprintf("name:%s:", name);
        x->symbol = pgci_strdup(name);
    } else if (name) {
        x->family = "redefined";
        x->key = pgci_asprintf("redefined:%s:", name);
        x->symbol = pgci_strdup(name);
    } else {
        x->family = "regen";
        x->key = pgci_asprintf("regen:%s", str(f, "config") ? str(f, "config") : "");
        x->symbol = pgci_strdup(str(f, "config") ? str(f, "config") : "");
    }
    x->target = pgci_strdup(x->symbol);
    free(name);
}

static const struct {
    const char *kind, *family;
    change_how how;
} families[] = {
    {"missing-target", "vanished", CHANGE_DROPPED},
    {"vanished", "vanished", CHANGE_DROPPED},
    {"vanished-called", "vanished-called", CHANGE_CONTRACT},
    {"unreachable", "unreachable", CHANGE_DROPPED},
    {"auto-built", "auto-built", CHANGE_DROPPED},
    {"import-removed", "name", CHANGE_BREAKS},
    {"name-removed", "name", CHANGE_BREAKS},
    {"callee-vanished", "callee-vanished", CHANGE_BREAKS},
    {"callee-inherited", "callee-inherited", CHANGE_OTHER},
    {"stand-in-attr-missing", "stand-in", CHANGE_BREAKS},
    {"dataclass-field-removed", "dataclass-field", CHANGE_BREAKS},
    {"ws-import-removed", "ws-import", CHANGE_BREAKS},
    {"plan-key-unmatched", "plan-key", CHANGE_DROPPED},
    {"init-attr-renamed", "attr", CHANGE_CONTRACT},
    {"init-attr-removed", "attrs-removed", CHANGE_CONTRACT},
    {"element-attr-removed", "attrs-removed", CHANGE_CONTRACT},
    {"init-attr-added", "attrs-added", CHANGE_OTHER},
    {"body-changed", "body", CHANGE_CONTRACT},
    {"replaced-body-changed", "replaced-body", CHANGE_CONTRACT},
    {"callee-signature-changed", "callee-signature", CHANGE_CONTRACT},
    {"callee-return-changed", "callee-return", CHANGE_CONTRACT},
    {"callee-body-changed", "callee-body", CHANGE_OTHER},
    {"return-value-changed", "return-value", CHANGE_CONTRACT},
    {"return-count-changed", "return-count", CHANGE_CONTRACT},
    {"callee-value-changed", "callee-value", CHANGE_CONTRACT},
    {"deprecation", "deprecation", CHANGE_DEPRECATION},
    {"kwarg-deprecated", "deprecation", CHANGE_DEPRECATION},
    {"auto-docstring", "auto-docstring", CHANGE_CONTRACT},
    {"appeared", "appeared", CHANGE_OTHER},
    {"kernel-forward-added", "kernel-forward", CHANGE_CONTRACT},
};

/* Whether an auto-docstring finding's data says its arguments went undocumented
 * for this cause ("table", "decorated"). */
static int cause_is(json_t *d, const char *cause)
{
    const char *c = str(d, "cause");
    return c && !strcmp(c, cause);
}

/* "forward,__init__" of a replaced class's changed methods (data.methods), into
 * *own. */
static const char *methods_key(json_t *d, char **own)
{
    strbuf k = STRBUF_INIT;
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(d, "methods"), i, v)
        strbuf_addf(&k, "%s%s", i ? "," : "", json_string_value(v));
    *own = strbuf_detach(&k, NULL);
    return *own;
}

static void classify(json_t *f, fact *x)
{
    memset(x, 0, sizeof(*x));
    if (!strcmp(str(f, "check"), "regen")) {
        classify_regen(f, x);
        return;
    }
    json_t *d = json_object_get(f, "data");
    const char *kind = str(d, "kind") ? str(d, "kind") : str(f, "check");
    const char *target = str(d, "target") ? str(d, "target") : "";
    const char *sev = str(f, "severity");
    x->family = "signature"; /* param-*, decorators, bases, class attributes, returns */
    x->how = CHANGE_CONTRACT;
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (!strcmp(kind, families[i].kind)) {
            x->family = families[i].family;
            x->how = families[i].how;
        }
    if (strcmp(str(f, "check"), "signatures") && strcmp(str(f, "check"), "callees") &&
        strcmp(str(f, "check"), "deprecations") && strcmp(str(f, "check"), "targets") &&
        strcmp(str(f, "check"), "auto-docstring"))
        x->family = str(f, "check");
    x->how = by_severity(sev, x->how);
    if (!strcmp(x->family, "deprecation") && strcmp(sev, "warning"))
        x->how = CHANGE_OTHER;
    if (json_is_true(json_object_get(d, "fails_regen")))
        x->how = CHANGE_FAILS_REGEN; /* ruff refuses the generated file on that name */
    const char *subject = "";
    char *own = NULL;
    if (!strcmp(x->family, "name"))
        target = str(d, "name") ? str(d, "name") : target;
    else if (!strcmp(x->family, "dataclass-field"))
        subject = str(d, "field") ? str(d, "field") : "";
    else if (!strcmp(x->family, "auto-built")) /* one title per class that builds it */
        subject = str(d, "builder") ? str(d, "builder") : "";
    else if (!strcmp(x->family, "replaced-body")) /* one title per set of methods */
        subject = methods_key(d, &own);
    else if (!strcmp(x->family, "attrs-removed") && json_is_true(json_object_get(d, "registered")))
        subject = "registered"; /* a buffer __init__ registered: its own change and action */
    else if (!strcmp(x->family, "attr") || !strcmp(x->family, "deprecation"))
        subject = str(d, "attribute")   ? str(d, "attribute")
                  : str(d, "parameter") ? str(d, "parameter")
                                        : "";
    if (!strcmp(x->family, "auto-docstring") && cause_is(d, "table")) {
        /* arguments auto_docstring.py's tables stopped documenting: one fact, keyed
         * by the arguments, however many overrides take them */
        strbuf args = STRBUF_INIT;
        json_t *v;
        size_t i;
        json_array_foreach(json_object_get(d, "arguments"), i, v)
            strbuf_addf(&args, "%s%s", i ? ", " : "", json_string_value(v));
        x->target = pgci_strdup(args.buf);
        x->symbol = strbuf_detach(&args, NULL);
        x->key = pgci_asprintf("auto-docstring-table:%s", x->symbol);
        return;
    }
    if (!strcmp(x->family, "plan-key")) {
        /* the keys of one plan that break at one segment: one move upstream made */
        const char *dead = str(d, "dead") ? str(d, "dead") : target;
        x->target = pgci_strdup(dead);
        x->symbol = pgci_strdup(dead);
        x->key = pgci_asprintf("plan-key:%s:%s", str(d, "file") ? str(d, "file") : "", dead);
        return;
    }
    if (!strcmp(x->family, "ws-import")) {
        /* the names gone from the modules one workspace file imports them from: one
         * edit of that file (veomni's model_outputs.py, five classes 5.24.0 removed),
         * however many configs import it */
        x->target = pgci_strdup(target);
        x->symbol = pgci_strdup(target);
        x->key = pgci_asprintf("ws-import:%s", str(d, "file") ? str(d, "file") : "");
        return;
    }
    x->target = pgci_strdup(target);
    /* a module-level name is one fact whether a patch targets it (vanished) or a
     * body reads it (no longer defined): one change, keyed by the name */
    int top_level = !strchr(target, '.');
    int by_name = !strcmp(x->family, "name") || (!strcmp(x->family, "vanished") && top_level);
    x->symbol = by_name ? pgci_strdup(target) : wildcard(target, str(d, "module"));
    x->key = pgci_asprintf("%s:%s:%s", by_name ? "name" : x->family, x->symbol, subject);
    free(own);
}

static void fact_free(fact *x)
{
    free(x->key);
    free(x->symbol);
    free(x->target);
}

/* ---- changes ------------------------------------------------------------------------- */

typedef struct change {
    fact f;         /* the first finding's fact (key, family, symbol) */
    int one_target; /* every finding names the same real target */
    change_how how; /* the most urgent over its findings */
    int sev;
    strvec configs, phrases;
    size_t n;
    json_t *first;        /* borrowed */
    int imports, defines; /* name family: imports that went, definitions that went */
    char *successor;
    int successors_differ; /* another finding of it names another successor */
    const char *advice;    /* what upstream's deprecation notice said to do instead (borrowed) */
    strvec also;           /* the names a ruff failure's title lists past its first cause */
    VEC(char) also_rule;   /* each one's rule, beside it: ALSO_REDEFINED, ALSO_UNDEFINED, ... */
    size_t also_n;         /* how many causes past the first it counts ("and 4 more") */
    strvec also_configs;   /* the configs whose failure has them */
    int callee_body;       /* a callee signature change whose body changed too (joined) */
    json_t *shim;          /* its @deprecate_kwarg rename's data, joined (borrowed) */
} change;

#define BODY_PHRASE "changed its body"

/* A signature or body change: whether its findings changed the body, and how many
 * other phrases (the signature's) it has. */
static size_t signature_phrases(const change *c, int *body)
{
    *body = strvec_find(&c->phrases, BODY_PHRASE) >= 0;
    return c->phrases.len - (size_t)*body;
}

/* The change's kind: a body change alone is "body", with signature changes of the
 * same target "signature". */
static const char *change_kind(const change *c)
{
    int body;
    if (strcmp(c->f.family, "signature") && strcmp(c->f.family, "body"))
        return c->f.family;
    return signature_phrases(c, &body) || !body ? "signature" : "body";
}

/* What one finding says in a signature change's title ("dropped `a`"), malloc'ed;
 * NULL when it says nothing there. */
static char *phrase_of(json_t *f)
{
    json_t *d = json_object_get(f, "data");
    const char *kind = str(d, "kind") ? str(d, "kind") : "";
    const char *p = str(d, "parameter");
    char *ph = NULL;
    if (!strcmp(kind, "param-removed") && p)
        ph = pgci_asprintf("dropped `%s`", p);
    else if (!strcmp(kind, "param-added-required") && p)
        ph = pgci_asprintf("gained required `%s`", p);
    else if (!strcmp(kind, "param-added-optional") && p)
        ph = pgci_asprintf("gained `%s`", p);
    else if (!strcmp(kind, "param-renamed") && p)
        ph = pgci_asprintf("renamed `%s` → `%s`", p, str(d, "new_parameter"));
    else if (!strcmp(kind, "param-reordered"))
        ph = pgci_strdup("reordered its parameters");
    else if (!strncmp(kind, "decorator-", 10))
        ph = pgci_strdup("changed decorators");
    else if (!strcmp(kind, "param-default-changed"))
        ph = pgci_strdup("changed a default");
    else if (!strcmp(kind, "param-kind-changed"))
        ph = pgci_strdup("changed a parameter kind");
    else if (!strcmp(kind, "return-annotation-changed"))
        ph = pgci_strdup("changed its return annotation");
    else if (!strcmp(kind, "param-annotation-changed"))
        ph = pgci_strdup("changed annotations");
    else if (!strcmp(kind, "bases-changed"))
        ph = pgci_strdup("changed base classes");
    else if (!strncmp(kind, "class-attr-", 11))
        ph = pgci_strdup("changed class attributes");
    else if (!strcmp(kind, "init-attr-removed") && str(d, "attribute") && str(d, "moved_to"))
        ph = pgci_asprintf("`self.%s` (now `self.%s`)", str(d, "attribute"), str(d, "moved_to"));
    else if ((!strcmp(kind, "init-attr-removed") || !strcmp(kind, "element-attr-removed")) &&
             str(d, "attribute"))
        ph = pgci_asprintf("`self.%s`", str(d, "attribute"));
    else if (!strcmp(kind, "body-changed"))
        ph = pgci_strdup(BODY_PHRASE);
    else if (!strcmp(kind, "ws-import-removed") && str(d, "target") && str(d, "module"))
        ph = pgci_asprintf("`%s` from `%s` (line %lld)", str(d, "target"), str(d, "module"),
                           (long long)json_integer_value(json_object_get(d, "line")));
    else if (!strncmp(kind, "method-", 7))
        ph = pgci_asprintf("%s methods", !strcmp(kind, "method-added") ? "added" : "removed");
    return ph;
}

static void add_phrase(change *c, json_t *f)
{
    char *ph = phrase_of(f);
    if (ph && strvec_find(&c->phrases, ph) < 0)
        strvec_push_owned(&c->phrases, ph);
    else
        free(ph);
}

/* The successor a finding names ("likely successor `X`", "most likely successor:
 * `X`"), malloc'ed. */
static char *named_successor(json_t *f)
{
    const char *t = str(f, "title");
    const char *p = t ? strstr(t, "successor") : NULL;
    p = p ? strchr(p, '`') : NULL;
    const char *e = p ? strchr(p + 1, '`') : NULL;
    return e ? pgci_strndup(p + 1, (size_t)(e - p - 1)) : NULL;
}

/* What ruff says of a name a regeneration failure's title lists past its first
 * cause: F811 (upstream now defines it as well), F821 (nothing defines it), or
 * another rule. */
enum { ALSO_REDEFINED = 'r', ALSO_UNDEFINED = 'u', ALSO_OTHER = 'o' };

/* The rule of the cause whose name opens at `o`, from the code before it ("F811
 * `causal_conv1d_fn`", regen_cause_short). */
static char also_rule_at(const char *from, const char *o)
{
    if (o - from < 5 || o[-1] != ' ')
        return ALSO_OTHER;
    if (!strncmp(o - 5, "F811", 4))
        return ALSO_REDEFINED;
    return !strncmp(o - 5, "F821", 4) ? ALSO_UNDEFINED : ALSO_OTHER;
}

/* A regeneration failure's causes past the first, as its title lists them ("...
 * (and 4 more: F811 `causal_conv1d_fn`, F821 `logger`)", regen_finding.c): their
 * names join c->also with their rules, their number c->also_n. Ruff refuses the
 * generated file for each, and the change the first cause names is not the whole
 * of why. */
static void take_other_causes(change *c, json_t *f)
{
    static const char needle[] = " more: ";
    const char *t = str(f, "title"), *p = t ? strstr(t, " (and ") : NULL;
    char *end;
    unsigned long n = p ? strtoul(p + 6, &end, 10) : 0;
    if (!n || strncmp(end, needle, sizeof(needle) - 1))
        return;
    const char *q = end + sizeof(needle) - 1, *from = q, *stop = strchr(q, ')');
    stop = stop ? stop : q + strlen(q);
    while (q < stop) {
        const char *o = memchr(q, '`', (size_t)(stop - q));
        const char *e = o ? memchr(o + 1, '`', (size_t)(stop - o - 1)) : NULL;
        if (!e)
            break;
        char *name = pgci_strndup(o + 1, (size_t)(e - o - 1));
        if (strcmp(name, c->f.symbol) && strvec_find(&c->also, name) < 0) {
            strvec_push_owned(&c->also, name);
            VEC_PUSH(&c->also_rule, also_rule_at(from, o));
        } else {
            free(name);
        }
        q = e + 1;
    }
    if (n > c->also_n)
        c->also_n = n;
    if (str(f, "config") && strvec_find(&c->also_configs, str(f, "config")) < 0)
        strvec_push(&c->also_configs, str(f, "config"));
}

static void change_take(change *c, json_t *f, const fact *x)
{
    json_t *d = json_object_get(f, "data");
    const char *cfg = str(f, "config");
    int sev = severity_parse(str(f, "severity"));
    if (!c->n) {
        c->first = f;
        c->one_target = 1;
        c->how = x->how;
    }
    c->n++;
    if (strcmp(c->f.target, x->target))
        c->one_target = 0;
    if (x->how < c->how)
        c->how = x->how;
    if (sev > c->sev)
        c->sev = sev;
    if (cfg && strvec_find(&c->configs, cfg) < 0)
        strvec_push(&c->configs, cfg);
    const char *kind = str(d, "kind") ? str(d, "kind") : "";
    c->imports |= !strcmp(kind, "import-removed");
    c->defines |= !strcmp(kind, "name-removed");
    if (strcmp(str(f, "check"), "regen")) {
        char *succ = named_successor(f);
        if (!c->successor)
            c->successor = succ;
        else {
            c->successors_differ |= succ && strcmp(succ, c->successor);
            free(succ);
        }
    }
    const char *advice = str(d, "advice");
    if (!c->advice && advice && *advice)
        c->advice = advice;
    if (!strcmp(str(f, "check") ? str(f, "check") : "", "regen"))
        take_other_causes(c, f);
    if (!strcmp(c->f.family, "callee-signature")) {
        c->callee_body |= !strcmp(kind, "callee-body-changed");
        if (!c->shim && !strcmp(kind, "kwarg-deprecated"))
            c->shim = d;
    }
    add_phrase(c, f);
}

static int is_typing_name(const char *n)
{
    static const char *const t[] = {"Optional", "Union", "List", "Dict", "Tuple", "Set", "Type"};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(n, t[i]))
            return 1;
    return 0;
}

/* "the workspace's `f` imports `X` from `m`, which no longer has it", or, for
 * several names (one edit of that file), each with its module and line. */
static void title_of_ws_import(strbuf *t, strbuf *act, const change *c, const char *s)
{
    json_t *d = json_object_get(c->first, "data");
    const char *file = str(d, "file") ? str(d, "file") : "?";
    if (c->phrases.len > 1) {
        strbuf_addf(t,
                    "the workspace's `%s` imports names upstream's modules no longer have: ", file);
        for (size_t i = 0; i < c->phrases.len; i++)
            strbuf_addf(t, "%s%s", i ? (i + 1 == c->phrases.len ? " and " : ", ") : "",
                        c->phrases.items[i]);
        strbuf_adds(t, "; the generated modules that import that file fail at import");
        strbuf_addf(act, "import each from where it moved, or drop it (`%s`)", file);
        return;
    }
    strbuf_addf(t,
                "the workspace's `%s` imports `%s` from `%s`, which no longer has it: the "
                "generated modules that import that file fail at import",
                file, s, str(d, "module") ? str(d, "module") : "?");
    strbuf_addf(act, "import it from where it moved, or drop it (`%s` line %lld)", file,
                (long long)json_integer_value(json_object_get(d, "line")));
}

/* Titles of what breaks: names, targets, classes and attributes that went. 0 when
 * the change is of another family. */
/* Keys of a workspace parallel plan that broke at one segment (plan-key). */
static void title_of_plan_key(strbuf *t, strbuf *act, json_t *d, const char *s)
{
    const char *file = str(d, "file") ? str(d, "file") : "?";
    const char *seg = str(d, "segment") ? str(d, "segment") : "?";
    const char *cls = str(d, "class") ? str(d, "class") : "?";
    const char *holder = str(d, "prefix") && *str(d, "prefix") ? str(d, "prefix") : NULL;
    const char *to = str(d, "moved_to");
    json_int_t line = json_integer_value(json_object_get(d, "line"));
    strbuf_addf(
        t, "the workspace's `%s` shards parameters under `%s`, which no longer exists: ", file, s);
    if (holder)
        strbuf_addf(t, "`%s` (a `%s`) has no `%s`", holder, cls, seg);
    else
        strbuf_addf(t, "the model (a `%s`) has no `%s`", cls, seg);
    if (to)
        strbuf_addf(t, " (now `%s`)", to);
    strbuf_adds(t, ": ParallelPlan.apply leaves them replicated, silently");
    if (to)
        strbuf_addf(act, "rewrite the plan's keys under `%s` to `%s` (`%s` line %lld)", s, to, file,
                    (long long)line);
    else
        strbuf_addf(act,
                    "rewrite the plan's keys to where upstream keeps the parameters now (`%s` "
                    "line %lld)",
                    file, (long long)line);
}

static int title_of_removal(strbuf *t, strbuf *act, const change *c)
{
    const char *fam = c->f.family, *s = c->one_target ? c->f.target : c->f.symbol;
    json_t *d = json_object_get(c->first, "data");
    /* findings that name different successors (what upstream builds at one place
     * and annotates with at another): no one successor is true of the change */
    const char *succ = c->successors_differ ? NULL : c->successor;
    if (!strcmp(fam, "name")) {
        strbuf_addf(t, "`%s` is no longer %s upstream", s,
                    c->imports || !c->defines ? "imported by the modeling module"
                                              : "defined by the modeling module");
        if (succ)
            strbuf_addf(t, "; successor `%s`", succ);
        else if (c->successors_differ)
            strbuf_adds(t, "; its successor differs by place");
        if (is_typing_name(s))
            strbuf_addf(act,
                        "add `from typing import %s` to the config's imports, or write the "
                        "annotations as `X | None`",
                        s);
        else if (succ)
            strbuf_addf(act, "switch the patch bodies to `%s`, after reading its contract", succ);
        else if (c->successors_differ)
            strbuf_adds(act, "switch each use to the successor its finding names, after reading "
                             "its contract");
        else
            strbuf_addf(act,
                        "import `%s` from where upstream keeps it now, or copy it into the "
                        "config as a helper",
                        s);
    } else if (!strcmp(fam, "vanished")) {
        if (succ) {
            strbuf_addf(t, "`%s` became `%s`", s, succ);
            strbuf_addf(act, "retarget the patch to `%s` and port its body", succ);
        } else if (c->advice) {
            strbuf_addf(t, "`%s` vanished upstream", s);
            strbuf_addf(act, "port the patch as upstream's notice says, \"%s\", or drop it",
                        c->advice);
        } else {
            strbuf_addf(t, "`%s` vanished upstream", s);
            strbuf_adds(act, "port the patch to what replaced it, or drop it");
        }
    } else if (!strcmp(fam, "vanished-called")) {
        strbuf_addf(t, "`%s` vanished upstream; the config's own code still calls the override", s);
        if (c->advice)
            strbuf_addf(act,
                        "nothing upstream calls it any more: keep it as the config's own method, "
                        "or port its callers as upstream's notice says, \"%s\"",
                        c->advice);
        else
            strbuf_adds(act, "nothing upstream calls it any more: keep it as the config's own "
                             "method, or port its callers to what replaced it");
    } else if (!strcmp(fam, "unreachable")) {
        strbuf_addf(t, "`%s` is no longer instantiated by name upstream", s);
        strbuf_adds(act, "patch what upstream builds now (the factory's class), or the "
                         "composite model's construction");
    } else if (!strcmp(fam, "auto-built")) {
        const char *b = str(d, "builder") ? str(d, "builder") : "?";
        strbuf_addf(t, "`%s` builds `%s` through `AutoModel` upstream", b, s);
        strbuf_addf(act,
                    "build `%s` by name in an override of `%s.__init__` (upstream's construction "
                    "before the bump), so the generated module's patched classes run there",
                    s, b);
    } else if (!strcmp(fam, "stand-in")) {
        const char *a = str(d, "attribute");
        strbuf_addf(t, "`%s` now reads `self.%s`, which the patches' stand-in for `self` lacks", s,
                    a ? a : "?");
        strbuf_addf(act,
                    "give the stand-in `%s` (a module-level class, to stay picklable), or stop "
                    "running the method on a stand-in",
                    a ? a : "?");
    } else if (!strcmp(fam, "dataclass-field")) {
        const char *fd = str(d, "field") ? str(d, "field") : "?";
        if (json_is_true(json_object_get(d, "renamed")))
            strbuf_addf(t,
                        "`%s=` now arrives as `cache=` in the dataclasses patch bodies build on "
                        "`%s`, which have no such field",
                        fd, s);
        else
            strbuf_addf(t,
                        "`%s` lost the field `%s`, which patch bodies still pass to a dataclass "
                        "built on it",
                        s, fd);
        strbuf_addf(act,
                    "stop passing `%s=`, or declare the field on the dataclass the bodies "
                    "build",
                    fd);
        if (c->advice) /* the field's deprecation in upstream's docstring at A */
            strbuf_addf(act, "; upstream's docstring of the field said: \"%s\"", c->advice);
    } else if (!strcmp(fam, "plan-key")) {
        title_of_plan_key(t, act, d, s);
    } else if (!strcmp(fam, "ws-import")) {
        title_of_ws_import(t, act, c, s);
    } else if (!strcmp(fam, "callee-vanished")) {
        strbuf_addf(t, "`%s` is gone, and patch bodies call it", s);
        if (succ)
            strbuf_addf(t, "; successor `%s`", succ);
        if (c->advice && !succ)
            strbuf_addf(act, "as upstream's notice says, \"%s\", or add the method to the config",
                        c->advice);
        else
            strbuf_adds(act, "call its successor, or add the method to the config");
    } else if (!strcmp(fam, "attr")) {
        const char *a = str(d, "attribute"), *b = str(d, "new_attribute");
        if (b) {
            strbuf_addf(t, "`%s.__init__`: `self.%s` became `self.%s`", s, a, b);
            strbuf_addf(act, "rename `self.%s` to `self.%s` in the patch bodies", a, b);
        } else {
            strbuf_addf(t, "`%s.__init__` no longer sets `self.%s`", s, a ? a : "?");
            strbuf_addf(act, "port the patch bodies off `self.%s`", a ? a : "?");
        }
    } else {
        return 0;
    }
    return 1;
}

/* "what it returns as `a`" / "... as `a` and `b`" of a ["a", "b"] array. */
static void values_named(strbuf *t, json_t *values)
{
    size_t n = json_array_size(values);
    strbuf_adds(t, "what it returns as ");
    for (size_t i = 0; i < n; i++)
        strbuf_addf(t, "%s`%s`", i ? (i + 1 == n ? " and " : ", ") : "",
                    json_string_value(json_array_get(values, i)));
    if (!n)
        strbuf_adds(t, "a value");
}

/* "`Cls.__init__` no longer sets `self.a`, `self.b` and `self.c`", and what to do:
 * port the bodies, or, for a buffer upstream's `__init__` registered (which the
 * patch reads before it may set it), give it a value first. */
static void title_of_attrs_removed(strbuf *t, strbuf *act, const change *c, const char *s)
{
    strbuf_addf(t, "`%s.__init__` no longer sets ", s);
    for (size_t i = 0; i < c->phrases.len; i++)
        strbuf_addf(t, "%s%s", i ? (i + 1 == c->phrases.len ? " and " : ", ") : "",
                    c->phrases.items[i]);
    if (json_is_true(json_object_get(json_object_get(c->first, "data"), "registered")))
        strbuf_adds(act, "give the attribute a value before the patch bodies read it "
                         "(upstream's `__init__` registered it), or port them off it");
    else
        strbuf_adds(act, "port the patch bodies to upstream's new attributes");
}

/* "`f` (called by patch bodies) changed its signature", "and its body" when its
 * body change joined, and the deprecation shim of its renamed argument. */
static void title_of_callee_signature(strbuf *t, strbuf *act, const change *c, const char *s)
{
    strbuf_addf(t, "`%s` (called by patch bodies) changed its signature%s", s,
                c->callee_body ? " and its body" : "");
    if (c->shim) {
        const char *v = str(c->shim, "removal_version");
        strbuf_addf(t, "; `%s` is deprecated for `%s`", str(c->shim, "parameter"),
                    str(c->shim, "new_parameter"));
        if (v)
            strbuf_addf(t, " (removal in %s)", v);
    }
    strbuf_adds(act, "update the calls to the new signature");
}

/* Titles of contract changes, deprecations and notes. */
static void title_of_contract(strbuf *t, strbuf *act, const change *c)
{
    const char *fam = c->f.family, *s = c->one_target ? c->f.target : c->f.symbol;
    json_t *d = json_object_get(c->first, "data");
    int body = 0;
    size_t n = 0;
    if (!strcmp(fam, "signature") || !strcmp(fam, "body"))
        n = signature_phrases(c, &body);
    if (!strcmp(change_kind(c), "signature")) {
        /* the body's phrase last: "dropped `a`, gained `b` and changed its body" */
        strbuf_addf(t, "`%s` ", s);
        size_t k = 0, all = n + (size_t)body;
        for (size_t i = 0; i < c->phrases.len; i++)
            if (strcmp(c->phrases.items[i], BODY_PHRASE))
                strbuf_addf(t, "%s%s", k++ ? (k == all ? " and " : ", ") : "", c->phrases.items[i]);
        if (body)
            strbuf_addf(t, "%s%s", k ? " and " : "", BODY_PHRASE);
        if (!all)
            strbuf_adds(t, "changed");
        strbuf_adds(act, "update the override's signature and calls to the new one");
        if (body)
            strbuf_adds(act, "; read the upstream diff and port what applies into the override");
    } else if (!strcmp(fam, "body") || !strcmp(fam, "signature")) {
        strbuf_addf(t, "`%s`: the upstream body changed under the override", s);
        strbuf_adds(act, "read the upstream diff and port what applies into the override");
    } else if (!strcmp(fam, "replaced-body")) {
        json_t *ms = json_object_get(d, "methods");
        size_t m = json_array_size(ms);
        strbuf_addf(t, "`%s` changed under the replacement: ", s);
        for (size_t i = 0; i < m; i++)
            strbuf_addf(t, "%s`%s`", i ? (i + 1 == m ? " and " : ", ") : "",
                        json_string_value(json_array_get(ms, i)));
        strbuf_adds(t, m == 1 ? " changed its body" : " changed their bodies");
        strbuf_adds(act, "read the upstream diffs and port what applies into the replacement");
    } else if (!strcmp(fam, "return-count")) {
        strbuf_addf(t, "`%s` now returns `%s` where it returned `%s`", s,
                    str(d, "returns") ? str(d, "returns") : "?",
                    str(d, "returned") ? str(d, "returned") : "?");
        strbuf_adds(act, "upstream's callers are written for what it returns now: make the "
                         "override return the same, or keep the old shape where every caller "
                         "that unpacks it is patched too");
    } else if (!strcmp(fam, "return-value") || !strcmp(fam, "callee-value")) {
        strbuf_addf(t, "`%s`%s computes ", s,
                    !strcmp(fam, "callee-value") ? " (called by patch bodies)" : "");
        values_named(t, json_object_get(d, "values"));
        strbuf_adds(t, " by other steps");
        strbuf_adds(act, !strcmp(fam, "return-value")
                             ? "read the steps: the override returns what upstream's callers "
                               "took before; port the change into it, or keep it on purpose"
                             : "read the steps: check what the bodies do with that value now");
    } else if (!strcmp(fam, "callee-signature")) {
        title_of_callee_signature(t, act, c, s);
    } else if (!strcmp(fam, "callee-return")) {
        strbuf_addf(t, "`%s` (called by patch bodies) returns something else", s);
        strbuf_adds(act, "update how the bodies use its result");
    } else if (!strcmp(fam, "callee-inherited")) {
        const char *from = str(d, "inherited_from");
        strbuf_addf(t, "`%s` (called by patch bodies) is now inherited from `%s`", s,
                    from ? from : "?");
    } else if (!strcmp(fam, "callee-body")) {
        strbuf_addf(t, "`%s` (called by patch bodies) changed its body", s);
    } else if (!strcmp(fam, "deprecation")) {
        const char *p = str(d, "parameter"), *v = str(d, "removal_version");
        if (p)
            strbuf_addf(t, "`%s`: argument `%s` is deprecated", s, p);
        else
            strbuf_addf(t, "`%s` is deprecated upstream", s);
        if (v)
            strbuf_addf(t, " (removal in %s)", v);
        strbuf_adds(act, "move the patches off it before it is removed");
    } else if (!strcmp(fam, "auto-docstring") && cause_is(d, "table")) {
        strbuf_addf(t,
                    "auto_docstring.py's `%s` no longer documents `%s`: the `@auto_docstring` "
                    "overrides that take it leave it undocumented",
                    str(d, "table"), s);
        strbuf_adds(act, "document it in the overrides' docstrings, or drop it from them");
    } else if (!strcmp(fam, "auto-docstring") && cause_is(d, "decorated")) {
        strbuf_addf(t,
                    "`%s` became `@auto_docstring`: the overrides' docstrings leave arguments "
                    "undocumented",
                    s);
        strbuf_adds(act, "document those arguments in the override's docstring");
    } else if (!strcmp(fam, "auto-docstring")) {
        strbuf_addf(t,
                    "`%s` is `@auto_docstring`: the override's new arguments lack `Args:` "
                    "docs",
                    s);
        strbuf_adds(act, "document the new arguments in the override's docstring");
    } else if (!strcmp(fam, "redefined")) {
        strbuf_addf(t, "`%s` is now defined upstream as well as by the config", s);
        strbuf_adds(act, "drop the config's copy, or exclude upstream's from the output");
    } else if (!strcmp(fam, "inherited")) {
        strbuf_addf(t,
                    "`%s` now tells classes by their module: the generated classes live "
                    "outside `transformers.`",
                    s);
        strbuf_adds(act, "read the base method and check the generated classes still take "
                         "upstream's path");
    } else if (!strcmp(fam, "attrs-removed")) {
        title_of_attrs_removed(t, act, c, s);
    } else if (!strcmp(fam, "kernel-forward")) {
        strbuf_addf(t,
                    "`%s` became replaceable by a hub kernel: with `use_kernels=True` its "
                    "overridden `forward` can be bypassed",
                    s);
        strbuf_adds(act, "keep kernels off for these models, or check that the hub layer does "
                         "what the override does");
    } else if (!strcmp(fam, "attrs-added")) {
        strbuf_addf(t, "`%s.__init__` sets new attributes", s);
    } else if (!strcmp(fam, "appeared")) {
        strbuf_addf(t, "`%s` appeared upstream", s);
    } else if (!strcmp(fam, "regen")) {
        strbuf_addf(t, "`%s` fails to regenerate", s);
    } else {
        strbuf_adds(t, str(c->first, "title"));
    }
}

/* The causes of the change's regeneration failures past the one its title names,
 * by what ruff says of them: "; upstream now defines `a` too; `b`, `c` and `d` are
 * undefined" (F811, F821; any other rule "ruff also flags `e`"), four named at most
 * ("ruff also flags 2 more causes" past them), "in 2 configs, ..." when not every
 * config it hits fails on them. */
#define ALSO_NAMED 4

/* The names of the first `named` causes whose rule is `rule`, "`a`, `b` and `c`"
 * (", `c`" when `then` more follow); how many. */
static size_t also_names(strbuf *t, const change *c, size_t named, char rule, int then)
{
    size_t k = 0, n = 0;
    for (size_t i = 0; i < named; i++)
        n += c->also_rule.items[i] == rule;
    for (size_t i = 0; i < named; i++) {
        if (c->also_rule.items[i] != rule)
            continue;
        strbuf_addf(t, "%s`%s`", !k ? "" : k + 1 == n && !then ? " and " : ", ", c->also.items[i]);
        k++;
    }
    return n;
}

static void title_other_causes(strbuf *t, const change *c)
{
    if (!c->also_n)
        return;
    size_t named = c->also.len < ALSO_NAMED ? c->also.len : ALSO_NAMED;
    size_t rest = c->also_n > named ? c->also_n - named : 0;
    size_t n[3] = {0, 0, 0};
    for (size_t i = 0; i < named; i++)
        n[c->also_rule.items[i] == ALSO_REDEFINED   ? 0
          : c->also_rule.items[i] == ALSO_UNDEFINED ? 1
                                                    : 2]++;
    strbuf_adds(t, "; ");
    if (c->also_configs.len < c->configs.len)
        strbuf_addf(t, "in %zu %s, ", c->also_configs.len,
                    c->also_configs.len == 1 ? "config" : "configs");
    if (n[0]) {
        strbuf_adds(t, "upstream now defines ");
        also_names(t, c, named, ALSO_REDEFINED, 0);
        strbuf_adds(t, " too");
    }
    if (n[1]) {
        strbuf_adds(t, n[0] ? "; " : "");
        strbuf_adds(t, also_names(t, c, named, ALSO_UNDEFINED, 0) == 1 ? " is undefined"
                                                                       : " are undefined");
    }
    if (n[2] || rest) { /* the causes past those named join ruff's other rules */
        strbuf_adds(t, n[0] || n[1] ? "; ruff also flags " : "ruff also flags ");
        also_names(t, c, named, ALSO_OTHER, rest > 0);
        if (rest)
            strbuf_addf(t, "%s%zu more %s", n[2] ? " and " : "", rest,
                        rest == 1 ? "cause" : "causes");
    }
}

static void title_of(strbuf *t, strbuf *act, const change *c)
{
    if (!title_of_removal(t, act, c))
        title_of_contract(t, act, c);
    title_other_causes(t, c);
}

static char *slug(const char *key, strvec *taken)
{
    strbuf s = STRBUF_INIT;
    for (const char *p = key; *p; p++) {
        char ch = (char)tolower((unsigned char)*p);
        if (isalnum((unsigned char)ch))
            strbuf_addc(&s, ch);
        else if (s.len && s.buf[s.len - 1] != '-')
            strbuf_addc(&s, '-');
    }
    while (s.len && s.buf[s.len - 1] == '-')
        s.buf[--s.len] = '\0';
    strbuf id = STRBUF_INIT;
    strbuf_adds(&id, s.buf);
    for (int k = 2; strvec_find(taken, id.buf) >= 0; k++) {
        strbuf_reset(&id);
        strbuf_addf(&id, "%s-%d", s.buf, k);
    }
    strvec_push(taken, id.buf);
    strbuf_free(&s);
    return strbuf_detach(&id, NULL);
}

static int cmp_change(const void *pa, const void *pb)
{
    const change *a = *(const change *const *)pa, *b = *(const change *const *)pb;
    if (a->how != b->how)
        return a->how < b->how ? -1 : 1;
    if (a->sev != b->sev)
        return a->sev > b->sev ? -1 : 1;
    if (a->configs.len != b->configs.len)
        return a->configs.len > b->configs.len ? -1 : 1;
    return strcmp(a->f.key, b->f.key);
}

static json_t *change_json(const change *c, const char *id)
{
    strbuf t = STRBUF_INIT, act = STRBUF_INIT;
    title_of(&t, &act, c);
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(id));
    json_object_set_new(o, "title", json_string(t.buf));
    json_object_set_new(o, "kind", json_string(change_kind(c)));
    json_object_set_new(o, "how", json_string(change_how_name(c->how)));
    json_object_set_new(o, "severity", json_string(severity_name((severity)c->sev)));
    json_object_set_new(o, "symbol", json_string(c->one_target ? c->f.target : c->f.symbol));
    json_t *cfgs = json_array();
    for (size_t i = 0; i < c->configs.len; i++)
        json_array_append_new(cfgs, json_string(c->configs.items[i]));
    json_object_set_new(o, "configs", cfgs);
    json_object_set_new(o, "findings", json_integer((json_int_t)c->n));
    json_object_set_new(o, "action", act.len ? json_string(act.buf) : json_null());
    strbuf_free(&t);
    strbuf_free(&act);
    return o;
}

int changes_target_count_kind(const char *check, const char *kind)
{
    if (!kind || !check)
        return 0;
    if (!strcmp(kind, "vanished") || !strcmp(kind, "vanished-called") ||
        !strcmp(kind, "missing-target"))
        return 1;
    return !strcmp(check, "signatures") && strcmp(kind, "appeared") &&
                   strcmp(kind, "import-removed") && strcmp(kind, "body-changed") &&
                   strcmp(kind, "replaced-body-changed")
               ? 2
               : 0;
}

/* "config|target" of the findings of change k, each once, sorted */
static void change_sites(strvec *out, json_t *fs, const size_t *of, size_t k)
{
    for (size_t i = 0; i < json_array_size(fs); i++) {
        if (of[i] != k)
            continue;
        json_t *f = json_array_get(fs, i);
        const char *cfg = str(f, "config"), *t = str(json_object_get(f, "data"), "target");
        char *site = pgci_asprintf("%s|%s", cfg ? cfg : "", t ? t : "");
        if (strvec_find(out, site) < 0)
            strvec_push_owned(out, site);
        else
            free(site);
    }
    strvec_sort(out);
}

static void change_free(change *c)
{
    fact_free(&c->f);
    strvec_free(&c->configs);
    strvec_free(&c->phrases);
    strvec_free(&c->also);
    VEC_FREE(&c->also_rule);
    strvec_free(&c->also_configs);
    free(c->successor);
    free(c);
}

/* Finding i joins change *dst, made from its fact when empty. */
static void take_into(change **dst, json_t *f)
{
    fact x;
    classify(f, &x);
    if (!*dst) {
        *dst = pgci_calloc(1, sizeof(change));
        (*dst)->f = x;
        change_take(*dst, f, &(*dst)->f);
    } else {
        change_take(*dst, f, &x);
        fact_free(&x);
    }
}

/* A signature change over several models' copies of a method (`*Indexer.forward`)
 * whose copies changed differently is one change per way they changed: a title
 * that lists the union ("renamed `past_key_values` → `cache`, ..., gained
 * `cache`") says of each copy what only another did. Targets are grouped by the
 * set of phrases their findings give; new changes go to the end of cs. Returns
 * the number of changes. */
static size_t split_signatures(json_t *fs, change **cs, size_t n, size_t *of)
{
    size_t nf = json_array_size(fs), n0 = n;
    for (size_t k = 0; k < n0; k++) {
        if (strcmp(cs[k]->f.family, "signature") || cs[k]->one_target)
            continue;
        strvec targets = STRVEC_INIT, sets = STRVEC_INIT, distinct = STRVEC_INIT;
        strvec *phrases = pgci_calloc(nf ? nf : 1, sizeof(strvec));
        for (size_t i = 0; i < nf; i++) {
            if (of[i] != k)
                continue;
            json_t *f = json_array_get(fs, i);
            const char *t = str(json_object_get(f, "data"), "target");
            long at = strvec_find(&targets, t ? t : "");
            if (at < 0) {
                strvec_push(&targets, t ? t : "");
                at = (long)targets.len - 1;
            }
            char *ph = phrase_of(f);
            if (ph && strvec_find(&phrases[at], ph) < 0)
                strvec_push_owned(&phrases[at], ph);
            else
                free(ph);
        }
        for (size_t t = 0; t < targets.len; t++) {
            strvec_sort(&phrases[t]);
            strbuf set = STRBUF_INIT;
            for (size_t j = 0; j < phrases[t].len; j++)
                strbuf_addf(&set, "%s|", phrases[t].items[j]);
            strvec_push(&sets, set.buf);
            if (strvec_find(&distinct, set.buf) < 0)
                strvec_push(&distinct, set.buf);
            strbuf_free(&set);
        }
        if (distinct.len > 1) {
            change **into = pgci_calloc(distinct.len, sizeof(change *));
            size_t *slot = pgci_calloc(distinct.len, sizeof(size_t));
            for (size_t g = 0; g < distinct.len; g++)
                slot[g] = g ? n++ : k;
            for (size_t i = 0; i < nf; i++) {
                if (of[i] != k)
                    continue;
                json_t *f = json_array_get(fs, i);
                const char *t = str(json_object_get(f, "data"), "target");
                long g = strvec_find(&distinct, sets.items[strvec_find(&targets, t ? t : "")]);
                take_into(&into[g], f);
                of[i] = slot[g];
            }
            change_free(cs[k]);
            for (size_t g = 0; g < distinct.len; g++)
                cs[slot[g]] = into[g];
            free(into);
            free(slot);
        }
        for (size_t t = 0; t < targets.len; t++)
            strvec_free(&phrases[t]);
        free(phrases);
        strvec_free(&targets);
        strvec_free(&sets);
        strvec_free(&distinct);
    }
    return n;
}

/* "config|target" of finding f, malloc'ed. */
static char *site_of(json_t *f)
{
    const char *cfg = str(f, "config"), *t = str(json_object_get(f, "data"), "target");
    return pgci_asprintf("%s|%s", cfg ? cfg : "", t ? t : "");
}

/* Whether every site of sub is one of sup's. */
static int sites_within(const strvec *sub, const strvec *sup)
{
    for (size_t i = 0; i < sub->len; i++)
        if (strvec_find(sup, sub->items[i]) < 0)
            return 0;
    return sub->len > 0;
}

/* A body change over several models' copies of a method whose signatures changed
 * differently (split_signatures) covers the sites of more than one signature
 * change: its findings on all the methods of one of them are a part of its own,
 * which join_bodies then joins to it ("renamed `past_key_values` → `cache` and
 * changed its body", true of each method there); the findings on no such whole
 * signature change stay the body change. New changes go to the end of cs. Returns
 * the number of changes. */
static size_t split_bodies(json_t *fs, change **cs, size_t n, size_t *of)
{
    size_t nf = json_array_size(fs), n0 = n;
    strvec *sites = pgci_calloc(n0 ? n0 : 1, sizeof(strvec));
    for (size_t k = 0; k < n0; k++)
        change_sites(&sites[k], fs, of, k);
    size_t *group = pgci_calloc(nf ? nf : 1, sizeof(size_t));
    for (size_t k = 0; k < n0; k++) {
        if (strcmp(cs[k]->f.family, "body"))
            continue;
        /* each finding's group: the signature change whose sites hold its site, or
         * k (the rest) */
        size_t parts = 0;
        for (size_t i = 0; i < nf; i++) {
            if (of[i] != k)
                continue;
            group[i] = k;
            char *site = site_of(json_array_get(fs, i));
            for (size_t j = 0; j < n0; j++)
                if (j != k && !strcmp(cs[j]->f.family, "signature") &&
                    !strcmp(cs[j]->f.symbol, cs[k]->f.symbol) && sites[j].len < sites[k].len &&
                    sites_within(&sites[j], &sites[k]) && strvec_find(&sites[j], site) >= 0) {
                    group[i] = j;
                    parts++;
                    break;
                }
            free(site);
        }
        if (!parts)
            continue;
        change *rest = NULL;
        for (size_t j = 0; j <= n0; j++) { /* j == n0: the rest */
            size_t g = j < n0 ? j : k;
            if (j == k)
                continue;
            change *part = NULL;
            for (size_t i = 0; i < nf; i++)
                if (of[i] == k && group[i] == g)
                    take_into(j < n0 ? &part : &rest, json_array_get(fs, i));
            if (!part)
                continue;
            cs[n] = part;
            for (size_t i = 0; i < nf; i++)
                if (of[i] == k && group[i] == g)
                    of[i] = n;
            n++;
        }
        change_free(cs[k]);
        cs[k] = rest;
        if (!rest) { /* every finding went into a part: the last part takes k's slot */
            cs[k] = cs[--n];
            for (size_t i = 0; i < nf; i++)
                if (of[i] == n)
                    of[i] = k;
        }
    }
    for (size_t k = 0; k < n0; k++)
        strvec_free(&sites[k]);
    free(sites);
    free(group);
    return n;
}

/* Whether parameter `name` is in a rendered signature ("f(self, a: int, b=1)"). */
static int sig_has_param(const char *sig, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = sig ? strstr(sig, name) : NULL; n && p; p = strstr(p + 1, name))
        if (p > sig && (p[-1] == '(' || p[-1] == ' ' || p[-1] == '*') && p[n] &&
            strchr(":=,)", p[n]))
            return 1;
    return 0;
}

/* Whether change k joins signature change j, their findings on the same targets
 * (sites): a body change joins the signature change of its method (one upstream
 * edit); a callee's body change, and a note that an argument of the callee is
 * deprecated for a new name the signature change shows (`@deprecate_kwarg`, its
 * removal past B), join the callee's signature change: the rename, its shim and
 * the body that reads the new name are one edit, which the note gives as one
 * change (`compute_3d_position_ids` at 5.24.0: one warning and two notes each). */
static int joins(const change *k, const change *j)
{
    if (strcmp(j->f.symbol, k->f.symbol))
        return 0;
    if (!strcmp(k->f.family, "body"))
        return !strcmp(j->f.family, "signature");
    if (strcmp(j->f.family, "callee-signature"))
        return 0;
    if (!strcmp(k->f.family, "callee-body"))
        return 1;
    json_t *d = json_object_get(k->first, "data"), *sd = json_object_get(j->first, "data");
    const char *p = str(d, "parameter"), *np = str(d, "new_parameter");
    return !strcmp(k->f.family, "deprecation") && k->how == CHANGE_OTHER && p && np &&
           sig_has_param(str(sd, "old_signature"), p) &&
           !sig_has_param(str(sd, "new_signature"), p) &&
           sig_has_param(str(sd, "new_signature"), np);
}

/* A change joins another whose findings are on exactly its targets (same configs,
 * same methods) where joins() says they are one upstream edit ("dropped `a` and
 * changed its body"). Where the sets differ, a joint title would claim of some
 * methods what only others did: they stay apart. Returns the number of changes
 * left, cs compacted and of remapped. */
static size_t join_bodies(json_t *fs, change **cs, size_t n, size_t *of)
{
    size_t nf = json_array_size(fs);
    strvec *sites = pgci_calloc(n ? n : 1, sizeof(strvec));
    for (size_t k = 0; k < n; k++)
        change_sites(&sites[k], fs, of, k);
    size_t *into = pgci_calloc(n ? n : 1, sizeof(size_t));
    for (size_t k = 0; k < n; k++) {
        into[k] = k;
        for (size_t j = 0; j < n; j++) {
            if (j == k || !joins(cs[k], cs[j]) || !strvec_equal(&sites[j], &sites[k]))
                continue;
            into[k] = j;
            for (size_t i = 0; i < nf; i++) {
                if (of[i] != k)
                    continue;
                fact x;
                classify(json_array_get(fs, i), &x);
                change_take(cs[j], json_array_get(fs, i), &x);
                fact_free(&x);
            }
            break;
        }
    }
    size_t *at = pgci_calloc(n ? n : 1, sizeof(size_t)), m = 0;
    for (size_t k = 0; k < n; k++) {
        if (into[k] == k) {
            at[k] = m;
            cs[m++] = cs[k];
        } else {
            change_free(cs[k]);
        }
    }
    for (size_t i = 0; i < nf; i++)
        of[i] = at[into[of[i]]];
    for (size_t k = 0; k < n; k++)
        strvec_free(&sites[k]);
    free(sites);
    free(into);
    free(at);
    return m;
}

json_t *changes_group(json_t *fs)
{
    size_t nf = json_array_size(fs), n = 0;
    change **cs = pgci_calloc(nf ? nf : 1, sizeof(*cs));
    size_t *of = pgci_calloc(nf ? nf : 1, sizeof(size_t)); /* finding -> change */
    /* definitions and imports first, so a regen failure joins their change */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nf; i++) {
            json_t *f = json_array_get(fs, i);
            if ((pass == 0) == !strcmp(str(f, "check") ? str(f, "check") : "", "regen"))
                continue;
            fact x;
            classify(f, &x);
            size_t k = 0;
            while (k < n && strcmp(cs[k]->f.key, x.key))
                k++;
            if (k == n) {
                cs[n] = pgci_calloc(1, sizeof(change));
                cs[n++]->f = x; /* the change owns its first fact */
                change_take(cs[k], f, &cs[k]->f);
            } else {
                change_take(cs[k], f, &x);
                fact_free(&x);
            }
            of[i] = k;
        }
    n = split_signatures(fs, cs, n, of);
    n = split_bodies(fs, cs, n, of);
    n = join_bodies(fs, cs, n, of);
    strvec taken = STRVEC_INIT;
    char **ids = pgci_calloc(n ? n : 1, sizeof(char *));
    for (size_t k = 0; k < n; k++)
        ids[k] = slug(cs[k]->f.key, &taken);
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(fs, i);
        if (!json_is_object(json_object_get(f, "data")))
            json_object_set_new(f, "data", json_object());
        json_object_set_new(json_object_get(f, "data"), "change", json_string(ids[of[i]]));
    }
    change **sorted = pgci_calloc(n ? n : 1, sizeof(*sorted));
    memcpy(sorted, cs, n * sizeof(*cs));
    qsort(sorted, n, sizeof(*sorted), cmp_change);
    json_t *out = json_array();
    for (size_t k = 0; k < n; k++) {
        size_t at = 0;
        while (cs[at] != sorted[k])
            at++;
        json_array_append_new(out, change_json(sorted[k], ids[at]));
    }
    for (size_t k = 0; k < n; k++) {
        change_free(cs[k]);
        free(ids[k]);
    }
    free(ids);
    free(sorted);
    free(cs);
    free(of);
    strvec_free(&taken);
    return out;
}
