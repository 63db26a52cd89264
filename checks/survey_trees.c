/*
 * survey_trees.c - the survey's trees through the run's parse set, and the run's
 * memos of what is read from them (body uses, body comparisons), under one lock:
 * the comparison runs on one thread, beside the regeneration.
 */
#include "checks/survey_trees.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/inlined.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/hashmap.h"
#include "py/parse_set.h"
#include "py/structural.h"

int survey_tree_get(const survey_pair *p, py_tree *t, const char *src, size_t len, const char *path)
{
    return p->parses ? py_parse_set_get(p->parses, src, len, path, t) : py_parse(t, src, len, path);
}

void survey_tree_release(const survey_pair *p, py_tree *t)
{
    if (p->parses)
        py_parse_set_release(t);
    else
        py_tree_free(t);
}

static int read_uses(const survey_pair *p, body_uses *out, const char *text, size_t len)
{
    py_tree t;
    int r = survey_tree_get(p, &t, text, len, "<patch>");
    if (r < 0)
        return r;
    body_uses_of_tree(out, &t);
    survey_tree_release(p, &t);
    return 0;
}

typedef struct body_entry {
    int ok;
    int ready; /* uses read (under the lock); until then its reader is at it */
    body_uses uses;
} body_entry;

struct survey_bodies {
    pthread_mutex_t lock;
    pthread_cond_t read; /* a body_entry became ready */
    hashmap by_text;     /* body text -> body_entry */
    hashmap same;        /* "a-pointer a-length b-pointer b-length" -> 1 + the answer */
    hashmap indexes;     /* patch text -> index_entry */
    hashmap files;       /* "%p" of a config file's tree -> index_entry (survey_object_def) */
    hashmap calls;       /* body text -> survey_calls */
    hashmap ws;          /* a workspace file's path -> index_entry (survey_file_index) */
    hashmap memo;        /* survey_memo's key -> memo_entry */
};

typedef struct memo_entry {
    void *value;
    void (*release)(void *);
} memo_entry;

static void memo_entry_free(void *v)
{
    memo_entry *e = v;
    if (e->value && e->release)
        e->release(e->value);
    free(e);
}

typedef struct index_entry {
    index_module *m; /* NULL: the text does not parse */
} index_entry;

survey_bodies *survey_bodies_new(void)
{
    survey_bodies *b = pgci_calloc(1, sizeof(*b));
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->read, NULL);
    return b;
}

static void entry_free(void *v)
{
    body_entry *e = v;
    body_uses_free(&e->uses);
    free(e);
}

static void index_entry_free(void *v)
{
    index_entry *e = v;
    if (e->m)
        index_module_free(e->m);
    free(e);
}

static void calls_free(survey_calls *c)
{
    for (size_t i = 0; i < c->len; i++)
        free(c->items[i].name);
    VEC_FREE(c);
}

static void calls_entry_free(void *v)
{
    calls_free(v);
    free(v);
}

void survey_bodies_free(survey_bodies *b)
{
    if (!b)
        return;
    hashmap_free_with(&b->by_text, entry_free);
    hashmap_free_with(&b->indexes, index_entry_free);
    hashmap_free_with(&b->files, index_entry_free);
    hashmap_free_with(&b->calls, calls_entry_free);
    hashmap_free_with(&b->ws, index_entry_free);
    hashmap_free_with(&b->memo, memo_entry_free);
    hashmap_free(&b->same);
    pthread_cond_destroy(&b->read);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

/* A file of the workspace indexed (NULL when it cannot be read or parsed). */
static index_module *read_file_index(const char *path, const char *module)
{
    strbuf text = STRBUF_INIT;
    index_module *m = NULL;
    if (fs_read_file(&text, path, 16u << 20) < 0 ||
        index_module_from_source(&m, text.buf ? text.buf : "", text.len, path, module) < 0)
        m = NULL;
    pgci_error_clear();
    strbuf_free(&text);
    return m;
}

const index_module *survey_file_index(const survey_pair *p, const char *path, const char *module,
                                      index_module **own)
{
    *own = NULL;
    if (!p->bodies)
        return *own = read_file_index(path, module);
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    index_entry *e = hashmap_get(&b->ws, path);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        e->m = read_file_index(path, module);
        hashmap_put(&b->ws, path, e);
    }
    pthread_mutex_unlock(&b->lock);
    return e->m;
}

