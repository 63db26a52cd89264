/*
 * init_fields.c - whether a dataclass a patch body builds by name still takes the
 * keywords the body passes (init_fields.h). The class and its bases are resolved
 * as the generated module binds them at each tag: the config's classes (a helper,
 * a replaced class), its added imports (a module of the workspace, read from the
 * workspace's files), the model's module at that tag, and the transformers modules
 * the survey fetched at both tags (survey_pair.ext); a name bound any other way,
 * or twice, stops the walk and leaves the call unjudged.
 */
#include "checks/init_fields.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/codegen_source.h"
#include "patchgen/codegen_text.h"

#define WALK_DEPTH 32

/* What a name resolves to: a class (where its bases resolve: the generated module,
 * or module m as it is), transformers' ModelOutput, or nothing the walk can read. */
typedef enum rkind { R_UNKNOWN, R_CLASS, R_MODEL_OUTPUT } rkind;

typedef struct rclass {
    rkind kind;
    const index_def *d;
    const index_module *m; /* the module d is read in (NULL: the config's) */
    int generated;         /* d's bases resolve in the generated module */
} rclass;

/* ModelOutput's metaclass at one tag (transformers/utils/generic.py). */
typedef enum mo_mode {
    MO_UNREAD = -2,
    MO_UNKNOWN = -1, /* generic.py not read, or a shape not known */
    MO_NONE = 0,     /* no metaclass: `__init__` is the dataclass's own */
    MO_ALWAYS = 1,   /* 5.24.0: every dataclass's `__init__` renames the old names */
    MO_UNLESS = 2,   /* 5.25.0: unless the class has `past_key_values` or `cache_params` */
} mo_mode;

typedef struct fctx {
    const survey_pair *p;
    int side;                /* 0: A, 1: B */
    strvec *want;            /* init_fields_modules: transformers modules asked and not read */
    int reached_mo;          /* init_fields_modules: a chain reached ModelOutput */
    char *root;              /* the workspace's root (from the config's file and module) */
    VEC(index_module *) own; /* indexes made here when the pair has no memo */
    mo_mode mo;
} fctx;

/* One class's chain at one tag: the union of its dataclasses' fields. */
typedef struct chain {
    strvec fields, owners; /* each field and the class declaring it (most derived first) */
    VEC(const index_def *) owner_defs; /* the declaring class's definition, beside owners */
    strvec classes;                    /* "`C` (module)" of each class walked, in order */
    int model_output;                  /* reaches ModelOutput */
    int unknown;
    callees_walk walk;
} chain;

