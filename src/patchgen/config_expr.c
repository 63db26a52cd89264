/*
 * config_expr.c - evaluating the expressions a patch config is made of.
 *
 * Only what configs use is modelled: string literals (every prefix, adjacent
 * literals, triple quotes; decoded by py/pystr), ints, bools, None, lists, tuples,
 * sets and dicts of those, names bound earlier, attributes of PatchConfigs, config
 * modules, objects (__name__, __module__) and PatchType, calls into the patchgen
 * API, and the generator filter `(h for h in other.helpers if h.__name__ != "X")`.
 * Everything else evaluates to CE_UNKNOWN, which is harmless until a PatchConfig
 * needs the value: then the consumer reports the construct, never a guess.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_internal.h"
#include "py/pystr.h"

/* --- small helpers ---------------------------------------------------------- */

uint32_t ce_named_count(TSNode n)
{
    uint32_t k = ts_node_named_child_count(n), m = 0;
    for (uint32_t i = 0; i < k; i++)
        if (!py_is(ts_node_named_child(n, i), "comment"))
            m++;
    return m;
}

TSNode ce_named_child(TSNode n, uint32_t want)
{
    uint32_t k = ts_node_named_child_count(n), m = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (py_is(ch, "comment"))
            continue;
        if (m++ == want)
            return ch;
    }
    TSNode none = {0};
    return none;
}

void ce_iter_init(ce_iter *it, TSNode parent)
{
    it->cur = ts_tree_cursor_new(parent);
    it->state = 0;
}

int ce_iter_next(ce_iter *it, TSNode *out)
{
    for (;;) {
        int ok;
        if (it->state == 2)
            return 0;
        if (it->state == 0) {
            ok = ts_tree_cursor_goto_first_child(&it->cur);
            it->state = 1;
        } else {
            ok = ts_tree_cursor_goto_next_sibling(&it->cur);
        }
        if (!ok) {
            it->state = 2;
            return 0;
        }
        TSNode n = ts_tree_cursor_current_node(&it->cur);
        if (ts_node_is_named(n) && !py_is(n, "comment")) {
            *out = n;
            return 1;
        }
    }
}

void ce_iter_done(ce_iter *it)
{
    ts_tree_cursor_delete(&it->cur);
}

void ce_snippet(strbuf *sb, const ce_ctx *c, TSNode n)
{
    size_t len;
    const char *s = py_text(c->t, n, &len);
    size_t k = 0;
    while (k < len && k < 80 && s[k] != '\n' && s[k] != '\r')
        k++;
    /* control characters would make the one-line message lie */
    for (size_t i = 0; i < k; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 && ch != '\t')
            strbuf_addf(sb, "\\x%02x", ch);
        else
            strbuf_addc(sb, (char)ch);
    }
    if (k < len)
        strbuf_adds(sb, "...");
}

int ce_error_at(ce_ctx *c, TSNode n, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pgci_error_set(code, "%s:%u:%u: %s", c->mod->rel_path, py_line(n), py_col(n), msg);
}

static ce_value *lookup(ce_ctx *c, const char *name, size_t len);

int ce_step(config_eval *ev, unsigned long long k)
{
    ev->steps += k;
    if (ev->steps > CE_MAX_STEPS)
        ev->over_budget = 1;
    return !ev->over_budget;
}

static int budget_error(ce_ctx *c, TSNode n)
{
    return ce_error_at(c, n, PGCI_ELIMIT,
                       "evaluating this config takes more than %llu steps (a hostile config?)",
                       (unsigned long long)CE_MAX_STEPS);
}

int ce_unsupported(ce_ctx *c, TSNode n, const char *why)
{
    /* scans report "touches" when the budget runs out: say what really happened */
    if (c->ev->over_budget)
        return budget_error(c, n);
    if (py_is(n, "identifier")) {
        size_t len;
        const char *s = py_text(c->t, n, &len);
        if (!lookup(c, s, len))
            return ce_error_at(c, n, PGCI_EUNSUPPORTED, "name '%.*s' is not defined", (int)len, s);
    }
    strbuf sb = STRBUF_INIT;
    ce_snippet(&sb, c, n);
    int r = ce_error_at(c, n, PGCI_EUNSUPPORTED, "unsupported construct in patch config: %s%s%s%s",
                        sb.buf, why ? " (" : "", why ? why : "", why ? ")" : "");
    strbuf_free(&sb);
    return r;
}