void *survey_memo(const survey_pair *p, const char *key, void *(*make)(const char *key, void *arg),
                  void *arg, void (*release)(void *), void **own)
{
    *own = NULL;
    if (!p->bodies)
        return *own = make(key, arg);
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    memo_entry *e = hashmap_get(&b->memo, key);
    pthread_mutex_unlock(&b->lock);
    if (e)
        return e->value;
    /* made without the lock (make may ask the memos); a thread that made it too
     * keeps the first one */
    void *v = make(key, arg);
    pthread_mutex_lock(&b->lock);
    e = hashmap_get(&b->memo, key);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        e->value = v;
        e->release = release;
        hashmap_put(&b->memo, key, e);
        v = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    if (v && release)
        release(v);
    return e->value;
}

char *survey_workspace_root(const pg_config *cfg)
{
    if (!cfg || !cfg->file || !cfg->module)
        return NULL;
    strbuf rel = STRBUF_INIT;
    for (const char *q = cfg->module; *q; q++)
        strbuf_addc(&rel, *q == '.' ? '/' : *q);
    strbuf_adds(&rel, ".py");
    size_t fl = strlen(cfg->file);
    char *root = NULL;
    if (fl > rel.len + 1 && !strcmp(cfg->file + fl - rel.len, rel.buf) &&
        cfg->file[fl - rel.len - 1] == '/')
        root = pgci_strndup(cfg->file, fl - rel.len - 1);
    strbuf_free(&rel);
    return root;
}

/* The comparison of two stretches, asked once a run (p->bodies); `def` when they
 * are definitions a and b of p->src_a and p->src_b, read from the modules' trees. */
static int same_body(const survey_pair *p, const char *a, size_t alen, const char *b, size_t blen,
                     const index_def *da, const index_def *db)
{
    char key[96];
    snprintf(key, sizeof(key), "%p %zu %p %zu", (const void *)a, alen, (const void *)b, blen);
    survey_bodies *m = p->bodies;
    if (m) {
        pthread_mutex_lock(&m->lock);
        intptr_t got = (intptr_t)hashmap_get(&m->same, key);
        pthread_mutex_unlock(&m->lock);
        if (got)
            return (int)(got - 1);
    }
    int eq = -1;
    py_tree ta, tb;
    if (da && p->parses &&
        py_parse_set_get(p->parses_a ? p->parses_a : p->parses, p->src_a, p->src_a_len,
                         "<upstream at A>", &ta) == 0) {
        /* B := A (the standing facts): A's source on both sides, and its tree */
        py_parse_set *set_b = p->src_b == p->src_a && p->parses_a ? p->parses_a : p->parses;
        if (py_parse_set_get(set_b, p->src_b, p->src_b_len, "<upstream at B>", &tb) == 0) {
            eq = structural_def_bodies_equal(&ta, da->start_byte, &tb, db->start_byte);
            py_parse_set_release(&tb);
        }
        py_parse_set_release(&ta);
    }
    if (eq < 0) {
        pgci_error_clear();
        eq = structural_bodies_equal(a, alen, b, blen);
    }
    if (eq < 0 || !m)
        return eq; /* an error is the caller's; not remembered */
    pthread_mutex_lock(&m->lock);
    hashmap_put(&m->same, key, (void *)(intptr_t)(eq + 1));
    pthread_mutex_unlock(&m->lock);
    return eq;
}

int survey_same_body(const survey_pair *p, const char *a, size_t alen, const char *b, size_t blen)
{
    return same_body(p, a, alen, b, blen, NULL, NULL);
}

int survey_same_def_body(const survey_pair *p, const index_def *a, const index_def *b)
{
    if (!p->src_a || !p->src_b || a->end_byte > p->src_a_len || b->end_byte > p->src_b_len ||
        a->start_byte > a->end_byte || b->start_byte > b->end_byte)
        return 0;
    int eq = same_body(p, p->src_a + a->start_byte, a->end_byte - a->start_byte,
                       p->src_b + b->start_byte, b->end_byte - b->start_byte, a, b);
    if (eq < 0)
        pgci_error_clear();
    return eq == 1;
}

/* The definition d of side `side` (0: A) in *out, its one-use temporaries
 * inlined (inlined.h), from its module's tree in the run's parse set when there
 * is one; the number inlined, or negative. */
