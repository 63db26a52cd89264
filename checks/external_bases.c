/*
 * The bases of a class outside its module, read at B where they are defined. The
 * comparison (callees.c) asks; the survey fetches what the questions need, a round
 * at a time, and settles them here.
 */
#include "checks/external_bases.h"

#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "core/error.h"
#include "core/hashmap.h"
#include "core/strbuf.h"

/* torch.nn.Module's own methods (torch 2.x, torch/nn/modules/module.py; the
 * corpus test compares this list with the installed torch's): a model class that
 * stopped overriding one still answers the call, with torch's. Sorted. */
static const char *const torch_module_methods[] = {
    "__call__",
    "__delattr__",
    "__dir__",
    "__getattr__",
    "__getstate__",
    "__init__",
    "__repr__",
    "__setattr__",
    "__setstate__",
    "_apply",
    "_call_impl",
    "_get_backward_hooks",
    "_get_backward_pre_hooks",
    "_get_name",
    "_load_from_state_dict",
    "_maybe_warn_non_full_backward_hook",
    "_named_members",
    "_register_load_state_dict_pre_hook",
    "_register_state_dict_hook",
    "_replicate_for_data_parallel",
    "_save_to_state_dict",
    "_slow_forward",
    "_wrapped_call_impl",
    "add_module",
    "apply",
    "bfloat16",
    "buffers",
    "children",
    "compile",
    "cpu",
    "cuda",
    "double",
    "eval",
    "extra_repr",
    "float",
    "forward",
    "get_buffer",
    "get_extra_state",
    "get_parameter",
    "get_submodule",
    "half",
    "ipu",
    "load_state_dict",
    "modules",
    "mtia",
    "named_buffers",
    "named_children",
    "named_modules",
    "named_parameters",
    "parameters",
    "register_backward_hook",
    "register_buffer",
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_module",
    "register_parameter",
    "register_state_dict_post_hook",
    "register_state_dict_pre_hook",
    "requires_grad_",
    "set_extra_state",
    "set_submodule",
    "share_memory",
    "state_dict",
    "to",
    "to_empty",
    "train",
    "type",
    "xpu",
    "zero_grad",
};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int external_bases_torch_method(const char *name)
{
    return bsearch(&name, torch_module_methods,
                   sizeof(torch_module_methods) / sizeof(*torch_module_methods),
                   sizeof(*torch_module_methods), cmp_name) != NULL;
}

/* 1 for the bases every class has, or every model has and the caller rules on by
 * name (torch.nn.Module). */
static int implicit_base(const char *b)
{
    return !strcmp(b, "object") || !strcmp(b, "Module");
}

static const index_def *class_in(const index_module *m, const char *name)
{
    const index_def *d = m ? index_find(m, name) : NULL;
    return d && d->kind == INDEX_CLASS && !d->parent ? d : NULL;
}

/* ---- asking -------------------------------------------------------------------------- */

/* Walks cls's bases in m (then base_mod where m's classes reach it): each base
 * outside both, by its import, into bases; 0 when one has no transformers source. */
static int ask_walk(json_t *bases, json_t *walked, const index_module *m,
                    const index_module *base_mod, const char *cls, int depth)
{
    const index_def *c = depth < 12 ? class_in(m, cls) : NULL;
    if (!c)
        return 0;
    /* each class once: a diamond (or a hostile module's fan of repeated bases)
     * is not walked again */
    char *line = pgci_asprintf("%s (%s)", c->qualname, m->name ? m->name : "?");
    for (size_t i = 0; i < json_array_size(walked); i++)
        if (!strcmp(json_string_value(json_array_get(walked, i)), line)) {
            free(line);
            return 1;
        }
    json_array_append_new(walked, json_string(line));
    free(line);
    int ok = 1;
    for (size_t i = 0; ok && i < c->n_bases; i++) {
        char *b = callees_base_name(c->bases[i]);
        if (!b || implicit_base(b) || !strcmp(b, cls)) {
            free(b);
            continue;
        }
        if (class_in(m, b)) {
            ok = ask_walk(bases, walked, m, base_mod, b, depth + 1);
        } else if (m != base_mod && class_in(base_mod, b)) {
            ok = ask_walk(bases, walked, base_mod, base_mod, b, depth + 1);
        } else {
            char *src = callees_import_source_any(m, b);
            ok = src != NULL;
            if (src)
                json_array_append_new(bases, json_pack("[ss]", src, b));
            free(src);
        }
        free(b);
    }
    return ok;
}

