/*
 * ws_imports.c - the workspace modules a generated module imports, and the names
 * they import from transformers that a release no longer binds (ws_imports.h).
 *
 * A module of the workspace is read once a run (survey_memo): its top-level
 * statements are found from its tokens (py_top_split), and only the import
 * statements among them are read, by hand; the rest of the file is never parsed.
 * A file py_top_split declines is indexed instead (a parse), its imports at the
 * module level, outside `if` and `try`, taken the same way.
 */
#include "checks/ws_imports.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/codegen_text.h"
#include "py/pytop.h"

#define WS_DEPTH 64

/* One import a module runs at its top level, unguarded. */
typedef struct ws_imp {
    unsigned line;
    char *module; /* absolute */
    char *name;   /* `from module import name`; NULL for `import module` */
    char *bound;  /* the name it binds (its alias, the name, the module's first part) */
} ws_imp;

/* A top-level statement that may bind any name it writes: an assignment, an `if`,
 * a `try`, a `for`, ... (bytes of the module's text). */
typedef struct ws_span {
    size_t start, end;
} ws_span;

/* A module of the workspace as read. */
typedef struct ws_mod {
    char *path; /* NULL: the workspace has no such module */
    char *rel;  /* the path under the workspace's root */
    int pkg;    /* a package's __init__.py */
    int star;   /* a star import at its top level */
    strbuf text;
    VEC(ws_imp) imps;
    /* read from its top-level statements (else from its index): what binds a name
     * at its top level besides the imports is then known */
    int tops;
    strvec defined;      /* the names its top-level def and class statements bind */
    VEC(ws_span) others; /* the statements that may bind what they write */
} ws_mod;

static void ws_mod_free(void *v)
{
    ws_mod *m = v;
    if (!m)
        return;
    for (size_t i = 0; i < m->imps.len; i++) {
        free(m->imps.items[i].module);
        free(m->imps.items[i].name);
        free(m->imps.items[i].bound);
    }
    VEC_FREE(&m->imps);
    strvec_free(&m->defined);
    VEC_FREE(&m->others);
    strbuf_free(&m->text);
    free(m->path);
    free(m);
}

static int ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* 1 when text[0..len) has word as a whole identifier. */
static int mentions(const char *text, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (const char *s = text, *end = text + len; n && s + n <= end;) {
        const char *hit = memmem(s, (size_t)(end - s), word, n);
        if (!hit)
            return 0;
        if ((hit == text || !ident_char(hit[-1])) && (hit + n == end || !ident_char(hit[n])))
            return 1;
        s = hit + 1;
    }
    return 0;
}

/* ---- an import statement, read by hand ---------------------------------------------- */

typedef struct lex {
    const char *s, *e;
    unsigned line;
} lex;

typedef struct tok {
    int kind; /* 'n' an identifier, '.', ',', '(', ')', '*'; 0 the end; -1 unreadable */
    const char *s;
    size_t n;
    unsigned line;
} tok;

static tok next(lex *x)
{
    for (;;) {
        while (x->s < x->e && (*x->s == ' ' || *x->s == '\t' || *x->s == '\f'))
            x->s++;
        if (x->s < x->e && *x->s == '\\' && x->s + 1 < x->e && x->s[1] == '\n') {
            x->s += 2;
            x->line++;
        } else if (x->s < x->e && *x->s == '\n') {
            x->s++;
            x->line++;
        } else if (x->s < x->e && *x->s == '#') {
            while (x->s < x->e && *x->s != '\n')
                x->s++;
        } else {
            break;
        }
    }
    tok t = {0, x->s, 0, x->line};
    if (x->s >= x->e)
        return t;
    if (ident_start(*x->s)) {
        while (x->s < x->e && ident_char(*x->s))
            x->s++;
        t.kind = 'n';
        t.n = (size_t)(x->s - t.s);
    } else if (strchr(".,()*", *x->s)) {
        t.kind = *x->s++;
        t.n = 1;
    } else {
        t.kind = -1; /* a non-ASCII name, a string, a semicolon: not read */
    }
    return t;
}

static int is_word(const tok *t, const char *w)
{
    return t->kind == 'n' && t->n == strlen(w) && !memcmp(t->s, w, t->n);
}

/* `a.b.c` into out, t its first token; the token after it in *t. */
static int dotted(lex *x, tok *t, strbuf *out)
{
    strbuf_reset(out);
    for (;;) {
        if (t->kind != 'n' || is_word(t, "import") || is_word(t, "as"))
            return -1;
        strbuf_add(out, t->s, t->n);
        *t = next(x);
        if (t->kind != '.')
            return 0;
        strbuf_addc(out, '.');
        *t = next(x);
    }
}