static void chain_free(chain *ch)
{
    strvec_free(&ch->fields);
    strvec_free(&ch->owners);
    VEC_FREE(&ch->owner_defs);
    strvec_free(&ch->classes);
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int is_identifier(const char *s)
{
    if (!s || !*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!ident_char(*s))
            return 0;
    return 1;
}

static int is_dotted(const char *s)
{
    if (!s || !*s || *s == '.')
        return 0;
    for (const char *p = s; *p; p++)
        if (*p == '.' ? (p[1] == '.' || !p[1]) : !ident_char(*p))
            return 0;
    return 1;
}

/* ---- modules ------------------------------------------------------------------------ */

/* A module of the workspace, `veomni.utils.model_outputs`: its file under the
 * root, `M.py` or the package's `M/__init__.py`; NULL when neither is there. */
static const index_module *workspace_module(fctx *c, const char *name)
{
    if (!c->root || !is_dotted(name))
        return NULL;
    strbuf path = STRBUF_INIT;
    strbuf_addf(&path, "%s/", c->root);
    for (const char *q = name; *q; q++)
        strbuf_addc(&path, *q == '.' ? '/' : *q);
    size_t base = path.len;
    const index_module *m = NULL;
    for (int pkg = 0; pkg < 2 && !m; pkg++) {
        strbuf_setlen(&path, base);
        strbuf_adds(&path, pkg ? "/__init__.py" : ".py");
        if (!fs_is_file(path.buf))
            continue;
        char *mod = pkg ? pgci_asprintf("%s.__init__", name) : pgci_strdup(name);
        index_module *own = NULL;
        m = survey_file_index(c->p, path.buf, mod, &own);
        if (own)
            VEC_PUSH(&c->own, own);
        free(mod);
    }
    strbuf_free(&path);
    return m;
}

/* Module `name` at the context's tag, with its source when it is upstream's; NULL
 * when it is not read (a transformers module the survey did not fetch is noted in
 * c->want). */
static const index_module *module_at(fctx *c, const char *name, const char **src, size_t *len)
{
    const survey_pair *p = c->p;
    *src = NULL;
    *len = 0;
    if (p->cfg && p->cfg->source_module && !strcmp(name, p->cfg->source_module)) {
        *src = c->side ? p->src_b : p->src_a;
        *len = c->side ? p->src_b_len : p->src_a_len;
        return c->side ? p->b : p->a;
    }
    if (!strcmp(name, "transformers.modeling_utils") && (c->side ? p->base_b : p->base_a)) {
        *src = c->side ? p->base_src_b : p->base_src_a;
        *len = c->side ? p->base_src_b_len : p->base_src_a_len;
        return c->side ? p->base_b : p->base_a;
    }
    for (size_t i = 0; i < p->n_ext; i++)
        if (!strcmp(p->ext[i].module, name)) {
            *src = c->side ? p->ext[i].src_b : p->ext[i].src_a;
            *len = c->side ? p->ext[i].src_b_len : p->ext[i].src_a_len;
            return c->side ? p->ext[i].b : p->ext[i].a;
        }
    if (!strcmp(name, "transformers") || !strncmp(name, "transformers.", 13)) {
        if (c->want && strvec_find(c->want, name) < 0)
            strvec_push(c->want, name);
        return NULL;
    }
    return workspace_module(c, name);
}

/* The absolute module an import of m reads (`from ...utils import X` in
 * transformers.models.x.modeling_x: transformers.utils), malloc'ed; NULL when it
 * leaves m's packages. */
static char *import_module(const index_module *m, const index_import *im)
{
    if (!im->level)
        return pgci_strdup(im->module);
    if (!m->name)
        return NULL;
    size_t end = strlen(m->name);
    for (int up = 0; up < im->level; up++) {
        while (end > 0 && m->name[end - 1] != '.')
            end--;
        if (!end)
            return NULL;
        end--;
    }
    return *im->module ? pgci_asprintf("%.*s.%s", (int)end, m->name, im->module)
                       : pgci_strndup(m->name, end);
}

static rclass lookup_in_module(fctx *c, const char *module, const char *name, int depth);

/* What `import ...` binds: its alias, or the first part of the module. */
static int import_binds(const index_import *im, const char *name)
{
    if (im->alias)
        return !strcmp(im->alias, name);
    if (im->name)
        return !strcmp(im->name, name);
    size_t n = strcspn(im->module, ".");
    return strlen(name) == n && !strncmp(im->module, name, n);
}

/* name in module m as m binds it: a class defined once at its top level, or
 * imported once from a module the walk reads; bound any other way (twice, by an
 * assignment, under an `if` or a `try`, by a star import): unknown. */
static rclass lookup_local(fctx *c, const index_module *m, int generated, const char *name,
                           int depth)
{
    rclass r = {R_UNKNOWN, NULL, NULL, 0};
    if (!m || depth > WALK_DEPTH)
        return r;
    const index_def *def = NULL;
    const index_import *imp = NULL;
    size_t binders = 0;
    for (size_t i = 0; i < m->n_defs; i++)
        if (!strcmp(m->defs[i]->name, name)) {
            def = m->defs[i];
            binders++;
        }
    for (size_t i = 0; i < m->n_assigns; i++)
        binders += !strcmp(m->assigns[i].name, name);
    for (size_t i = 0; i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        if (im->scope)
            continue;
        if (im->name && !strcmp(im->name, "*"))
            return r; /* a star import may bind anything */
        if (import_binds(im, name)) {
            imp = im;
            binders++;
        }
    }
    if (binders != 1)
        return r;
    if (def) {
        if (def->kind != INDEX_CLASS || def->conditional)
            return r;
        return (rclass){R_CLASS, def, m, generated};
    }
    if (!imp || imp->in_try || imp->in_if || !imp->name)
        return r;
    char *mod = import_module(m, imp);
    if (mod)
        r = lookup_in_module(c, mod, imp->name, depth + 1);
    free(mod);
    return r;
}

static rclass lookup_in_module(fctx *c, const char *module, const char *name, int depth)
{
    rclass r = {R_UNKNOWN, NULL, NULL, 0};
    if (!strcmp(name, "ModelOutput") &&
        (!strcmp(module, "transformers.utils") || !strcmp(module, "transformers.utils.generic"))) {
        r.kind = R_MODEL_OUTPUT;
        c->reached_mo = 1;
        return r;
    }
    const char *src;
    size_t len;
    const index_module *m = module_at(c, module, &src, &len);
    return m ? lookup_local(c, m, 0, name, depth) : r;
}

/* The config's class `name`: a helper, a positioned helper or a replaced class;
 * *replaced says which. */
static const pg_object *config_class(const pg_config *cfg, const char *name, int *replaced)
{
    *replaced = 0;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (p->type == PG_CLASS_REPLACEMENT && p->replacement && !strcmp(p->target, name)) {
            *replaced = 1;
            return p->replacement;
        }
    }
    for (size_t i = 0; i < cfg->helpers.len; i++)
        if (cfg->helpers.items[i]->name && !strcmp(cfg->helpers.items[i]->name, name))
            return cfg->helpers.items[i];
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        const pg_object *h = cfg->positioned_helpers.items[i].helper;
        if (h && h->name && !strcmp(h->name, name))
            return h;
    }
    return NULL;
}