static int inlined_side(const survey_pair *p, int side, const index_def *d, strbuf *out)
{
    const char *src = side ? p->src_b : p->src_a;
    size_t len = side ? p->src_b_len : p->src_a_len;
    py_parse_set *set = side && !(p->src_b == p->src_a && p->parses_a)
                            ? p->parses
                            : (p->parses_a ? p->parses_a : p->parses);
    py_tree t;
    if (set &&
        py_parse_set_get(set, src, len, side ? "<upstream at B>" : "<upstream at A>", &t) == 0) {
        int n = inlined_temporaries_at(out, &t, d->start_byte, d->end_byte);
        py_parse_set_release(&t);
        return n;
    }
    pgci_error_clear();
    return inlined_temporaries(out, src + d->start_byte, d->end_byte - d->start_byte);
}

int survey_same_def_body_inlined(const survey_pair *p, const index_def *a, const index_def *b)
{
    if (!p->src_a || !p->src_b || a->end_byte > p->src_a_len || b->end_byte > p->src_b_len ||
        a->start_byte > a->end_byte || b->start_byte > b->end_byte ||
        !inlined_may_read_same(p->src_a + a->start_byte, a->end_byte - a->start_byte,
                               p->src_b + b->start_byte, b->end_byte - b->start_byte))
        return 0;
    strbuf ta = STRBUF_INIT, tb = STRBUF_INIT;
    int na = inlined_side(p, 0, a, &ta);
    int nb = na < 0 ? -1 : inlined_side(p, 1, b, &tb);
    int same = na >= 0 && nb >= 0 && na + nb > 0 &&
               structural_bodies_equal(ta.buf, ta.len, tb.buf, tb.len) == 1;
    pgci_error_clear();
    strbuf_free(&ta);
    strbuf_free(&tb);
    return same;
}

int survey_object_view(const pg_object *o, survey_view *v)
{
    memset(v, 0, sizeof(*v));
    if (!o || !o->tree || !o->parses_alone || !o->text || o->start_line == 0 ||
        o->end_line < o->start_line || getenv("PGCI_NO_OBJECT_VIEWS"))
        return 0;
    /* the byte of its first line: the text signatures_object_text() reads */
    size_t len = o->text_len ? o->text_len : strlen(o->text);
    const char *p = o->text, *end = o->text + len, *nl;
    for (unsigned line = 1; line < o->start_line; line++) {
        if (!(nl = memchr(p, '\n', (size_t)(end - p))))
            return 0;
        p = nl + 1;
    }
    v->t.tree = (TSTree *)o->tree;
    v->t.src = (char *)o->text;
    v->t.len = len;
    v->t.path = (char *)(o->file ? o->file : "<config>");
    v->root = ts_tree_root_node(o->tree);
    uint32_t at = (uint32_t)(p - o->text);
    /* the module's statements on the object's lines: its def (a decorated one
     * whole), and the comments around it that those lines hold */
    for (TSNode s = ts_node_first_named_child_for_byte(v->root, at);
         !ts_node_is_null(s) && ts_node_start_point(s).row + 1 <= o->end_line;
         s = ts_node_next_named_sibling(s)) {
        if (ts_node_start_byte(s) < at)
            continue;
        if (v->n == sizeof(v->stmts) / sizeof(*v->stmts))
            return 0; /* more than a def and its comments: parsed alone */
        v->stmts[v->n++] = s;
    }
    if (!v->n || ts_node_start_byte(v->stmts[0]) != at || ts_node_has_error(v->root))
        return 0;
    v->row0 = o->start_line - 1;
    return 1;
}

int survey_object_tree(const survey_pair *p, const pg_object *o, const char *text, size_t len,
                       survey_view *v)
{
    if (survey_object_view(o, v))
        return 0;
    memset(v, 0, sizeof(*v));
    int r = survey_tree_get(p, &v->t, text, len, "<patch>");
    if (r < 0)
        return r;
    v->parsed = 1;
    v->root = py_root(&v->t);
    v->stmts[v->n++] = v->root;
    return 0;
}

void survey_object_tree_release(const survey_pair *p, survey_view *v)
{
    if (v->parsed)
        survey_tree_release(p, &v->t);
    memset(v, 0, sizeof(*v));
}

/* The uses of an object's lines: from its file's tree when survey_object_view
 * gives one, else from the run's tree of its text. */
static int read_object_uses(const survey_pair *p, const pg_object *o, body_uses *out,
                            const char *text, size_t len)
{
    survey_view v;
    if (!survey_object_view(o, &v))
        return read_uses(p, out, text, len);
    body_uses_of_statements(out, &v.t, v.root, v.stmts, v.n, v.row0);
    if (getenv("PGCI_VERIFY_OBJECT_VIEWS")) {
        body_uses parsed;
        if (body_uses_read(&parsed, text, len) < 0 || !body_uses_equal(out, &parsed)) {
            fprintf(stderr,
                    "pgci: PGCI_VERIFY_OBJECT_VIEWS: %s (%s, lines %u-%u) reads "
                    "differently in its file's tree\n",
                    o->name, o->file ? o->file : "?", o->start_line, o->end_line);
            abort();
        }
        body_uses_free(&parsed);
    }
    return 0;
}