const char *ce_kind_name(ce_kind k)
{
    switch (k) {
    case CE_NONE:
        return "None";
    case CE_BOOL:
        return "a bool";
    case CE_INT:
        return "an int";
    case CE_STR:
        return "a string";
    case CE_LIST:
        return "a list";
    case CE_TUPLE:
        return "a tuple";
    case CE_SET:
        return "a set";
    case CE_DICT:
        return "a dict";
    case CE_OBJECT:
        return "a def or class";
    case CE_CONFIG:
        return "a PatchConfig";
    case CE_FIELD:
        return "a PatchConfig field";
    case CE_METHOD:
        return "a PatchConfig method";
    case CE_MODULE:
        return "a module";
    case CE_API:
        return "a patchgen API name";
    case CE_PATCHTYPE:
        return "a PatchType";
    case CE_PATCH:
        return "a Patch";
    case CE_ITEMS:
        return "a generator";
    default:
        return "a value pgci cannot evaluate statically";
    }
}

ce_value *ce_str_value(config_eval *ev, const char *s, size_t len)
{
    ce_value *v = ce_value_new(ev, CE_STR);
    v->u.str.s = arena_strndup(&ev->mem, s, len);
    v->u.str.len = len;
    return v;
}

static ce_value *lookup(ce_ctx *c, const char *name, size_t len)
{
    if (c->local.name && c->local.len == len && !memcmp(c->local.name, name, len))
        return c->local.value;
    return hashmap_getn(&c->mod->ns, name, len);
}

/* --- literals ----------------------------------------------------------------- */

/* A bytes literal or an f-string with fields is not a str constant. */
static int string_is_constant(ce_ctx *c, TSNode n)
{
    TSNode parts[1] = {n};
    uint32_t count = 1;
    if (py_is(n, "concatenated_string"))
        count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; i++) {
        TSNode p = py_is(n, "concatenated_string") ? ts_node_named_child(n, i) : parts[0];
        if (!py_is(p, "string"))
            continue;
        uint32_t k = ts_node_named_child_count(p);
        for (uint32_t j = 0; j < k; j++)
            if (py_is(ts_node_named_child(p, j), "interpolation"))
                return 0;
        size_t len;
        const char *s = py_text(c->t, p, &len);
        for (size_t j = 0; j < len && s[j] != '"' && s[j] != '\''; j++)
            if (s[j] == 'b' || s[j] == 'B')
                return 0;
    }
    return 1;
}

static int eval_string(ce_ctx *c, TSNode n, ce_value **out)
{
    if (!string_is_constant(c, n)) {
        *out = &c->ev->unknown;
        return 0;
    }
    strbuf sb = STRBUF_INIT;
    if (pystr_decode_node(&sb, c->t, n) < 0) {
        /* e.g. \N{...}: not modelled; only an error if a PatchConfig needs it */
        strbuf_free(&sb);
        pgci_error_clear();
        *out = &c->ev->unknown;
        return 0;
    }
    *out = ce_str_value(c->ev, sb.buf, sb.len);
    strbuf_free(&sb);
    return 0;
}