/* `as NAME` after an imported name, if there: the alias into *alias (malloc'ed). */
static int skip_alias(lex *x, tok *t, char **alias)
{
    *alias = NULL;
    if (!is_word(t, "as"))
        return 0;
    *t = next(x);
    if (t->kind != 'n')
        return -1;
    *alias = pgci_strndup(t->s, t->n);
    *t = next(x);
    return 0;
}

/* The package a relative import of `level` dots starts from in module (a
 * package's __init__ when pkg), malloc'ed; NULL when it leaves the top. */
static char *relative_base(const char *module, int pkg, int level)
{
    size_t end = strlen(module);
    for (int up = pkg ? 1 : 0; up < level; up++) {
        while (end > 0 && module[end - 1] != '.')
            end--;
        if (!end)
            return NULL;
        end--;
    }
    return pgci_strndup(module, end);
}

static void push_imp(ws_mod *m, unsigned line, const char *module, const char *name,
                     const char *alias)
{
    char *bound = alias  ? pgci_strdup(alias)
                  : name ? pgci_strdup(name)
                         : pgci_strndup(module, strcspn(module, "."));
    ws_imp im = {line, pgci_strdup(module), name ? pgci_strdup(name) : NULL, bound};
    VEC_PUSH(&m->imps, im);
    if (name && !strcmp(name, "*"))
        m->star = 1;
}

/* `from [.]*[a.b] import x [as y], ...` after `from`; 0, or -1 unread (what was
 * read of it is kept: each name is an import of its own). */
static int read_from(lex *x, ws_mod *m, const char *module)
{
    tok t = next(x);
    int level = 0;
    for (; t.kind == '.'; t = next(x))
        level++;
    strbuf mod = STRBUF_INIT;
    int r = 0;
    if (!is_word(&t, "import"))
        r = dotted(x, &t, &mod);
    char *abs = NULL;
    if (r == 0 && level) {
        char *base = relative_base(module, m->pkg, level);
        abs = !base      ? NULL
              : !mod.len ? pgci_strdup(base)
              : !base[0] ? pgci_strdup(mod.buf)
                         : pgci_asprintf("%s.%s", base, mod.buf);
        free(base);
    } else if (r == 0) {
        abs = mod.len ? pgci_strdup(mod.buf) : NULL;
    }
    if (!abs || !is_word(&t, "import"))
        r = -1;
    t = r ? t : next(x);
    int paren = r == 0 && t.kind == '(';
    if (paren)
        t = next(x);
    char *name = NULL;
    while (r == 0) {
        if (t.kind == '*' && !paren) {
            push_imp(m, t.line, abs, "*", NULL);
            t = next(x);
            break;
        }
        if (t.kind != 'n' || is_word(&t, "as")) {
            r = paren && t.kind == ')' ? 0 : -1;
            break;
        }
        unsigned line = t.line;
        free(name);
        name = pgci_strndup(t.s, t.n);
        t = next(x);
        char *alias;
        if (skip_alias(x, &t, &alias) < 0) {
            r = -1;
            break;
        }
        push_imp(m, line, abs, name, alias);
        free(alias);
        if (t.kind != ',')
            break;
        t = next(x);
    }
    if (r == 0 && paren)
        r = t.kind == ')' ? (t = next(x), 0) : -1;
    if (r == 0 && t.kind != 0)
        r = -1;
    free(name);
    free(abs);
    strbuf_free(&mod);
    return r;
}

/* `import a.b [as c], ...` after `import`. */
static int read_import(lex *x, ws_mod *m)
{
    strbuf mod = STRBUF_INIT;
    int r = 0;
    for (tok t = next(x);;) {
        unsigned line = t.line;
        char *alias = NULL;
        if (dotted(x, &t, &mod) < 0 || skip_alias(x, &t, &alias) < 0) {
            r = -1;
            break;
        }
        push_imp(m, line, mod.buf, NULL, alias);
        free(alias);
        if (t.kind == 0)
            break;
        if (t.kind != ',') {
            r = -1;
            break;
        }
        t = next(x);
    }
    strbuf_free(&mod);
    return r;
}

/* A top-level `def` or `class` (decorated or not) in src[start..end): its name into
 * m->defined, 0; -1 for any other statement. Its body binds nothing at the top
 * level (short of a `global`, which only a function that runs can write). */
static size_t def_keyword(const char *line)
{
    return !strncmp(line, "async def ", 10) ? 10
           : !strncmp(line, "def ", 4)      ? 4
           : !strncmp(line, "class ", 6)    ? 6
                                            : 0;
}