/* 1 when the config binds name in a way lookup_generated does not follow: a
 * replaced function of that name, an added import under an alias or a plain
 * `import name` (signatures_config_binds' other cases, without reading the
 * post-import blocks again, which lookup_generated has read). */
static int config_binds_otherwise(const pg_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->patches.len; i++)
        if (!strcmp(cfg->patches.items[i].target, name))
            return 1;
    for (size_t i = 0; i < cfg->additional_imports.len; i++) {
        const pg_import *im = &cfg->additional_imports.items[i];
        size_t n = strlen(name);
        if ((im->alias && !strcmp(im->alias, name)) ||
            (!im->is_from_import && !im->alias && !strncmp(im->module, name, n) &&
             (im->module[n] == '\0' || im->module[n] == '.')))
            return 1;
    }
    return 0;
}

/* 1 when the model's module binds name at its top level. */
static int upstream_binds(const index_module *m, const char *name)
{
    return m && signatures_module_binds(m, name);
}

/* name as the generated module binds it at the context's tag. */
static rclass lookup_generated(fctx *c, const char *name, int depth)
{
    rclass r = {R_UNKNOWN, NULL, NULL, 0};
    const survey_pair *p = c->p;
    const index_module *up = c->side ? p->b : p->a;
    if (depth > WALK_DEPTH)
        return r;
    int replaced;
    const pg_object *o = config_class(p->cfg, name, &replaced);
    if (o) {
        /* a helper beside an upstream definition of the same name: which one the
         * module ends with depends on where each goes */
        if (!o->is_class || (!replaced && upstream_binds(up, name)))
            return r;
        char *text = signatures_object_text(o);
        index_module *own = NULL;
        const index_def *d = text ? survey_object_def(p, o, text, strlen(text), &own) : NULL;
        pgci_error_clear();
        free(text);
        if (own)
            VEC_PUSH(&c->own, own);
        if (d && d->kind == INDEX_CLASS && !strcmp(d->name, name))
            r = (rclass){R_CLASS, d, NULL, 1};
        return r;
    }
    /* an added import `from M import name` */
    const char *added = NULL;
    size_t adds = 0;
    for (size_t i = 0; i < p->cfg->additional_imports.len; i++) {
        const pg_import *im = &p->cfg->additional_imports.items[i];
        for (size_t k = 0; im->is_from_import && !im->alias && k < im->names_len; k++)
            if (!strcmp(im->names[k], name)) {
                added = im->module;
                adds++;
            }
    }
    /* or a post-import block that imports it (qwen3_vl's `from
     * veomni.utils.model_outputs import (...)`): one block binding it, by that
     * import alone */
    const index_import *imp = NULL;
    size_t blocks = 0;
    for (size_t i = 0; i < p->cfg->post_import_blocks.len; i++) {
        const char *block = p->cfg->post_import_blocks.items[i];
        if (!strstr(block, name))
            continue; /* a block that does not name it does not bind it */
        strbuf d = STRBUF_INIT;
        cgtext_dedent(&d, block, strlen(block));
        index_module *own = NULL;
        const index_module *m = survey_patch_index(p, d.buf ? d.buf : "", d.len, &own);
        pgci_error_clear();
        strbuf_free(&d);
        if (own)
            VEC_PUSH(&c->own, own);
        if (!m)
            return r; /* a block that does not parse binds what it mentions */
        if (!signatures_module_binds(m, name))
            continue;
        blocks++;
        size_t binders = 0;
        for (size_t k = 0; k < m->n_imports; k++)
            if (!m->imports[k].scope && import_binds(&m->imports[k], name)) {
                imp = &m->imports[k];
                binders++;
            }
        for (size_t k = 0; k < m->n_defs; k++)
            binders += !strcmp(m->defs[k]->name, name);
        for (size_t k = 0; k < m->n_assigns; k++)
            binders += !strcmp(m->assigns[k].name, name);
        if (binders != 1)
            imp = NULL; /* bound twice, or not by an import */
    }
    /* bound once, by the config or by upstream's module as the config keeps it */
    if (adds + blocks > 1 || ((adds || blocks) && upstream_binds(up, name)))
        return r;
    if (adds)
        return lookup_in_module(c, added, name, depth);
    if (blocks == 1 && imp && !imp->level && imp->name && !imp->alias && !imp->in_if &&
        !imp->in_try)
        return lookup_in_module(c, imp->module, imp->name, depth);
    if (blocks || config_binds_otherwise(p->cfg, name))
        return r;
    /* a definition the config leaves out of the module, an import it drops */
    for (size_t i = 0; i < p->cfg->exclude.len; i++)
        if (!strcmp(p->cfg->exclude.items[i], name))
            return r;
    for (size_t i = 0; i < p->cfg->drop_imported_names.len; i++)
        if (!strcmp(p->cfg->drop_imported_names.items[i], name))
            return r;
    return lookup_local(c, up, 1, name, depth);
}