const body_uses *survey_object_uses(const survey_pair *p, const pg_object *o, const char *text,
                                    size_t len, body_uses *own)
{
    memset(own, 0, sizeof(*own));
    if (!p->bodies)
        return read_object_uses(p, o, own, text, len) == 0 ? own : NULL;
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    body_entry *e = hashmap_getn(&b->by_text, text, len);
    if (!e) {
        /* read without the lock, so that threads read different bodies at once; a
         * thread that asks for this body meanwhile waits for it */
        e = pgci_calloc(1, sizeof(*e));
        hashmap_putn(&b->by_text, text, len, e);
        pthread_mutex_unlock(&b->lock);
        body_uses uses;
        memset(&uses, 0, sizeof(uses));
        int ok = read_object_uses(p, o, &uses, text, len) == 0;
        pthread_mutex_lock(&b->lock);
        e->uses = uses;
        e->ok = ok;
        e->ready = 1;
        pthread_cond_broadcast(&b->read);
    }
    while (!e->ready)
        pthread_cond_wait(&b->read, &b->lock);
    pthread_mutex_unlock(&b->lock);
    if (e->ok)
        return &e->uses;
    pgci_error_set(PGCI_EINVALID, "a patch body does not parse");
    return NULL;
}

const index_module *survey_patch_index(const survey_pair *p, const char *text, size_t len,
                                       index_module **own)
{
    *own = NULL;
    if (!p->bodies) {
        if (index_module_from_parse_set(own, p->parses, text, len, "<patch>", NULL) < 0)
            return NULL;
        return *own;
    }
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    index_entry *e = hashmap_getn(&b->indexes, text, len);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        if (index_module_from_parse_set(&e->m, p->parses, text, len, "<patch>", NULL) < 0)
            e->m = NULL;
        hashmap_putn(&b->indexes, text, len, e);
    }
    pthread_mutex_unlock(&b->lock);
    if (!e->m)
        pgci_error_set(PGCI_EINVALID, "a patch body does not parse");
    return e->m;
}

/* The calls of one body, in the order report_calls' walk meets them. */
static void read_calls(survey_calls *out, const survey_pair *p, const pg_object *o,
                       const char *text, size_t len)
{
    survey_view v;
    if (survey_object_tree(p, o, text, len, &v) < 0) {
        pgci_error_clear();
        return;
    }
    VEC(TSNode) stack = VEC_INIT;
    for (size_t i = 0; i < v.n; i++)
        VEC_PUSH(&stack, v.stmts[i]);
    while (stack.len) {
        TSNode n = stack.items[--stack.len];
        if (py_is(n, "call")) {
            TSNode f = py_field(n, "function");
            if (py_is(f, "identifier")) {
                survey_call c = {0, py_text_dup(&v.t, f)};
                VEC_PUSH(out, c);
            } else if (py_is(f, "attribute")) {
                TSNode obj = py_field(f, "object");
                if (py_is(obj, "identifier") &&
                    (py_text_eq(&v.t, obj, "self") || py_text_eq(&v.t, obj, "cls"))) {
                    survey_call c = {1, py_text_dup(&v.t, py_field(f, "attribute"))};
                    VEC_PUSH(out, c);
                }
            }
        }
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++)
            VEC_PUSH(&stack, ts_node_named_child(n, i));
    }
    VEC_FREE(&stack);
    survey_object_tree_release(p, &v);
}

const survey_calls *survey_object_calls(const survey_pair *p, const pg_object *o, const char *text,
                                        size_t len, survey_calls *own)
{
    memset(own, 0, sizeof(*own));
    if (!p->bodies) {
        read_calls(own, p, o, text, len);
        return own;
    }
    survey_bodies *b = p->bodies;
    pthread_mutex_lock(&b->lock);
    survey_calls *e = hashmap_getn(&b->calls, text, len);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        read_calls(e, p, o, text, len);
        hashmap_putn(&b->calls, text, len, e);
    }
    pthread_mutex_unlock(&b->lock);
    return e;
}

void survey_calls_free(survey_calls *own)
{
    calls_free(own);
}

/* The index of the file a view is in (built once a run per file, fingerprints on
 * demand; owned by p->bodies): NULL when it cannot be built (the file nests too
 * deeply for the index), and the caller then indexes the text alone. */