static int defines(ws_mod *m, const char *src, size_t start, size_t end)
{
    if (src[start] != '@' && !def_keyword(src + start))
        return -1;
    /* past the decorators (and their arguments' lines) to the line at column 0
     * that starts the definition */
    for (size_t at = start; at < end;) {
        size_t k = def_keyword(src + at), n = 0;
        if (k) {
            while (at + k + n < end && ident_char(src[at + k + n]))
                n++;
            if (!n)
                return -1;
            char *name = pgci_strndup(src + at + k, n);
            strvec_push(&m->defined, name);
            free(name);
            return 0;
        }
        const char *nl = memchr(src + at, '\n', end - at);
        if (!nl)
            return -1;
        at = (size_t)(nl - src) + 1;
    }
    return -1;
}

/* The imports among the top-level statements; -1 when the file is not one
 * py_top_split reads. */
static int read_tops(ws_mod *m, const char *module)
{
    const char *src = m->text.buf ? m->text.buf : "";
    py_top *tops;
    size_t n;
    if (py_top_split(src, m->text.len, &tops, &n) < 0) {
        pgci_error_clear();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        lex x = {src + tops[i].start, src + tops[i].code_end, tops[i].row + 1};
        tok t = next(&x);
        int r = 0;
        if (is_word(&t, "from"))
            r = read_from(&x, m, module);
        else if (is_word(&t, "import"))
            r = read_import(&x, m);
        else if (src[tops[i].start] == '"' || src[tops[i].start] == '\'')
            continue; /* a string (a docstring) binds nothing */
        else
            r = defines(m, src, tops[i].start, tops[i].code_end);
        if (r < 0) {
            ws_span sp = {tops[i].start, tops[i].code_end};
            VEC_PUSH(&m->others, sp);
        }
    }
    free(tops);
    m->tops = 1;
    return 0;
}

/* The same from the file's index: imports at the module level, outside `if`,
 * `try`, functions and classes. */
static void read_index(ws_mod *m, const char *module)
{
    index_module *ix = NULL;
    const char *name = m->pkg ? pgci_asprintf("%s.__init__", module) : pgci_strdup(module);
    if (index_module_from_source(&ix, m->text.buf ? m->text.buf : "", m->text.len, m->path, name) <
        0) {
        pgci_error_clear();
        free((char *)name);
        return;
    }
    free((char *)name);
    for (size_t i = 0; i < ix->n_imports; i++) {
        const index_import *im = &ix->imports[i];
        if (im->scope || im->in_if || im->in_try)
            continue;
        char *abs = NULL;
        if (im->level) {
            char *base = relative_base(module, m->pkg, im->level);
            abs = !base          ? NULL
                  : !*im->module ? pgci_strdup(base)
                  : !base[0]     ? pgci_strdup(im->module)
                                 : pgci_asprintf("%s.%s", base, im->module);
            free(base);
        } else {
            abs = pgci_strdup(im->module);
        }
        if (abs && *abs)
            push_imp(m, im->line, abs, im->name, im->alias);
        free(abs);
    }
    index_module_free(ix);
}

/* The module as the workspace has it: `M.py` or the package's `M/__init__.py`. */
static ws_mod *read_mod(const char *root, const char *module)
{
    ws_mod *m = pgci_calloc(1, sizeof(*m));
    strbuf_init(&m->text, 0);
    strbuf path = STRBUF_INIT;
    strbuf_addf(&path, "%s/", root);
    for (const char *q = module; *q; q++)
        strbuf_addc(&path, *q == '.' ? '/' : *q);
    size_t base = path.len;
    for (int pkg = 0; pkg < 2 && !m->path; pkg++) {
        strbuf_setlen(&path, base);
        strbuf_adds(&path, pkg ? "/__init__.py" : ".py");
        if (fs_is_file(path.buf) && fs_read_file(&m->text, path.buf, 16u << 20) == 0) {
            m->path = pgci_strdup(path.buf);
            m->pkg = pkg;
        }
    }
    pgci_error_clear();
    strbuf_free(&path);
    if (!m->path)
        return m;
    m->rel = m->path + strlen(root) + 1;
    if (read_tops(m, module) < 0)
        read_index(m, module);
    return m;
}

/* ---- the workspace's import graph, once a run --------------------------------------- */

/* How an import reaches a module: the module it names, a package above it (which
 * Python runs first), or the submodule `from package import name` loads. */
typedef enum ws_via { VIA_MODULE, VIA_PACKAGE, VIA_SUBMODULE } ws_via;

typedef struct ws_node ws_node;

typedef struct ws_edge {
    ws_node *to;
    const ws_imp *imp;
    ws_via via;
} ws_edge;