/* ---- the chain ---------------------------------------------------------------------- */

/* 1: `@dataclass` (or `@dataclass(...)`, `@dataclasses.dataclass`) with its
 * `__init__`; -1: one without (init=False); 0: another decorator. */
static int dataclass_decorator(const char *d)
{
    const char *s = !strncmp(d, "dataclasses.", 12) ? d + 12 : d;
    if (strncmp(s, "dataclass", 9) || (s[9] && s[9] != '('))
        return 0;
    return strstr(s, "init=False") || strstr(s, "init = False") ? -1 : 1;
}

/* A decorator that leaves a class's `__init__` alone: `@auto_docstring` (it writes
 * docs), or one of patchgen's registering ones, which the generated code drops. */
static int harmless_decorator(const char *d)
{
    if (!strncmp(d, "auto_docstring", 14) && (!d[14] || d[14] == '('))
        return 1;
    char *at = pgci_asprintf("@%s", d);
    int patch = cgsrc_is_patch_decorator(at, strlen(at));
    free(at);
    return patch;
}

/* A class-level annotation that is no field: `ClassVar[...]`, `KW_ONLY`. */
static int not_a_field(const char *annotation)
{
    const char *a = !strncmp(annotation, "typing.", 7)         ? annotation + 7
                    : !strncmp(annotation, "dataclasses.", 12) ? annotation + 12
                                                               : annotation;
    return !strncmp(a, "ClassVar", 8) || !strcmp(a, "KW_ONLY");
}

/* Marks the chain unjudged; 1 when the walk stops there (init_fields_modules walks
 * on: the other bases may still lead to modules to fetch). */
static int give_up(const fctx *c, chain *ch)
{
    ch->unknown = 1;
    return !c->want;
}

