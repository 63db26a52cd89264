/*
 * plan_values.c - what a value assigned to `self.<attr>` holds, for the classes
 * of plan_classes.h: a class of the module, a list of one, a parameter, a torch
 * leaf module with the parameters its constructor call gives it, an activation,
 * data, or unknown. The value is folded text (plan_fold); nothing is evaluated.
 *
 * nn.Module.__setattr__ registers a value only when it is a Module or a Parameter:
 * a number, a string, a config's field, a list or a tuple (even of modules) holds
 * no parameter of the model. "Data" is what is certainly that: literals,
 * displays, the `config` the def takes and what is read from it, the def's
 * parameters that are annotated as scalars or default to a literal, attributes
 * the same def set to data before, and arithmetic, comparisons, subscripts and
 * plain builtins over those. A bare parameter of any other kind may be a module
 * the caller passes in: unknown.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/plan_classes.h"
#include "checks/source_text.h"

/* ---- torch leaf modules -------------------------------------------------------------- */

/* An argument that turns a parameter off when false: its keyword and position. */
typedef struct leaf_switch {
    const char *kw;
    int pos;
} leaf_switch;

typedef struct leaf_def {
    const char *name; /* "nn.Linear" */
    const char *const *params;
    unsigned n;
    leaf_switch sw[2][2]; /* each parameter's switches, all of which must be on */
} leaf_def;

static const char *const weight_bias[] = {"weight", "bias"};

#define ALWAYS                                                                                     \
    {                                                                                              \
        NULL, -1                                                                                   \
    }
#define CONV(n)                                                                                    \
    {                                                                                              \
        n, weight_bias, 2,                                                                         \
        {                                                                                          \
            {ALWAYS, ALWAYS},                                                                      \
            {                                                                                      \
                {"bias", 7}, ALWAYS                                                                \
            }                                                                                      \
        }                                                                                          \
    }
#define FREE(n)                                                                                    \
    {                                                                                              \
        n, NULL, 0,                                                                                \
        {                                                                                          \
            {ALWAYS, ALWAYS},                                                                      \
            {                                                                                      \
                ALWAYS, ALWAYS                                                                     \
            }                                                                                      \
        }                                                                                          \
    }

/* torch.nn's constructors (torch 2.x signatures): the parameters each registers. */
static const leaf_def leaf_defs[] = {
    {"nn.Linear", weight_bias, 2, {{ALWAYS, ALWAYS}, {{"bias", 2}, ALWAYS}}},
    {"nn.Bilinear", weight_bias, 2, {{ALWAYS, ALWAYS}, {{"bias", 3}, ALWAYS}}},
    {"nn.Embedding", weight_bias, 1, {{ALWAYS, ALWAYS}, {ALWAYS, ALWAYS}}},
    {"nn.LayerNorm",
     weight_bias,
     2,
     {{{"elementwise_affine", 2}, ALWAYS}, {{"elementwise_affine", 2}, {"bias", 3}}}},
    {"nn.RMSNorm", weight_bias, 1, {{{"elementwise_affine", 2}, ALWAYS}, {ALWAYS, ALWAYS}}},
    {"nn.GroupNorm", weight_bias, 2, {{{"affine", 3}, ALWAYS}, {{"affine", 3}, ALWAYS}}},
    CONV("nn.Conv1d"),
    CONV("nn.Conv2d"),
    CONV("nn.Conv3d"),
    CONV("nn.ConvTranspose1d"),
    CONV("nn.ConvTranspose2d"),
    CONV("nn.ConvTranspose3d"),
    FREE("nn.Identity"),
    FREE("nn.Dropout"),
    FREE("nn.SiLU"),
    FREE("nn.GELU"),
    FREE("nn.ReLU"),
    FREE("nn.Tanh"),
    FREE("nn.Sigmoid"),
    FREE("nn.Softmax"),
};

/* The top-level arguments of the call whose '(' is at o and ')' at c, each
 * trimmed, into out; 1 when one is `*x` or `**x`. */