struct ws_node {
    size_t id; /* in the order the graph read them */
    char *name;
    ws_mod *m;
    int expanded;
    VEC(ws_edge) edges;        /* in the order the module runs its imports */
    VEC(const ws_imp *) sites; /* its imports from transformers */
};

/* The modules of one workspace read so far, shared by every config of the run:
 * each module is read and its imports resolved once. */
typedef struct ws_graph {
    pthread_mutex_t lock;
    char *root;
    hashmap index; /* name -> ws_node */
    size_t n;      /* nodes */
} ws_graph;

static void node_free(void *v)
{
    ws_node *n = v;
    ws_mod_free(n->m);
    VEC_FREE(&n->edges);
    VEC_FREE(&n->sites);
    free(n->name);
    free(n);
}

static void graph_free(void *v)
{
    ws_graph *g = v;
    if (!g)
        return;
    hashmap_free_with(&g->index, node_free);
    pthread_mutex_destroy(&g->lock);
    free(g->root);
    free(g);
}

static void *graph_new(const char *key, void *arg)
{
    (void)key;
    ws_graph *g = pgci_calloc(1, sizeof(*g));
    pthread_mutex_init(&g->lock, NULL);
    g->root = pgci_strdup(arg);
    return g;
}

static int is_transformers(const char *m)
{
    return !strncmp(m, "transformers", 12) && (!m[12] || m[12] == '.');
}

/* The module's node, read when first asked; NULL for a transformers module. */
static ws_node *node(ws_graph *g, const char *name)
{
    if (is_transformers(name))
        return NULL;
    ws_node *n = hashmap_get(&g->index, name);
    if (!n) {
        n = pgci_calloc(1, sizeof(*n));
        n->id = g->n++;
        n->name = pgci_strdup(name);
        n->m = read_mod(g->root, name);
        hashmap_put(&g->index, name, n);
    }
    return n;
}

/* Whether module m's text names name as a word outside the lines of its imports
 * that load the submodule sub (`from . import name`, `from .name import x`). */
static int named_outside(const ws_mod *m, const char *pkg, const char *name, const char *sub)
{
    size_t n = strlen(sub);
    VEC(unsigned) lines = VEC_INIT;
    for (size_t i = 0; i < m->imps.len; i++) {
        const ws_imp *im = &m->imps.items[i];
        if ((!strcmp(im->module, pkg) && im->name && !strcmp(im->name, name)) ||
            (!strncmp(im->module, sub, n) && (!im->module[n] || im->module[n] == '.')))
            VEC_PUSH(&lines, im->line);
    }
    const char *text = m->text.buf ? m->text.buf : "", *end = text + m->text.len;
    size_t wl = strlen(name);
    int named = 0;
    unsigned line = 1;
    const char *at = text;
    for (const char *s = text; !named && s + wl <= end;) {
        const char *hit = memmem(s, (size_t)(end - s), name, wl);
        if (!hit)
            break;
        for (; at < hit; at++)
            line += *at == '\n';
        int own = 0;
        for (size_t i = 0; i < lines.len; i++)
            own |= lines.items[i] == line;
        named = !own && (hit == text || !ident_char(hit[-1])) &&
                (hit + wl == end || !ident_char(hit[wl]));
        s = hit + 1;
    }
    VEC_FREE(&lines);
    return named;
}

/* Whether package module m binds name at its top level otherwise than by loading
 * the submodule sub: a def or class of that name, an import binding it (not `from
 * . import name`, which loads the submodule), or a statement of another kind
 * (an assignment, an `if`, a `try`) that writes it. Read from the top-level
 * statements; a module read from its index binds it wherever its text names it. */
static int binds_otherwise(const ws_mod *m, const char *pkg, const char *name, const char *sub)
{
    if (!m->tops)
        return named_outside(m, pkg, name, sub);
    if (strvec_find(&m->defined, name) >= 0)
        return 1;
    size_t n = strlen(sub);
    for (size_t i = 0; i < m->imps.len; i++) {
        const ws_imp *im = &m->imps.items[i];
        int loads = (!strcmp(im->module, pkg) && im->name && !strcmp(im->name, name)) ||
                    (!strncmp(im->module, sub, n) && (!im->module[n] || im->module[n] == '.'));
        if (!loads && !strcmp(im->bound, name))
            return 1;
    }
    const char *text = m->text.buf ? m->text.buf : "";
    for (size_t i = 0; i < m->others.len; i++)
        if (mentions(text + m->others.items[i].start,
                     m->others.items[i].end - m->others.items[i].start, name))
            return 1;
    return 0;
}