static const index_module *file_index(survey_bodies *b, const pg_object *o, const survey_view *v)
{
    char key[32];
    snprintf(key, sizeof(key), "%p", (const void *)o->tree);
    pthread_mutex_lock(&b->lock);
    index_entry *e = hashmap_get(&b->files, key);
    if (!e) {
        e = pgci_calloc(1, sizeof(*e));
        if (index_module_build_lazy(&e->m, &v->t, o->module) < 0) {
            e->m = NULL;
            pgci_error_clear();
        }
        hashmap_put(&b->files, key, e);
    }
    pthread_mutex_unlock(&b->lock);
    return e->m;
}

/* The fields of a def that the readers of survey_object_def read, the same. */
static int same_def(const index_def *a, const index_def *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || strcmp(a->name, b->name) || a->n_params != b->n_params ||
        a->n_doc_args != b->n_doc_args || a->n_members != b->n_members)
        return 0;
    for (size_t i = 0; i < a->n_params; i++)
        if (strcmp(a->params[i].name, b->params[i].name) || a->params[i].kind != b->params[i].kind)
            return 0;
    for (size_t i = 0; i < a->n_doc_args; i++)
        if (strcmp(a->doc_args[i], b->doc_args[i]))
            return 0;
    /* a class's bases, decorators and annotated attributes (checks/init_fields.c) */
    if (a->n_bases != b->n_bases || a->n_decorators != b->n_decorators || a->n_attrs != b->n_attrs)
        return 0;
    for (size_t i = 0; i < a->n_bases; i++)
        if (strcmp(a->bases[i], b->bases[i]))
            return 0;
    for (size_t i = 0; i < a->n_decorators; i++)
        if (strcmp(a->decorators[i], b->decorators[i]))
            return 0;
    for (size_t i = 0; i < a->n_attrs; i++)
        if (strcmp(a->attrs[i].name, b->attrs[i].name) ||
            !a->attrs[i].annotation != !b->attrs[i].annotation ||
            (a->attrs[i].annotation && strcmp(a->attrs[i].annotation, b->attrs[i].annotation)) ||
            !a->attrs[i].value != !b->attrs[i].value ||
            (a->attrs[i].value && strcmp(a->attrs[i].value, b->attrs[i].value)))
            return 0;
    for (size_t i = 0; i < a->n_members; i++)
        if (!same_def(a->members[i], b->members[i]))
            return 0;
    return 1;
}

const index_def *survey_object_def(const survey_pair *p, const pg_object *o, const char *text,
                                   size_t len, index_module **own)
{
    *own = NULL;
    survey_view v;
    const index_def *d = NULL;
    const index_module *fm =
        p->bodies && survey_object_view(o, &v) ? file_index(p->bodies, o, &v) : NULL;
    for (size_t i = 0; fm && i < fm->n_defs && !d; i++)
        if (fm->defs[i]->start_byte == ts_node_start_byte(v.stmts[0]) && !fm->defs[i]->conditional)
            d = fm->defs[i];
    if (d && !getenv("PGCI_VERIFY_OBJECT_VIEWS"))
        return d;
    const index_module *m = survey_patch_index(p, text, len, own);
    const index_def *alone = m && m->n_defs ? m->defs[0] : NULL;
    if (d && !same_def(d, alone)) {
        fprintf(stderr,
                "pgci: PGCI_VERIFY_OBJECT_VIEWS: %s (%s, lines %u-%u) indexes "
                "differently in its file's tree\n",
                o->name, o->file ? o->file : "?", o->start_line, o->end_line);
        abort();
    }
    return d ? d : alone;
}

int survey_def_tree(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    py_tree *t)
{
    if (!src || d->end_byte > len || d->start_byte > d->end_byte)
        return pgci_error_set(PGCI_EINVALID, "a definition outside its source");
    if (!p->parses)
        return py_parse(t, src, len, "<upstream>");
    int a = p->parses_a && src == p->src_a;
    for (size_t i = 0; !a && p->parses_a && i < p->n_ext; i++)
        a = src == p->ext[i].src_a;
    return py_parse_set_get(a ? p->parses_a : p->parses, src, len, "<upstream>", t);
}

int survey_returned(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    returned *r)
{
    memset(r, 0, sizeof(*r));
    py_tree t;
    if (survey_def_tree(p, src, len, d, &t) < 0)
        return -1;
    int rc = returned_read(r, &t, d->start_byte);
    survey_tree_release(p, &t);
    return rc;
}