static int call_args(const char *o, const char *c, strvec *out)
{
    int depth = 0, splat = 0;
    const char *s = o + 1;
    for (const char *q = o + 1; q <= c; q++) {
        if (*q == '"' || *q == '\'') {
            q = source_string_end(q, c) - 1;
            continue;
        }
        if (*q == '(' || *q == '[' || *q == '{')
            depth++;
        else if ((*q == ')' || *q == ']' || *q == '}') && q < c)
            depth--;
        if ((*q == ',' && !depth) || q == c) {
            while (s < q && *s == ' ')
                s++;
            const char *t = q;
            while (t > s && t[-1] == ' ')
                t--;
            if (t > s) {
                strvec_pushn(out, s, (size_t)(t - s));
                splat |= *s == '*';
            }
            s = q + 1;
        }
    }
    return splat;
}

/* The length of the keyword of the argument a (`bias=False`: 4), 0 when it is
 * positional. */
static size_t keyword_of(const char *a)
{
    size_t k = 0;
    while (plan_ident_char(a[k]))
        k++;
    return k && !isdigit((unsigned char)*a) && a[k] == '=' && a[k + 1] != '=' ? k : 0;
}

/* 1 when the switch is certainly on, 0 certainly off, -1 cannot tell. */
static int switch_on(const leaf_switch *sw, const strvec *args, int splat)
{
    if (!sw->kw)
        return 1;
    int positional = 0;
    const char *v = NULL;
    for (size_t i = 0; i < args->len && !v; i++) {
        const char *a = args->items[i];
        size_t k = keyword_of(a);
        if (k && k == strlen(sw->kw) && !strncmp(a, sw->kw, k))
            v = a + k + 1;
        else if (!k && *a != '*' && positional++ == sw->pos)
            v = a;
    }
    if (!v)
        return splat ? -1 : 1;
    return !strcmp(v, "True") ? 1 : !strcmp(v, "False") ? 0 : -1;
}

/* `nn.X(...)` or `torch.nn.X(...)`, the whole of [v, e), of a known leaf: 1 and *l. */
static int leaf_call(const char *v, const char *e, plan_leaf *l)
{
    const char *w = !strncmp(v, "torch.nn.", 9) ? v + 9 : !strncmp(v, "nn.", 3) ? v + 3 : NULL;
    if (!w)
        return 0;
    for (size_t i = 0; i < sizeof(leaf_defs) / sizeof(*leaf_defs); i++) {
        const leaf_def *d = &leaf_defs[i];
        size_t n = strlen(d->name) - 3;
        if (strncmp(w, d->name + 3, n) || w[n] != '(' || plan_close_paren(w + n, e) != e - 1)
            continue;
        strvec args = STRVEC_INIT;
        int splat = call_args(w + n, e - 1, &args);
        *l = (plan_leaf){d->name, d->params, 0, 0, 0};
        for (unsigned k = 0; k < d->n; k++) {
            int a = switch_on(&d->sw[k][0], &args, splat);
            int b = switch_on(&d->sw[k][1], &args, splat);
            if (a && b)
                l->may |= 1u << k;
            if (a == 1 && b == 1)
                l->must |= 1u << k;
        }
        strvec_free(&args);
        return 1;
    }
    return 0;
}

static int leaf_has(const plan_leaf *l, unsigned bits, const char *name)
{
    for (unsigned k = 0; l->names && k < 2; k++)
        if ((bits >> k & 1) && !strcmp(l->names[k], name))
            return 1;
    return 0;
}

int plan_leaf_must(const plan_leaf *l, const char *name)
{
    return leaf_has(l, l->must, name);
}

int plan_leaf_may(const plan_leaf *l, const char *name)
{
    return l->any || leaf_has(l, l->may, name);
}

/* ---- data ------------------------------------------------------------------------------ */

/* The def's parameter name: 1 when it is `config`, annotated with scalar types
 * only, or defaults to a number, a string or a bool; 0 when it is another or none. */