static void walk_class(fctx *c, const rclass *r, chain *ch, int depth, int top)
{
    if (ch->unknown && !c->want)
        return;
    if (r->kind == R_MODEL_OUTPUT) {
        if (!ch->model_output)
            strvec_push(&ch->classes, "`ModelOutput` (transformers.utils.generic)");
        ch->model_output = 1;
        return;
    }
    if (r->kind != R_CLASS || depth > WALK_DEPTH || ch->walk.n >= CALLEES_WALK_MAX) {
        ch->unknown = 1;
        return;
    }
    const index_def *d = r->d;
    if (!callees_walk_first(&ch->walk, d))
        return; /* met before, through another base */
    int dc = 0;
    for (size_t i = 0; i < d->n_decorators; i++) {
        int k = dataclass_decorator(d->decorators[i]);
        if ((k < 0 || (!k && !harmless_decorator(d->decorators[i]))) && give_up(c, ch))
            return;
        dc |= k > 0;
    }
    /* the class built must be a dataclass whose `__init__` is the fields' */
    if (top && (!dc || index_member(d, "__init__")) && give_up(c, ch))
        return;
    for (size_t i = 0; dc && i < d->n_attrs; i++) {
        const index_assign *a = &d->attrs[i];
        if (!a->annotation || not_a_field(a->annotation))
            continue;
        /* a field no `__init__` takes */
        if (a->value && strstr(a->value, "field(") && strstr(a->value, "init=False") &&
            give_up(c, ch))
            return;
        if (strvec_find(&ch->fields, a->name) < 0) {
            strvec_push(&ch->fields, a->name);
            strvec_push(&ch->owners, d->name);
            VEC_PUSH(&ch->owner_defs, d);
        }
    }
    char *where = pgci_asprintf("`%s` (%s)", d->name,
                                !r->m        ? "the config"
                                : r->m->name ? r->m->name
                                             : "?");
    strvec_push_owned(&ch->classes, where);
    for (size_t i = 0; i < d->n_bases; i++) {
        const char *b = d->bases[i];
        if (!strcmp(b, "object"))
            continue;
        if (!is_identifier(b)) { /* `mod.Base`, `Base[T]`, `metaclass=M` */
            if (give_up(c, ch))
                return;
            continue;
        }
        rclass br = r->generated ? lookup_generated(c, b, depth + 1)
                                 : lookup_local(c, r->m, 0, b, depth + 1);
        walk_class(c, &br, ch, depth + 1, 0);
        if (ch->unknown && !c->want)
            return;
    }
}

/* ---- ModelOutput's metaclass ---------------------------------------------------------- */

static int text_has(const char *src, size_t len, const index_def *d, const char *needle)
{
    if (!src || !d || d->end_byte > len || d->start_byte >= d->end_byte)
        return 0;
    size_t n = strlen(needle), span = d->end_byte - d->start_byte;
    const char *s = src + d->start_byte;
    for (size_t i = 0; i + n <= span; i++)
        if (!memcmp(s + i, needle, n))
            return 1;
    return 0;
}

/* The offset just past `needle` in d's text, or 0. */
static size_t text_after(const char *src, size_t len, const index_def *d, const char *needle)
{
    if (!src || !d || d->end_byte > len || d->start_byte >= d->end_byte)
        return 0;
    size_t n = strlen(needle);
    for (size_t i = d->start_byte; i + n <= d->end_byte; i++)
        if (!memcmp(src + i, needle, n))
            return i + n;
    return 0;
}

/* The metaclass transformers.utils.generic gives ModelOutput at the context's tag:
 * none, or `_BCCacheNameMeta` in one of the two shapes releases have had (5.24.0:
 * every dataclass `__init__` set on a subclass is wrapped so that
 * `_rename_kwargs_for_bc` turns `past_key_values`, or else `cache_params`, into
 * `cache`; 5.25.0: only where the class's fields have neither old name). */