static void eval_integer(ce_ctx *c, TSNode n, ce_value **out)
{
    size_t len;
    const char *s = py_text(c->t, n, &len);
    char buf[64];
    size_t k = 0;
    int overflow = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '_')
            continue;
        if (k + 1 >= sizeof(buf)) {
            overflow = 1;
            break;
        }
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    int base = 10;
    const char *digits = buf;
    if (k > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        base = 16, digits = buf + 2;
    else if (k > 1 && buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O'))
        base = 8, digits = buf + 2;
    else if (k > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        base = 2, digits = buf + 2;
    errno = 0;
    char *end;
    long long v = strtoll(digits, &end, base);
    if (errno == ERANGE || *end)
        overflow = 1;
    ce_value *r = ce_value_new(c->ev, CE_INT);
    r->u.num.i = overflow ? 0 : v;
    r->u.num.overflow = overflow;
    *out = r;
}

/* list, tuple, set: their elements; a `*x` inside makes the whole unknown. */
static int eval_sequence(ce_ctx *c, TSNode n, ce_kind kind, ce_value **out)
{
    uint32_t k = ce_named_count(n);
    ce_value *v = ce_value_new(c->ev, kind);
    v->u.seq.items = arena_alloc(&c->ev->mem, (k ? k : 1) * sizeof(ce_value *));
    ce_iter iter;
    TSNode it;
    int r = 0;
    ce_iter_init(&iter, n);
    while (r == 0 && v->u.seq.len < k && ce_iter_next(&iter, &it)) {
        if (py_is(it, "list_splat") || py_is(it, "parenthesized_list_splat")) {
            v = &c->ev->unknown;
            break;
        }
        r = ce_eval(c, it, &v->u.seq.items[v->u.seq.len]);
        if (r == 0 && ce_value_is_config(v->u.seq.items[v->u.seq.len]))
            v->holds_config = 1;
        if (r == 0)
            v->u.seq.len++;
    }
    ce_iter_done(&iter);
    *out = v;
    return r;
}

static int eval_dict(ce_ctx *c, TSNode n, ce_value **out)
{
    uint32_t k = ce_named_count(n);
    ce_value *v = ce_value_new(c->ev, CE_DICT);
    v->u.seq.items = arena_alloc(&c->ev->mem, (2 * k + 1) * sizeof(ce_value *));
    ce_iter iter;
    TSNode p;
    int r = 0;
    hashmap seen = HASHMAP_INIT; /* str key -> 1 + its index: dicts stay linear */
    ce_iter_init(&iter, n);
    while (ce_iter_next(&iter, &p)) {
        if (!py_is(p, "pair")) {
            ce_iter_done(&iter);
            hashmap_free(&seen);
            *out = &c->ev->unknown; /* **other */
            return 0;
        }
        ce_value *key, *val;
        r = ce_eval(c, py_field(p, "key"), &key);
        if (r == 0)
            r = ce_eval(c, py_field(p, "value"), &val);
        if (r < 0)
            break;
        /* a repeated key keeps its first position and its last value, as in Python */
        size_t j = v->u.seq.len;
        int hashable = key->kind == CE_STR && !memchr(key->u.str.s, '\0', key->u.str.len);
        if (hashable) {
            uintptr_t at = (uintptr_t)hashmap_getn(&seen, key->u.str.s, key->u.str.len);
            if (at)
                j = at - 1;
            else
                hashmap_putn(&seen, key->u.str.s, key->u.str.len, (void *)(uintptr_t)(j + 1));
        }
        v->u.seq.items[j] = j < v->u.seq.len ? v->u.seq.items[j] : key;
        v->u.seq.items[j + 1] = val;
        if (ce_value_is_config(key) || ce_value_is_config(val))
            v->holds_config = 1;
        if (j == v->u.seq.len)
            v->u.seq.len += 2;
    }
    ce_iter_done(&iter);
    hashmap_free(&seen);
    *out = v;
    return r;
}

/* --- attributes ----------------------------------------------------------------- */

static const char *const config_methods[] = {
    "replace_class",
    "override_method",
    "replace_function",
    "modify_init",
    "add_import",
    "add_helper",
    "add_helper_after",
    "add_post_import_block",
    "drop_import_names",
    "exclude_from_output",
    NULL,
};

static int eval_config_attr(ce_ctx *c, TSNode n, ce_config *cfg, const char *name, ce_value **out)
{
    for (int i = 0; config_methods[i]; i++)
        if (!strcmp(config_methods[i], name)) {
            ce_value *v = ce_value_new(c->ev, CE_METHOD);
            v->u.method.cfg = cfg;
            v->u.method.name = config_methods[i];
            v->u.method.field = CF_NONE;
            *out = v;
            return 0;
        }
    ce_field f = ce_field_from_name(name);
    const char *s = NULL;
    switch (f) {
    case CF_NONE:
        return ce_unsupported(c, n, "not an attribute of PatchConfig that pgci models");
    case CF_SOURCE_MODULE:
        s = cfg->source_module;
        break;
    case CF_TARGET_FILE:
        s = cfg->target_file;
        break;
    case CF_DESCRIPTION:
        s = cfg->description;
        break;
    case CF_TRANSFORMERS_VERSION:
        s = cfg->transformers_version;
        if (!s) {
            *out = &c->ev->none;
            return 0;
        }
        break;
    default: {
        ce_value *v = ce_value_new(c->ev, CE_FIELD);
        v->u.field.cfg = cfg;
        v->u.field.field = f;
        *out = v;
        return 0;
    }
    }
    *out = ce_str_value(c->ev, s, strlen(s));
    return 0;
}

static int eval_field_attr(ce_ctx *c, TSNode n, ce_value *obj, const char *name, ce_value **out)
{
    static const char *const methods[] = {"extend", "append", "update", "add", NULL};
    for (int i = 0; methods[i]; i++)
        if (!strcmp(methods[i], name)) {
            ce_value *v = ce_value_new(c->ev, CE_METHOD);
            v->u.method.cfg = obj->u.field.cfg;
            v->u.method.name = methods[i];
            v->u.method.field = obj->u.field.field;
            *out = v;
            return 0;
        }
    return ce_unsupported(c, n, "an operation on a PatchConfig list that pgci does not model");
}

static int eval_attribute(ce_ctx *c, TSNode n, ce_value **out)
{
    ce_value *obj;
    int r = ce_eval(c, py_field(n, "object"), &obj);
    if (r < 0)
        return r;
    char *name = py_text_dup(c->t, py_field(n, "attribute"));
    *out = &c->ev->unknown;
    switch (obj->kind) {
    case CE_CONFIG:
        r = eval_config_attr(c, n, obj->u.cfg, name, out);
        break;
    case CE_FIELD:
        r = eval_field_attr(c, n, obj, name, out);
        break;
    case CE_MODULE: {
        ce_value *v = hashmap_get(&obj->u.mod->ns, name);
        if (v)
            *out = ce_imported_value(c, v, n);
        else
            r = ce_error_at(c, n, PGCI_ENOTFOUND, "cannot import name '%s' from '%s'", name,
                            obj->u.mod->name);
        break;
    }
    case CE_API:
        if (obj->u.api == CA_PATCH_TYPE) {
            int t = pg_patch_type_from_member(name);
            if (t < 0) {
                r = ce_error_at(c, n, PGCI_EINVALID, "PatchType has no member '%s'", name);
            } else {
                ce_value *v = ce_value_new(c->ev, CE_PATCHTYPE);
                v->u.ptype = (pg_patch_type)t;
                *out = v;
            }
        }
        break;
    case CE_OBJECT:
        if (!strcmp(name, "__name__"))
            *out = ce_str_value(c->ev, obj->u.obj->name, strlen(obj->u.obj->name));
        else if (!strcmp(name, "__module__"))
            *out = ce_str_value(c->ev, obj->u.obj->module, strlen(obj->u.obj->module));
        break;
    default:
        break;
    }
    free(name);
    return r;
}

/* --- comparisons (for generator filters) --------------------------------------- */

static int value_equal(const ce_value *a, const ce_value *b, int *known)
{
    *known = 1;
    if (a->kind == CE_STR && b->kind == CE_STR)
        return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, a->u.str.len);
    if (a->kind == CE_NONE || b->kind == CE_NONE)
        return a->kind == b->kind;
    if ((a->kind == CE_INT || a->kind == CE_BOOL) && (b->kind == CE_INT || b->kind == CE_BOOL)) {
        long long x = a->kind == CE_INT ? a->u.num.i : a->u.b;
        long long y = b->kind == CE_INT ? b->u.num.i : b->u.b;
        if ((a->kind == CE_INT && a->u.num.overflow) || (b->kind == CE_INT && b->u.num.overflow))
            return (*known = 0);
        return x == y;
    }
    if (a->kind == CE_STR || b->kind == CE_STR) {
        /* a str never equals an int, a bool or a container */
        if (a->kind == CE_UNKNOWN || b->kind == CE_UNKNOWN)
            return (*known = 0);
        return 0;
    }
    *known = 0;
    return 0;
}

static ce_value *bool_value(ce_ctx *c, int b)
{
    ce_value *v = ce_value_new(c->ev, CE_BOOL);
    v->u.b = b != 0;
    return v;
}

/* 1 true, 0 false, -1 unknown */
static int truth(const ce_value *v)
{
    switch (v->kind) {
    case CE_NONE:
        return 0;
    case CE_BOOL:
        return v->u.b;
    case CE_INT:
        return v->u.num.overflow ? 1 : v->u.num.i != 0;
    case CE_STR:
        return v->u.str.len != 0;
    case CE_LIST:
    case CE_TUPLE:
    case CE_SET:
    case CE_DICT:
        return v->u.seq.len != 0;
    default:
        return -1;
    }
}

static int compare_one(config_eval *ev, const char *op, ce_value *a, ce_value *b)
{
    int known = 1, r;
    if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "is") || !strcmp(op, "isnot")) {
        if ((!strcmp(op, "is") || !strcmp(op, "isnot")) && a->kind != CE_NONE && b->kind != CE_NONE)
            return -1;
        r = value_equal(a, b, &known);
        if (!known)
            return -1;
        return (op[0] == '=' || !strcmp(op, "is")) ? r : !r;
    }
    if (!strcmp(op, "in") || !strcmp(op, "notin")) {
        if (b->kind != CE_LIST && b->kind != CE_TUPLE && b->kind != CE_SET)
            return -1;
        int found = 0;
        for (size_t i = 0; i < b->u.seq.len && !found; i++) {
            if (!ce_step(ev, 1))
                return -1;
            found = value_equal(a, b->u.seq.items[i], &known);
            if (!known)
                return -1;
        }
        return op[0] == 'i' ? found : !found;
    }
    return -1;
}