static int scalar_param(const char *sig, size_t n, const char *name)
{
    const char *o = memchr(sig, '(', n);
    const char *c = o ? plan_close_paren(o, sig + n) : NULL;
    strvec args = STRVEC_INIT;
    int ok = 0;
    if (c)
        call_args(o, c, &args);
    static const char *const scalar[] = {"int",   "float", "bool",  "str",     "None",
                                         "Union", "list",  "tuple", "Optional"};
    for (size_t i = 0; i < args.len; i++) {
        const char *a = args.items[i];
        size_t k = 0;
        while (plan_ident_char(a[k]))
            k++;
        if (k != strlen(name) || strncmp(a, name, k))
            continue;
        if (!strcmp(name, "config")) {
            ok = 1;
            break;
        }
        const char *q = a + k, *eq = strchr(q, '=');
        if (*q == ':') { /* every name in the annotation a scalar type */
            ok = 1;
            for (q++; *q && q != eq && ok;) {
                if (!plan_ident_char(*q)) {
                    q++;
                    continue;
                }
                const char *s = q;
                while (plan_ident_char(*q))
                    q++;
                int known = 0;
                for (size_t j = 0; j < sizeof(scalar) / sizeof(*scalar); j++)
                    known |= strlen(scalar[j]) == (size_t)(q - s) &&
                             !strncmp(s, scalar[j], (size_t)(q - s));
                ok = known;
            }
        } else if (eq) { /* unannotated: a literal default */
            const char *d = eq + 1;
            while (*d == ' ')
                d++;
            ok = isdigit((unsigned char)*d) || *d == '-' || *d == '"' || *d == '\'' ||
                 !strcmp(d, "True") || !strcmp(d, "False");
        }
        break;
    }
    strvec_free(&args);
    return ok;
}

typedef struct data_ctx {
    const char *sig; /* the def's header */
    size_t sig_len;
    const plan_asgs *prior;
} data_ctx;

/* 1 when every assignment to `self.<name>` read before is data. */
static int prior_data(const data_ctx *x, const char *name, size_t n)
{
    int any = 0;
    for (size_t i = 0; x->prior && i < x->prior->len; i++) {
        const plan_asg *a = &x->prior->items[i];
        if (strlen(a->attr) != n || strncmp(a->attr, name, n))
            continue;
        if (a->kind != PLAN_V_DATA)
            return 0;
        any = 1;
    }
    return any;
}

static int word_in(const char *s, size_t n, const char *const *words, size_t nw)
{
    for (size_t i = 0; i < nw; i++)
        if (strlen(words[i]) == n && !strncmp(s, words[i], n))
            return 1;
    return 0;
}

/* A root name of a data expression at s (n chars, followed by the text at q). */
static int data_root(const data_ctx *x, const char *s, size_t n, const char **q)
{
    static const char *const ok[] = {
        "if",   "else",   "not",   "and",     "or",         "in",   "is",    "None",
        "True", "False",  "int",   "float",   "bool",       "str",  "len",   "min",
        "max",  "round",  "abs",   "hasattr", "isinstance", "list", "tuple", "dict",
        "set",  "sorted", "range", "sum",     "any",        "all",  "math"};
    if (word_in(s, n, ok, sizeof(ok) / sizeof(*ok)))
        return 1;
    if (n == 7 && !strncmp(s, "getattr", 7)) /* only of the config */
        return !strncmp(*q, "(config,", 8) || !strncmp(*q, "(self.config,", 13);
    if (n == 4 && !strncmp(s, "self", 4)) {
        if (**q != '.')
            return 0;
        const char *a = *q + 1, *b = a;
        while (plan_ident_char(*b))
            b++;
        *q = b;
        return ((size_t)(b - a) == 6 && !strncmp(a, "config", 6)) ||
               prior_data(x, a, (size_t)(b - a));
    }
    char *name = pgci_strndup(s, n);
    int r = x->sig && scalar_param(x->sig, x->sig_len, name);
    free(name);
    return r;
}