static mo_mode model_output_mode(fctx *c)
{
    if (c->mo != MO_UNREAD)
        return c->mo;
    const char *src;
    size_t len;
    const index_module *g = module_at(c, "transformers.utils.generic", &src, &len);
    const index_def *mo = g ? index_find(g, "ModelOutput") : NULL;
    c->mo = MO_UNKNOWN;
    if (!mo || mo->kind != INDEX_CLASS || !src)
        return c->mo;
    const char *meta = NULL;
    for (size_t i = 0; i < mo->n_bases; i++)
        if (!strncmp(mo->bases[i], "metaclass", 9))
            meta = mo->bases[i];
    if (!meta) {
        c->mo = MO_NONE;
        return c->mo;
    }
    if (strcmp(meta, "metaclass=_BCCacheNameMeta"))
        return c->mo;
    const index_def *cls = index_find(g, "_BCCacheNameMeta");
    const index_def *set = cls ? index_member(cls, "__setattr__") : NULL;
    const index_def *ren = index_find(g, "_rename_kwargs_for_bc");
    /* the renaming: past_key_values first, cache_params only when it is absent */
    static const char *const renames[] = {
        "if \"past_key_values\" in kwargs:",
        "kwargs[\"cache\"] = kwargs.pop(\"past_key_values\")",
        "elif \"cache_params\" in kwargs:",
        "kwargs[\"cache\"] = kwargs.pop(\"cache_params\")",
    };
    for (size_t i = 0; i < sizeof(renames) / sizeof(renames[0]); i++)
        if (!text_has(src, len, ren, renames[i]))
            return c->mo;
    if (!text_has(src, len, set, "_rename_kwargs_for_bc(kwargs)"))
        return c->mo;
    size_t at = text_after(src, len, set, "if name == \"__init__\"");
    if (!at)
        return c->mo;
    if (src[at] == ':') {
        c->mo = MO_ALWAYS;
    } else if (text_has(src, len, set, "getattr(cls, \"__dataclass_fields__\", {})") &&
               text_has(src, len, set,
                        "for deprecated in (\"past_key_values\", \"cache_params\")") &&
               text_has(src, len, set, "deprecated not in")) {
        c->mo = MO_UNLESS;
    }
    return c->mo;
}

/* ---- judging a call ------------------------------------------------------------------- */

typedef enum verdict { V_UNKNOWN, V_TAKES, V_REFUSES } verdict;

/* The class's chain at one tag, and whether its `__init__` renames the old names. */
typedef struct judged {
    int known;
    int renames;
    chain ch;
} judged;

static void judge_class(fctx *c, const char *cls, judged *j)
{
    memset(j, 0, sizeof(*j));
    rclass r = lookup_generated(c, cls, 0);
    walk_class(c, &r, &j->ch, 0, 1);
    if (j->ch.unknown || r.kind != R_CLASS)
        return;
    if (j->ch.model_output) {
        mo_mode mo = model_output_mode(c);
        if (mo == MO_UNKNOWN)
            return;
        j->renames = mo == MO_ALWAYS ||
                     (mo == MO_UNLESS && strvec_find(&j->ch.fields, "past_key_values") < 0 &&
                      strvec_find(&j->ch.fields, "cache_params") < 0);
    }
    j->known = 1;
}

static int passes(const body_call *call, const char *kw)
{
    return strvec_find(&call->keywords, kw) >= 0;
}

static verdict has_field(const judged *j, const char *name)
{
    return strvec_find(&j->ch.fields, name) >= 0 ? V_TAKES : V_REFUSES;
}

/* Whether the chain takes keyword kw of the call; *renamed set when the metaclass
 * turns it into `cache` first. A `**kwargs` of the call may hold `past_key_values`,
 * which decides whether `cache_params` is renamed: unknown when that matters. */
static verdict judge_keyword(const judged *j, const body_call *call, const char *kw, int *renamed)
{
    *renamed = 0;
    if (!j->known)
        return V_UNKNOWN;
    if (!j->renames)
        return has_field(j, kw);
    if (!strcmp(kw, "past_key_values")) {
        *renamed = 1;
        return passes(call, "cache") ? V_REFUSES : has_field(j, "cache");
    }
    if (!strcmp(kw, "cache_params")) {
        if (passes(call, "past_key_values"))
            return has_field(j, kw);
        verdict as_cache = passes(call, "cache") ? V_REFUSES : has_field(j, "cache");
        if (call->star_args && as_cache != has_field(j, kw))
            return V_UNKNOWN;
        *renamed = 1;
        return as_cache;
    }
    return has_field(j, kw);
}

/* What the docstring of class d says of its field `field` when it says the field
 * is deprecated: the sentence naming "deprecated" in the field's entry (5.16.1's
 * `rope_deltas (...): ... The attribute is deprecated and will be removed in
 * v5.20, use `model.base_model.rope_deltas` instead.`), malloc'ed; NULL otherwise. */