static int eval_comparison(ce_ctx *c, TSNode n, ce_value **out)
{
    /* a op1 b op2 c ...: operands are the named children, operators the tokens */
    uint32_t k = ts_node_child_count(n);
    ce_value *left = NULL;
    char op[16] = "";
    int result = 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_child(n, i);
        if (py_is(ch, "comment"))
            continue;
        if (!ts_node_is_named(ch)) {
            /* "not in" and "is not" are one token with any blanks inside */
            size_t len, o = strlen(op);
            const char *s = py_text(c->t, ch, &len);
            for (size_t j = 0; j < len && o + 1 < sizeof(op); j++)
                if (s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\\' && s[j] != '\f')
                    op[o++] = s[j];
            op[o] = '\0';
            continue;
        }
        ce_value *v;
        int r = ce_eval(c, ch, &v);
        if (r < 0)
            return r;
        if (left) {
            int t = compare_one(c->ev, op, left, v);
            if (t < 0) {
                *out = &c->ev->unknown;
                return 0;
            }
            result = result && t;
        }
        left = v;
        op[0] = '\0';
    }
    *out = bool_value(c, result);
    return 0;
}

static int eval_boolean(ce_ctx *c, TSNode n, ce_value **out)
{
    ce_value *a, *b;
    int r = ce_eval(c, py_field(n, "left"), &a);
    if (r == 0)
        r = ce_eval(c, py_field(n, "right"), &b);
    if (r < 0)
        return r;
    int ta = truth(a), tb = truth(b);
    TSNode op = py_field(n, "operator");
    int is_and = py_text_eq(c->t, op, "and");
    if (ta < 0 || (tb < 0 && (is_and ? ta : !ta))) {
        *out = &c->ev->unknown;
        return 0;
    }
    /* Python returns an operand, not a bool; for filters only truth matters */
    *out = is_and ? (ta ? b : a) : (ta ? a : b);
    return 0;
}