/* 1 when the folded value [v, e) is certainly data (see the top of the file). */
static int data_value(const data_ctx *x, const char *v, const char *e)
{
    if ((*v == '[' || *v == '{') && plan_close_paren(v, e) == e - 1)
        return 1; /* a list, dict or set display, or comprehension */
    if (!strncmp(v, "nn.Buffer(", 10) || !strncmp(v, "torch.nn.Buffer(", 16))
        return plan_close_paren(strchr(v, '('), e) == e - 1;
    for (const char *q = v; q < e;) {
        if (*q == '"' || *q == '\'') {
            q = source_string_end(q, e);
        } else if (isdigit((unsigned char)*q)) {
            while (q < e && (plan_ident_char(*q) || *q == '.'))
                q++;
        } else if (plan_ident_char(*q)) {
            const char *s = q;
            while (q < e && plan_ident_char(*q))
                q++;
            if (q < e && (*q == '"' || *q == '\'') && q - s <= 2)
                continue; /* a string's prefix */
            if (s > v && s[-1] == '.')
                continue; /* an attribute of what came before */
            if (!data_root(x, s, (size_t)(q - s), &q))
                return 0;
        } else {
            q++;
        }
    }
    return 1;
}

/* ---- the value ------------------------------------------------------------------------ */

/* `Cls(...)` or `Cls._from_config(...)` at v, the call the whole of [v, e): the
 * name's length, 0 when not. */
static size_t class_call(const char *v, const char *e)
{
    const char *q = v;
    if (!isalpha((unsigned char)*q) && *q != '_')
        return 0;
    while (q < e && plan_ident_char(*q))
        q++;
    size_t n = (size_t)(q - v);
    if ((size_t)(e - q) >= 14 && !memcmp(q, "._from_config(", 14))
        q += 13;
    if (q >= e || *q != '(')
        return 0;
    const char *c = plan_close_paren(q, e);
    return c && c + 1 == e ? n : 0;
}

/* nn.ModuleList([Cls(...) for ...]) at w (past `nn.`): the class's name, or NULL. */
static char *module_list(const char *w, const char *e)
{
    const char *c = plan_close_paren(w + 10, e);
    const char *q = w + 12;
    while (q < e && plan_ident_char(*q))
        q++;
    size_t len = (size_t)(q - (w + 12));
    if (c == e - 1 && len &&
        (*q == '(' || ((size_t)(e - q) >= 14 && !memcmp(q, "._from_config(", 14))) &&
        strstr(w, " for ") && e[-2] == ']')
        return pgci_strndup(w + 12, len);
    return NULL;
}

plan_vkind plan_value_kind(const char *v, const char *sig, size_t sig_len, const plan_asgs *prior,
                           char **cls, plan_leaf *leaf)
{
    const char *e = v + strlen(v);
    *cls = NULL;
    const char *w = v;
    if (!strncmp(w, "torch.", 6))
        w += 6;
    if (!strncmp(w, "nn.", 3))
        w += 3;
    if (!strncmp(w, "Parameter(", 10))
        return plan_close_paren(w + 9, e) == e - 1 ? PLAN_V_PARAM : PLAN_V_UNKNOWN;
    if (!strncmp(w, "ModuleList([", 12) && w != v)
        return (*cls = module_list(w, e)) != NULL ? PLAN_V_LIST : PLAN_V_UNKNOWN;
    if (leaf_call(v, e, leaf))
        return PLAN_V_LEAF;
    if (!strncmp(v, "ACT2FN[", 7) && plan_close_paren(v + 6, e) == e - 1) {
        *leaf = (plan_leaf){"ACT2FN", NULL, 0, 0, 1};
        return PLAN_V_LEAF;
    }
    data_ctx x = {sig, sig_len, prior};
    if (*v && data_value(&x, v, e)) /* before class_call: `int(...)`, `getattr(config, ...)` */
        return PLAN_V_DATA;
    size_t n = class_call(v, e);
    if (!n)
        return PLAN_V_UNKNOWN;
    *cls = pgci_strndup(v, n);
    return PLAN_V_CLASS;
}