static char *field_notice(const index_def *d, const char *field)
{
    const char *doc = d ? d->docstring : NULL;
    size_t fl = strlen(field);
    strbuf entry = STRBUF_INIT;
    long indent = -1;
    for (const char *line = doc; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        size_t ws = 0;
        while (ws < len && (line[ws] == ' ' || line[ws] == '\t'))
            ws++;
        if (indent < 0) {
            if (len - ws > fl && !strncmp(line + ws, field, fl) &&
                (line[ws + fl] == ' ' || line[ws + fl] == ':') &&
                (line[ws + fl] == ':' || (ws + fl + 1 < len && line[ws + fl + 1] == '(')))
                indent = (long)ws;
        } else if (ws < len && (long)ws <= indent) {
            break; /* the next entry */
        } else {
            strbuf_add(&entry, line + ws, len - ws);
            strbuf_addc(&entry, ' ');
        }
        line = nl ? nl + 1 : NULL;
    }
    char *out = NULL;
    const char *dep = entry.buf ? strstr(entry.buf, "deprecated") : NULL;
    if (dep) {
        const char *b = dep, *e = dep;
        while (b > entry.buf && !(b[-1] == ' ' && b - 1 > entry.buf && b[-2] == '.'))
            b--;
        while (*e && !(*e == '.' && (e[1] == ' ' || !e[1])))
            e++;
        out = pgci_strndup(b, (size_t)(e - b) + (*e == '.'));
    }
    strbuf_free(&entry);
    return out;
}

/* "`C` (module)" of the chain's class named cls. */
static const char *class_where(const chain *ch, const char *cls)
{
    size_t n = strlen(cls);
    for (size_t i = 0; i < ch->classes.len; i++) {
        const char *w = ch->classes.items[i];
        if (w[0] == '`' && !strncmp(w + 1, cls, n) && w[n + 1] == '`')
            return w;
    }
    return cls;
}