/* --- generator filters ------------------------------------------------------------ */

/* The loop variable's value for one element, as the filter sees it. */
static ce_value *element_value(ce_ctx *c, ce_field f, void *item)
{
    if (f == CF_HELPERS) {
        ce_value *v = ce_value_new(c->ev, CE_OBJECT);
        v->u.obj = item;
        return v;
    }
    if (f == CF_POST_IMPORT_BLOCKS || f == CF_EXCLUDE || f == CF_DROP_IMPORTED_NAMES)
        return ce_str_value(c->ev, item, strlen(item));
    return &c->ev->unknown;
}

/* `(x for x in cfg.field if cond ...)` and `[x for x in cfg.field if cond ...]`. */
static int eval_filter(ce_ctx *c, TSNode n, ce_value **out)
{
    TSNode body = py_field(n, "body");
    TSNode loop = {0}, conds[16];
    size_t ncond = 0;
    uint32_t k = ce_named_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ce_named_child(n, i);
        if (ts_node_eq(ch, body))
            continue;
        if (py_is(ch, "for_in_clause") && ts_node_is_null(loop))
            loop = ch;
        else if (py_is(ch, "if_clause") && ncond < 16)
            conds[ncond++] = ch;
        else
            goto unknown;
    }
    if (ts_node_is_null(loop))
        goto unknown;
    TSNode var = py_field(loop, "left");
    size_t vlen, blen;
    const char *vs = py_text(c->t, var, &vlen), *bs = py_text(c->t, body, &blen);
    if (!py_is(var, "identifier") || !py_is(body, "identifier") || vlen != blen ||
        memcmp(vs, bs, vlen))
        goto unknown;
    ce_value *src;
    int r = ce_eval(c, py_field(loop, "right"), &src);
    if (r < 0)
        return r;
    ce_items items;
    if (!ce_items_of(src, &items))
        goto unknown;
    ce_value *res = ce_value_new(c->ev, CE_ITEMS);
    res->u.items.field = items.field;
    res->u.items.items = arena_alloc(&c->ev->mem, (items.len ? items.len : 1) * sizeof(void *));
    for (size_t i = 0; i < items.len; i++) {
        int keep = 1;
        for (size_t j = 0; j < ncond && keep; j++) {
            ce_local saved = c->local;
            c->local.name = vs;
            c->local.len = vlen;
            c->local.value = element_value(c, items.field, items.items[i]);
            ce_value *cv;
            r = ce_eval(c, ce_named_child(conds[j], 0), &cv);
            c->local = saved;
            if (r < 0)
                return r;
            int t = truth(cv);
            if (t < 0)
                return ce_unsupported(c, conds[j], "a filter condition pgci cannot evaluate");
            keep = t;
        }
        if (keep)
            res->u.items.items[res->u.items.len++] = items.items[i];
    }
    *out = res;
    return 0;