int external_bases_ask(json_t *data, const index_module *m, const index_module *base_mod,
                       const char *cls, const char *method)
{
    if (external_bases_torch_method(method))
        return 0;
    json_t *bases = json_array(), *walked = json_array();
    if (!ask_walk(bases, walked, m, base_mod, cls, 0) || !json_array_size(bases)) {
        json_decref(bases);
        json_decref(walked);
        return 0;
    }
    json_t *q = json_object();
    json_object_set_new(q, "class", json_string(cls));
    json_object_set_new(q, "method", json_string(method));
    json_object_set_new(q, "bases", bases);
    json_object_set_new(q, "walked", walked);
    json_object_set_new(data, "external", q);
    return 1;
}

/* ---- the modules read ------------------------------------------------------------------ */

struct xbases {
    hashmap mods; /* module name -> const index_module * (or &unreadable) */
};

static const char unreadable = 0;

xbases *xbases_new(void)
{
    xbases *x = pgci_calloc(1, sizeof(*x));
    return x;
}

void xbases_free(xbases *x)
{
    if (!x)
        return;
    hashmap_free(&x->mods);
    free(x);
}

void xbases_add(xbases *x, const char *module, const index_module *ix)
{
    hashmap_put(&x->mods, module, ix ? (void *)ix : (void *)&unreadable);
}

/* ---- settling -------------------------------------------------------------------------- */

typedef enum { XB_ABSENT, XB_FOUND, XB_UNKNOWN, XB_NEED } xb_verdict;

typedef struct xb_walk {
    const xbases *x;
    const char *method;
    strvec *need;       /* NULL: a module not given is unreadable */
    const char *found;  /* the class that defines the method */
    char *found_module; /* its module */
    strvec read;        /* "Class (module)" of every base read */
} xb_walk;

static xb_verdict lookup(xb_walk *w, const char *module, const char *name, int depth);

/* The verdict of one class read in module ix (named module). */
static xb_verdict class_verdict(xb_walk *w, const index_module *ix, const char *module,
                                const index_def *c, int depth)
{
    /* each class once (a diamond, a cycle through re-exports): its verdict is in
     * already */
    char *line = pgci_asprintf("%s (%s)", c->qualname, module);
    int seen = strvec_find(&w->read, line) >= 0;
    if (!seen)
        strvec_push(&w->read, line);
    free(line);
    if (seen)
        return XB_ABSENT;
    const index_def *d = index_member(c, w->method);
    if (d && d->kind == INDEX_FUNCTION) {
        w->found = c->qualname;
        free(w->found_module);
        w->found_module = pgci_strdup(module);
        return XB_FOUND;
    }
    xb_verdict v = XB_ABSENT;
    for (size_t i = 0; v != XB_FOUND && i < c->n_bases; i++) {
        char *b = callees_base_name(c->bases[i]);
        xb_verdict bv = XB_ABSENT;
        if (!b || implicit_base(b) || !strcmp(b, c->name)) {
            free(b);
            continue;
        }
        const index_def *in = class_in(ix, b);
        if (in) {
            bv = depth < 16 ? class_verdict(w, ix, module, in, depth + 1) : XB_UNKNOWN;
        } else {
            char *src = callees_import_source_any(ix, b);
            bv = src ? lookup(w, src, b, depth + 1) : XB_UNKNOWN;
            free(src);
        }
        free(b);
        if (bv > v || bv == XB_FOUND)
            v = bv;
    }
    return v;
}

/* Where `name` of `module` gets the method: found, absent, unknown, or a module
 * still to read (added to w->need). */
static xb_verdict lookup(xb_walk *w, const char *module, const char *name, int depth)
{
    if (depth > 16)
        return XB_UNKNOWN;
    const index_module *ix = hashmap_get(&w->x->mods, module);
    if (!ix) {
        if (!w->need)
            return XB_UNKNOWN;
        if (strvec_find(w->need, module) < 0)
            strvec_push(w->need, module);
        return XB_NEED;
    }
    if ((const void *)ix == (const void *)&unreadable)
        return XB_UNKNOWN;
    const index_def *c = class_in(ix, name);
    if (c)
        return class_verdict(w, ix, module, c, depth);
    char *src = callees_import_source_any(ix, name);
    xb_verdict v = src && strcmp(src, module) ? lookup(w, src, name, depth + 1) : XB_UNKNOWN;
    free(src);
    return v;
}