/* "`C(...)` takes `a`, `b` (the fields of `C` (the config), `D` (module)); ..." */
static void chain_text(strbuf *sb, const char *cls, const judged *j)
{
    strbuf_addf(sb, "`%s(...)` takes ", cls);
    for (size_t i = 0; i < j->ch.fields.len; i++)
        strbuf_addf(sb, "%s`%s`", i ? ", " : "", j->ch.fields.items[i]);
    if (!j->ch.fields.len)
        strbuf_adds(sb, "no keyword");
    strbuf_adds(sb, " (the fields of ");
    for (size_t i = 0; i < j->ch.classes.len; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", j->ch.classes.items[i]);
    strbuf_adds(sb, ")");
    if (j->renames)
        strbuf_adds(sb, "; `ModelOutput`'s metaclass turns `past_key_values=` (or else "
                        "`cache_params=`) into `cache=`");
}

static void fctx_init(fctx *c, const survey_pair *p, int side)
{
    memset(c, 0, sizeof(*c));
    c->p = p;
    c->side = side;
    c->root = survey_workspace_root(p->cfg);
    c->mo = MO_UNREAD;
}

static void fctx_free(fctx *c)
{
    for (size_t i = 0; i < c->own.len; i++)
        index_module_free(c->own.items[i]);
    VEC_FREE(&c->own);
    free(c->root);
}

int init_fields_call_breaks(const survey_pair *p, const char *cls, const body_call *call,
                            init_fields_break *out)
{
    memset(out, 0, sizeof(*out));
    if (!p->a || !p->b || !p->cfg || !isupper((unsigned char)cls[0]))
        return 0;
    fctx ca, cb;
    fctx_init(&ca, p, 0);
    fctx_init(&cb, p, 1);
    judged ja, jb;
    judge_class(&ca, cls, &ja);
    judge_class(&cb, cls, &jb);
    strbuf plain = STRBUF_INIT, renamed_kw = STRBUF_INIT;
    size_t n_plain = 0, n_renamed = 0;
    const char *field_a = NULL; /* the field the first keyword filled at A */
    for (size_t i = 0; ja.known && jb.known && i < call->keywords.len; i++) {
        const char *kw = call->keywords.items[i];
        int ren_a, ren_b;
        if (strvec_find(&call->keywords, kw) != (long)i) /* a key passed twice */
            continue;
        if (judge_keyword(&ja, call, kw, &ren_a) != V_TAKES ||
            judge_keyword(&jb, call, kw, &ren_b) != V_REFUSES)
            continue;
        if (!out->keyword) {
            out->keyword = pgci_strdup(kw);
            out->renamed = ren_b;
            /* the class of A's chain that had the field the keyword filled */
            field_a = ren_a ? "cache" : kw;
            long at = strvec_find(&ja.ch.fields, field_a);
            out->declared_by = pgci_strdup(at >= 0 ? ja.ch.owners.items[at] : cls);
            out->notice = at >= 0 ? field_notice(ja.ch.owner_defs.items[at], field_a) : NULL;
        }
        strbuf *into = ren_b ? &renamed_kw : &plain;
        strbuf_addf(into, "%s`%s=`", into->len ? ", " : "", kw);
        *(ren_b ? &n_renamed : &n_plain) += 1;
    }
    if (out->keyword) {
        strbuf why = STRBUF_INIT;
        if (n_plain)
            strbuf_addf(&why, "it passes %s, which no field of `%s` takes now", plain.buf, cls);
        if (n_renamed)
            strbuf_addf(&why,
                        "%sit passes %s, which `ModelOutput`'s metaclass now turns into "
                        "`cache=`, %s",
                        n_plain ? "; " : "", renamed_kw.buf,
                        passes(call, "cache") ? "passed as well (a ValueError)"
                                              : "which no field takes");
        out->because = strbuf_detach(&why, NULL);
        strbuf d = STRBUF_INIT;
        strbuf_addf(&d, "%s: `%s=` fills the field `%s` of %s", p->tag_a, out->keyword, field_a,
                    class_where(&ja.ch, out->declared_by));
        if (out->notice)
            strbuf_addf(&d, ", whose docstring says: \"%s\"", out->notice);
        strbuf_addf(&d, ".\n%s: ", p->tag_b);
        chain_text(&d, cls, &jb);
        strbuf_adds(&d, ".\n");
        out->detail = strbuf_detach(&d, NULL);
    }
    strbuf_free(&plain);
    strbuf_free(&renamed_kw);
    chain_free(&ja.ch);
    chain_free(&jb.ch);
    fctx_free(&ca);
    fctx_free(&cb);
    return out->keyword != NULL;
}

void init_fields_break_free(init_fields_break *b)
{
    free(b->keyword);
    free(b->because);
    free(b->declared_by);
    free(b->detail);
    free(b->notice);
    memset(b, 0, sizeof(*b));
}

/* ---- what the survey fetches ---------------------------------------------------------- */

static void modules_of(fctx *c, const pg_object *o, const pg_patch *patch)
{
    char *text = signatures_object_text(o);
    body_uses own;
    const body_uses *u = text ? survey_object_uses(c->p, o, text, strlen(text), &own) : NULL;
    for (size_t i = 0; u && i < u->n_name_calls; i++) {
        const char *name = u->name_calls[i].method;
        if (!isupper((unsigned char)name[0])) /* a CapWords name is a class (PEP 8) */
            continue;
        strbuf mapped = STRBUF_INIT;
        strbuf_adds(&mapped, name);
        if (patch && patch->name_map_len)
            cgsrc_apply_name_map(&mapped, patch->name_map, patch->name_map_len);
        judged j;
        judge_class(c, mapped.buf, &j);
        chain_free(&j.ch);
        strbuf_free(&mapped);
    }
    if (u)
        body_uses_free(&own);
    pgci_error_clear();
    free(text);
}

void init_fields_modules(strvec *mods, const survey_pair *p)
{
    if (!p->a || !p->cfg)
        return;
    strvec want = STRVEC_INIT;
    fctx c;
    fctx_init(&c, p, 0);
    c.want = &want;
    c.mo = MO_UNKNOWN; /* generic.py is not read here */
    const pg_config *cfg = p->cfg;
    for (size_t i = 0; i < cfg->patches.len; i++)
        if (cfg->patches.items[i].replacement)
            modules_of(&c, cfg->patches.items[i].replacement, &cfg->patches.items[i]);
    for (size_t i = 0; i < cfg->helpers.len; i++)
        modules_of(&c, cfg->helpers.items[i], NULL);
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++)
        modules_of(&c, cfg->positioned_helpers.items[i].helper, NULL);
    /* the output dataclasses' modules: where a chain leaves the model's module,
     * and ModelOutput's; a chain through any other module stays unjudged */
    static const char *const fetched[] = {"transformers.modeling_outputs",
                                          "transformers.utils.generic"};
    for (size_t i = 0; (want.len || c.reached_mo) && i < 2; i++)
        if (strvec_find(mods, fetched[i]) < 0)
            strvec_push(mods, fetched[i]);
    strvec_free(&want);
    fctx_free(&c);
}