unknown:
    if (ce_touches_config(c, n))
        return ce_unsupported(c, n, "only `(x for x in cfg.FIELD if CONDITION)` is modelled");
    *out = &c->ev->unknown;
    return 0;
}

/* --- calls ---------------------------------------------------------------------- */

static int eval_call(ce_ctx *c, TSNode n, ce_value **out)
{
    ce_value *f;
    int r = ce_eval(c, py_field(n, "function"), &f);
    if (r < 0)
        return r;
    if (f->kind == CE_METHOD)
        return ce_call_method(c, n, f, out);
    if (f->kind == CE_DECORATOR)
        return ce_call_decorator(c, n, f, out);
    if (f->kind == CE_OBJECT && ce_call_touches_config(c->ev, f->u.obj))
        return ce_unsupported(c, n, "the def it calls uses a PatchConfig when it runs");
    if (f->kind == CE_API && f->u.api != CA_PATCH_TYPE)
        return ce_call_api(c, n, f->u.api, out);
    if (ce_touches_config(c, n))
        return ce_unsupported(c, n, NULL);
    *out = &c->ev->unknown;
    return 0;
}

/* --- the dispatcher ---------------------------------------------------------------- */

int ce_eval(ce_ctx *c, TSNode n, ce_value **out)
{
    *out = &c->ev->unknown;
    if (ts_node_is_null(n))
        return 0;
    if (!ce_step(c->ev, 1))
        return budget_error(c, n);
    if (c->depth >= CE_MAX_EXPR_DEPTH)
        return ce_error_at(c, n, PGCI_ELIMIT, "expression nested too deeply (limit %d)",
                           CE_MAX_EXPR_DEPTH);
    c->depth++;
    int r = 0;
    const char *type = ts_node_type(n);
    if (!strcmp(type, "string") || !strcmp(type, "concatenated_string")) {
        r = eval_string(c, n, out);
    } else if (!strcmp(type, "integer")) {
        eval_integer(c, n, out);
    } else if (!strcmp(type, "true") || !strcmp(type, "false")) {
        *out = bool_value(c, type[0] == 't');
    } else if (!strcmp(type, "none")) {
        *out = &c->ev->none;
    } else if (!strcmp(type, "unary_operator")) {
        ce_value *a;
        r = ce_eval(c, py_field(n, "argument"), &a);
        if (r == 0 && a->kind == CE_INT && !a->u.num.overflow &&
            py_text_eq(c->t, py_field(n, "operator"), "-")) {
            ce_value *v = ce_value_new(c->ev, CE_INT);
            v->u.num.i = -a->u.num.i;
            *out = v;
        } else if (r == 0) {
            *out = &c->ev->unknown;
        }
    } else if (!strcmp(type, "not_operator")) {
        ce_value *a;
        r = ce_eval(c, py_field(n, "argument"), &a);
        if (r == 0) {
            int t = truth(a);
            *out = t < 0 ? &c->ev->unknown : bool_value(c, !t);
        }
    } else if (!strcmp(type, "parenthesized_expression")) {
        r = ce_eval(c, ce_named_child(n, 0), out);
    } else if (!strcmp(type, "list")) {
        r = eval_sequence(c, n, CE_LIST, out);
    } else if (!strcmp(type, "tuple") || !strcmp(type, "expression_list")) {
        r = eval_sequence(c, n, CE_TUPLE, out);
    } else if (!strcmp(type, "set")) {
        r = eval_sequence(c, n, CE_SET, out);
    } else if (!strcmp(type, "dictionary")) {
        r = eval_dict(c, n, out);
    } else if (!strcmp(type, "identifier")) {
        size_t len;
        const char *s = py_text(c->t, n, &len);
        ce_value *v = lookup(c, s, len);
        *out = v ? v : &c->ev->unknown;
    } else if (!strcmp(type, "attribute")) {
        r = eval_attribute(c, n, out);
    } else if (!strcmp(type, "call")) {
        r = eval_call(c, n, out);
    } else if (!strcmp(type, "generator_expression") || !strcmp(type, "list_comprehension")) {
        r = eval_filter(c, n, out);
    } else if (!strcmp(type, "comparison_operator")) {
        r = eval_comparison(c, n, out);
    } else if (!strcmp(type, "boolean_operator")) {
        r = eval_boolean(c, n, out);
    } else if (ce_touches_config(c, n)) {
        r = ce_unsupported(c, n, NULL);
    }
    c->depth--;
    return r;
}