/* Whether `from pkg import name` loads the submodule pkg.name: the package's file
 * is there, the submodule's too, and the package does not bind the name otherwise
 * (a star import may bind anything). */
static ws_node *submodule(ws_graph *g, const char *pkg, const char *name)
{
    ws_node *pn = node(g, pkg);
    const ws_mod *pk = pn ? pn->m : NULL;
    if (!pk || !pk->path || !pk->pkg || pk->star || !strcmp(name, "*"))
        return NULL;
    char *sub = pgci_asprintf("%s.%s", pkg, name);
    ws_node *sn = binds_otherwise(pk, pkg, name, sub) ? NULL : node(g, sub);
    free(sub);
    return sn && sn->m->path ? sn : NULL;
}

static void add_edge(ws_node *from, ws_node *to, const ws_imp *imp, ws_via via)
{
    if (!to || !to->m->path)
        return;
    ws_edge e = {to, imp, via};
    VEC_PUSH(&from->edges, e);
}

/* The edges an import of module (and name) makes, in Python's order: the packages
 * above it, the module, then the submodule it may load. */
static void import_edges(ws_graph *g, ws_node *from, const char *module, const char *name,
                         const ws_imp *imp)
{
    for (const char *dot = strchr(module, '.'); dot; dot = strchr(dot + 1, '.')) {
        char *pkg = pgci_strndup(module, (size_t)(dot - module));
        add_edge(from, node(g, pkg), imp, VIA_PACKAGE);
        free(pkg);
    }
    add_edge(from, node(g, module), imp, VIA_MODULE);
    if (name)
        add_edge(from, submodule(g, module, name), imp, VIA_SUBMODULE);
}

static void expand(ws_graph *g, ws_node *n)
{
    if (n->expanded)
        return;
    n->expanded = 1;
    for (size_t i = 0; n->m->path && i < n->m->imps.len; i++) {
        const ws_imp *im = &n->m->imps.items[i];
        if (is_transformers(im->module))
            VEC_PUSH(&n->sites, im);
        else
            import_edges(g, n, im->module, im->name, im);
    }
}

/* ---- the modules a config's generated module imports -------------------------------- */

/* One module reached: through which edge of which step (the first step of a
 * config's import has none: root says how the config imports `module`). */
typedef struct wstep {
    const ws_node *n;
    long parent;
    const ws_imp *imp; /* NULL: the config's own import */
    ws_via via;
    const char *root;   /* "the config's `add_import`", "a post-import block of the config" */
    const char *module; /* the module the config's import names */
    const char *name;   /* and the name, for a submodule */
} wstep;

/* An import of transformers that a module of the workspace runs. */
typedef struct site {
    size_t step;
    const ws_imp *imp;
} site;

/* One config's walk, made once a run (the fetch, the comparison and its standing
 * run read it). */
typedef struct wctx {
    const survey_pair *p;
    ws_graph *g;
    void *own;      /* the graph, when there is no run memo */
    VEC(char) seen; /* by node id */
    VEC(wstep) steps;
    VEC(site) sites;
    hashmap loads; /* the names the config's bodies read */
    strvec kept;   /* the config's module names the steps point to, copied */
    int ok;
} wctx;

static void visit(wctx *c, ws_node *n, const wstep *how, int depth)
{
    if (!n || !n->m->path || depth > WS_DEPTH)
        return;
    while (c->seen.len <= n->id)
        VEC_PUSH(&c->seen, 0);
    if (c->seen.items[n->id])
        return;
    c->seen.items[n->id] = 1;
    expand(c->g, n);
    wstep st = *how;
    st.n = n;
    size_t self = c->steps.len;
    VEC_PUSH(&c->steps, st);
    for (size_t i = 0; i < n->sites.len; i++) {
        site s = {self, n->sites.items[i]};
        VEC_PUSH(&c->sites, s);
    }
    for (size_t i = 0; i < n->edges.len; i++) {
        const ws_edge *e = &n->edges.items[i];
        wstep next = {NULL, (long)self, e->imp, e->via, NULL, NULL, NULL};
        visit(c, e->to, &next, depth + 1);
    }
}

/* A copy of s the walk keeps (the config's texts may be gone when it is read). */
static const char *keep(wctx *c, const char *s)
{
    strvec_push(&c->kept, s);
    return c->kept.items[c->kept.len - 1];
}