/* The verdict of one question over all its bases. */
static xb_verdict question_verdict(xb_walk *w, const json_t *q)
{
    w->method = json_string_value(json_object_get(q, "method"));
    const json_t *bases = json_object_get(q, "bases");
    if (!w->method || !json_is_array(bases))
        return XB_UNKNOWN;
    xb_verdict v = XB_ABSENT;
    for (size_t i = 0; v != XB_FOUND && i < json_array_size(bases); i++) {
        const json_t *pair = json_array_get(bases, i);
        const char *module = json_string_value(json_array_get(pair, 0));
        const char *name = json_string_value(json_array_get(pair, 1));
        xb_verdict bv = module && name ? lookup(w, module, name, 0) : XB_UNKNOWN;
        if (bv > v || bv == XB_FOUND)
            v = bv;
    }
    return v;
}

void xbases_needed(const xbases *x, const findings *fs, strvec *need)
{
    for (size_t i = 0; i < fs->len; i++) {
        const json_t *q = json_object_get(fs->items[i]->data, "external");
        if (!q)
            continue;
        xb_walk w = {x, NULL, need, NULL, NULL, STRVEC_INIT};
        question_verdict(&w, q);
        strvec_free(&w.read);
        free(w.found_module);
    }
}

static void set_title(finding *f, char *title)
{
    free(f->title);
    f->title = title;
}

/* The finding as its verdict makes it. */
static void settle_one(finding *f, const json_t *q, xb_walk *w, xb_verdict v)
{
    const char *used_by = json_string_value(json_object_get(f->data, "used_by"));
    const char *owner = json_string_value(json_object_get(f->data, "owner"));
    const char *to = json_string_value(json_object_get(f->data, "to"));
    const char *method = json_string_value(json_object_get(q, "method"));
    if (!used_by || !owner || !to || !method)
        return;
    if (v == XB_FOUND) {
        f->sev = SEV_INFO;
        json_object_set_new(f->data, "kind", json_string("callee-inherited"));
        json_object_set_new(f->data, "inherited_from", json_string(w->found));
        json_object_del(f->data, "candidates");
        set_title(f, pgci_asprintf("`%s` calls `self.%s()`, which `%s` no longer defines at %s: "
                                   "it inherits `%s.%s` (%s) now",
                                   used_by, method, owner, to, w->found, method, w->found_module));
        finding_set_detail(f, NULL);
        return;
    }
    if (v != XB_ABSENT)
        return;
    static const char suffix[] = " (an external base class may provide it now)";
    size_t n = strlen(f->title), k = sizeof(suffix) - 1;
    if (n >= k && !strcmp(f->title + n - k, suffix)) {
        f->sev = SEV_ERROR;
        f->title[n - k] = '\0';
    }
    strbuf d = STRBUF_INIT;
    if (f->detail)
        strbuf_adds(&d, f->detail);
    strbuf_addf(&d, "classes read at %s, none of which defines `%s` (nor does torch.nn.Module):\n",
                to, method);
    const json_t *walked = json_object_get(q, "walked");
    for (size_t i = 0; i < json_array_size(walked); i++)
        strbuf_addf(&d, "  %s\n", json_string_value(json_array_get(walked, i)));
    for (size_t i = 0; i < w->read.len; i++)
        strbuf_addf(&d, "  %s\n", w->read.items[i]);
    finding_set_detail(f, d.buf);
    strbuf_free(&d);
}

void xbases_settle(const xbases *x, findings *fs)
{
    for (size_t i = 0; i < fs->len; i++) {
        finding *f = fs->items[i];
        json_t *q = json_object_get(f->data, "external");
        if (!q)
            continue;
        xb_walk w = {x, NULL, NULL, NULL, NULL, STRVEC_INIT};
        settle_one(f, q, &w, question_verdict(&w, q));
        strvec_free(&w.read);
        free(w.found_module);
        json_object_del(f->data, "external");
        json_object_del(f->data, "owner");
    }
}