/* --- touching a PatchConfig ------------------------------------------------------- */

int ce_value_is_config(const ce_value *v)
{
    if (!v)
        return 0;
    switch (v->kind) {
    case CE_CONFIG:
    case CE_FIELD:
    case CE_METHOD:
    case CE_MODULE:
    case CE_API:
    case CE_PATCHTYPE:
    case CE_PATCH:
    case CE_ITEMS:
    case CE_DECORATOR:
        return 1;
    default:
        return v->holds_config;
    }
}

/* Builtins that run or reach code by name: a config using them at import time could
 * change a PatchConfig in a way no syntax shows. */
int ce_dynamic_builtin(const char *s, size_t len)
{
    static const char *const names[] = {"exec", "eval",       "globals", "locals",
                                        "vars", "__import__", "compile", NULL};
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], s, len))
            return 1;
    return 0;
}

int ce_touches_config(ce_ctx *c, TSNode n)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    int found = 0;
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&cur);
        if (!ce_step(c->ev, 1)) {
            found = 1; /* callers report it; ce_unsupported says it was the budget */
            break;
        }
        if (py_is(x, "identifier")) {
            const char *field = ts_tree_cursor_current_field_name(&cur);
            /* attribute names, keyword names and definition names are not references */
            if (!field || (strcmp(field, "attribute") && strcmp(field, "name"))) {
                size_t len;
                const char *s = py_text(c->t, x, &len);
                ce_value *v = lookup(c, s, len);
                if (v ? ce_value_is_config(v) : ce_dynamic_builtin(s, len)) {
                    found = 1;
                    break;
                }
            }
        }
        if (ts_tree_cursor_goto_first_child(&cur))
            continue;
        int moved = 0;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = 1;
            } else if (!ts_tree_cursor_goto_parent(&cur)) {
                break;
            }
        }
        if (!moved)
            break;
        /* stop at n's end: the cursor was created on n, so goto_parent fails there */
    }
    ts_tree_cursor_delete(&cur);
    return found;
}