/* A config's import of module (and names) in the generated module. */
static void visit_root(wctx *c, const char *root, const char *module, const char *const *names,
                       size_t n_names)
{
    if (is_transformers(module))
        return;
    wstep how = {NULL, -1, NULL, VIA_PACKAGE, root, keep(c, module), NULL};
    for (const char *dot = strchr(module, '.'); dot; dot = strchr(dot + 1, '.')) {
        char *pkg = pgci_strndup(module, (size_t)(dot - module));
        visit(c, node(c->g, pkg), &how, 0);
        free(pkg);
    }
    how.via = VIA_MODULE;
    visit(c, node(c->g, module), &how, 0);
    how.via = VIA_SUBMODULE;
    for (size_t i = 0; i < n_names; i++) {
        how.name = keep(c, names[i]);
        visit(c, submodule(c->g, module, names[i]), &how, 0);
    }
}

/* The names the config's bodies read (the generated module's uses of an import). */
static void body_loads(const survey_pair *p, hashmap *out)
{
    const pg_config *cfg = p->cfg;
    VEC(const pg_object *) objs = VEC_INIT;
    for (size_t i = 0; i < cfg->patches.len; i++)
        if (cfg->patches.items[i].replacement)
            VEC_PUSH(&objs, cfg->patches.items[i].replacement);
    for (size_t i = 0; i < cfg->helpers.len; i++)
        VEC_PUSH(&objs, cfg->helpers.items[i]);
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++)
        VEC_PUSH(&objs, cfg->positioned_helpers.items[i].helper);
    for (size_t i = 0; i < objs.len; i++) {
        char *text = signatures_object_text(objs.items[i]);
        body_uses own;
        const body_uses *u =
            text ? survey_object_uses(p, objs.items[i], text, strlen(text), &own) : NULL;
        for (size_t k = 0; u && k < u->loads.len; k++)
            hashmap_put(out, u->loads.items[k], (void *)1);
        if (u)
            body_uses_free(&own);
        pgci_error_clear();
        free(text);
    }
    VEC_FREE(&objs);
}

/* Whether a post-import block uses name outside its import statement at
 * [skip, skip_end) of its dedented text d, or another block does (a comment
 * read as a use only follows an import ruff would drop: blocks are small). */
static int block_uses(const pg_config *cfg, size_t self, const char *d, size_t skip,
                      size_t skip_end, const char *name)
{
    if (mentions(d, skip, name) || mentions(d + skip_end, strlen(d) - skip_end, name))
        return 1;
    for (size_t i = 0; i < cfg->post_import_blocks.len; i++) {
        const char *b = cfg->post_import_blocks.items[i];
        if (i != self && mentions(b, strlen(b), name))
            return 1;
    }
    return 0;
}

/* The imports of a post-import block the generated module keeps: at the block's
 * top level, unguarded, absolute; used by the bodies or the blocks, or `noqa`. */
static void block_roots(wctx *c, size_t self)
{
    const char *block = c->p->cfg->post_import_blocks.items[self];
    static const char who[] = "a post-import block of the config";
    strbuf d = STRBUF_INIT;
    cgtext_dedent(&d, block, strlen(block));
    index_module *own = NULL;
    const char *text = d.buf ? d.buf : "";
    const index_module *m = survey_patch_index(c->p, text, d.len, &own);
    pgci_error_clear();
    for (size_t i = 0; m && i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        if (im->scope || im->in_if || im->in_try || im->level || is_transformers(im->module))
            continue;
        char *first = pgci_strndup(im->module, strcspn(im->module, "."));
        const char *bound = im->alias ? im->alias : im->name ? im->name : first;
        /* the statement to the end of its last line, where a `# noqa` stands */
        size_t s = im->stmt_start, e = im->stmt_end <= d.len ? im->stmt_end : d.len;
        while (e < d.len && text[e] != '\n')
            e++;
        int noqa = s < e && memmem(text + s, e - s, "noqa", 4) != NULL;
        if (noqa || hashmap_has(&c->loads, bound) || block_uses(c->p->cfg, self, text, s, e, bound))
            visit_root(c, who, im->module, &im->name, im->name ? 1 : 0);
        free(first);
    }
    if (own)
        index_module_free(own);
    strbuf_free(&d);
}

/* Every module of the workspace the config's generated module imports, and the
 * transformers imports they run. */
static void wctx_walk(wctx *c, const survey_pair *p)
{
    memset(c, 0, sizeof(*c));
    c->p = p;
    char *root = survey_workspace_root(p->cfg);
    if (!root)
        return;
    char *key = pgci_asprintf("ws_imports\n%s", root);
    c->g = survey_memo(p, key, graph_new, root, graph_free, &c->own);
    free(key);
    free(root);
    body_loads(p, &c->loads);
    pthread_mutex_lock(&c->g->lock);
    const pg_config *cfg = p->cfg;
    for (size_t i = 0; i < cfg->additional_imports.len; i++) {
        const pg_import *im = &cfg->additional_imports.items[i];
        int used = 0;
        for (size_t k = 0; im->is_from_import && k < im->names_len; k++)
            used |= hashmap_has(&c->loads, im->names[k]);
        if (!im->is_from_import) {
            char *first = pgci_strndup(im->module, strcspn(im->module, "."));
            used = hashmap_has(&c->loads, im->alias ? im->alias : first);
            free(first);
        }
        /* ruff's fix drops an import nothing uses */
        if (used)
            visit_root(c, "the config's `add_import`", im->module,
                       im->is_from_import ? im->names : NULL,
                       im->is_from_import ? im->names_len : 0);
    }
    pthread_mutex_unlock(&c->g->lock);
    for (size_t i = 0; i < cfg->post_import_blocks.len; i++) {
        pthread_mutex_lock(&c->g->lock);
        block_roots(c, i);
        pthread_mutex_unlock(&c->g->lock);
    }
    c->ok = 1;
    /* what only the walk needed */
    VEC_FREE(&c->seen);
    hashmap_free(&c->loads);
    c->p = NULL;
}

static void walk_release(void *v)
{
    wctx *c = v;
    graph_free(c->own);
    VEC_FREE(&c->seen);
    VEC_FREE(&c->steps);
    VEC_FREE(&c->sites);
    hashmap_free(&c->loads);
    strvec_free(&c->kept);
    free(c);
}

static void *walk_make(const char *key, void *arg)
{
    (void)key;
    wctx *c = pgci_malloc(sizeof(*c));
    wctx_walk(c, arg);
    return c;
}

/* The config's walk: the run's, or one made into *own (walk_release it). */
static const wctx *walk_of(const survey_pair *p, void **own)
{
    char *key = pgci_asprintf("ws_imports walk\n%p", (const void *)p->cfg);
    const wctx *c = survey_memo(p, key, walk_make, (void *)p, walk_release, own);
    free(key);
    return c;
}

/* transformers.models.<m>.modeling_<...> */
static int is_model_module(const char *m)
{
    static const char pre[] = "transformers.models.";
    if (strncmp(m, pre, sizeof(pre) - 1))
        return 0;
    const char *dot = strchr(m + sizeof(pre) - 1, '.');
    return dot && !strncmp(dot + 1, "modeling_", 9) && !strchr(dot + 1, '.');
}

void ws_imports_modules(strvec *fetch, const survey_pair *p, const strvec *read)
{
    if (!p->cfg)
        return;
    void *own;
    const wctx *c = walk_of(p, &own);
    for (size_t i = 0; c->ok && i < c->sites.len; i++) {
        const ws_imp *im = c->sites.items[i].imp;
        if (im->name && strcmp(im->module, "transformers") &&
            (is_model_module(im->module) || strvec_find(read, im->module) >= 0) &&
            strvec_find(fetch, im->module) < 0)
            strvec_push(fetch, im->module);
    }
    if (own)
        walk_release(own);
}

/* ---- judging ------------------------------------------------------------------------ */

/* Module name of the pair at one side (0: A, 1: B), with its source (may be NULL). */
static const index_module *module_at(const survey_pair *p, int side, const char *name,
                                     const char **src, size_t *len)
{
    *src = NULL;
    *len = 0;
    if (p->cfg->source_module && !strcmp(name, p->cfg->source_module)) {
        *src = side ? p->src_b : p->src_a;
        *len = side ? p->src_b_len : p->src_a_len;
        return side ? p->b : p->a;
    }
    if (!strcmp(name, "transformers.modeling_utils") && p->base_a && p->base_b) {
        *src = side ? p->base_src_b : p->base_src_a;
        *len = side ? p->base_src_b_len : p->base_src_a_len;
        return side ? p->base_b : p->base_a;
    }
    const survey_ext *lists[2] = {p->ext, p->ws_ext};
    size_t ns[2] = {p->n_ext, p->n_ws_ext};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < ns[l]; i++)
            if (!strcmp(lists[l][i].module, name) && lists[l][i].a && lists[l][i].b) {
                *src = side ? lists[l][i].src_b : lists[l][i].src_a;
                *len = side ? lists[l][i].src_b_len : lists[l][i].src_a_len;
                return side ? lists[l][i].b : lists[l][i].a;
            }
    return NULL;
}

typedef enum bound { B_UNKNOWN, B_YES, B_NO } bound;

/* The module may bind names no statement of it names: a star import, a module
 * `__getattr__` (PEP 562), a write into `sys.modules` or `globals()`. */
static int binds_dynamically(const index_module *m, const char *src, size_t len)
{
    for (size_t i = 0; i < m->n_imports; i++)
        if (m->imports[i].name && !strcmp(m->imports[i].name, "*"))
            return 1;
    const index_def *ga = index_find(m, "__getattr__");
    if (ga && !ga->parent)
        return 1;
    return src && (memmem(src, len, "sys.modules", 11) || mentions(src, len, "globals"));
}

static bound judge(const survey_pair *p, int side, const ws_imp *im)
{
    if (!im->name || !strcmp(im->name, "*") || !strcmp(im->module, "transformers"))
        return B_UNKNOWN;
    const char *src;
    size_t len;
    const index_module *m = module_at(p, side, im->module, &src, &len);
    if (!m)
        return B_UNKNOWN;
    if (signatures_module_binds(m, im->name))
        return B_YES;
    return binds_dynamically(m, src, len) ? B_UNKNOWN : B_NO;
}

/* How the generated module comes to import step k's module, one line a step from
 * the config's import. */
static void chain(strbuf *out, const wctx *c, size_t k)
{
    long at[WS_DEPTH + 2];
    size_t n = 0;
    for (long i = (long)k; i >= 0 && n < WS_DEPTH + 2; i = c->steps.items[i].parent)
        at[n++] = i;
    while (n--) {
        const wstep *st = &c->steps.items[at[n]];
        const wstep *from = st->parent >= 0 ? &c->steps.items[st->parent] : NULL;
        const char *module = st->imp ? st->imp->module : st->module;
        const char *name = st->imp ? st->imp->name : st->name;
        strbuf_adds(out, "  ");
        if (from)
            strbuf_addf(out, "`%s` line %u", from->n->m->rel, st->imp->line);
        else
            strbuf_adds(out, st->root);
        if (st->via == VIA_PACKAGE)
            strbuf_addf(out, " imports `%s`, and Python runs its package `%s` first", module,
                        st->n->name);
        else if (st->via == VIA_SUBMODULE)
            strbuf_addf(out, " imports `%s` (`from %s import %s`)", st->n->name, module, name);
        else
            strbuf_addf(out, " imports `%s`", module);
        strbuf_addf(out, " (%s)\n", st->n->m->rel);
    }
}

static void report(findings *out, const survey_pair *p, const wctx *c, const site *s)
{
    const ws_node *wn = c->steps.items[s->step].n;
    const ws_mod *w = wn->m;
    const ws_imp *im = s->imp;
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string("ws-import-removed"));
    json_object_set_new(data, "target", json_string(im->name));
    json_object_set_new(data, "name", json_string(im->name));
    json_object_set_new(data, "module", json_string(im->module));
    json_object_set_new(data, "file", json_string(w->rel));
    json_object_set_new(data, "line", json_integer(im->line));
    json_object_set_new(data, "workspace_module", json_string(wn->name));
    json_object_set_new(data, "from", json_string(p->tag_a));
    json_object_set_new(data, "to", json_string(p->tag_b));
    finding *f = findings_add(out, "callees", SEV_ERROR, p->config, w->rel, im->line, 0, data,
                              "`%s` line %u imports `%s` from `%s`, which no longer has it at %s: "
                              "importing the generated module raises ImportError",
                              w->rel, im->line, im->name, im->module, p->tag_b);
    strbuf d = STRBUF_INIT;
    strbuf_addf(&d, "%s: `%s` binds `%s`; %s: it does not.\nthe generated module imports it so:\n",
                p->tag_a, im->module, im->name, p->tag_b);
    chain(&d, c, s->step);
    finding_set_detail(f, d.buf);
    strbuf_free(&d);
}

void ws_imports_compare(findings *out, const survey_pair *p)
{
    if (!p->a || !p->b || !p->cfg)
        return;
    void *own;
    const wctx *c = walk_of(p, &own);
    /* an import the generated module runs fails at A already: nothing is the bump's */
    int fails_a = !c->ok;
    for (size_t i = 0; i < c->sites.len && !fails_a; i++)
        fails_a = judge(p, 0, c->sites.items[i].imp) == B_NO;
    strvec done = STRVEC_INIT;
    for (size_t i = 0; i < c->sites.len && !fails_a; i++) {
        const site *s = &c->sites.items[i];
        if (judge(p, 0, s->imp) != B_YES || judge(p, 1, s->imp) != B_NO)
            continue;
        char *key = pgci_asprintf("%s|%u|%s", c->steps.items[s->step].n->m->rel, s->imp->line,
                                  s->imp->name);
        if (strvec_find(&done, key) < 0) {
            strvec_push(&done, key);
            report(out, p, c, s);
        }
        free(key);
    }
    strvec_free(&done);
    if (own)
        walk_release(own);
}
