/*
 * survey_trees.h - the syntax trees the survey's checks read (patch bodies, slices
 * of an upstream module), taken from the run's parse set: a text is parsed once a
 * run however many checks, configs and tags read it (each config is compared with
 * B and, for its standing facts, with A in B's place: the same bodies twice).
 *
 * Without a parse set (p->parses NULL: a check called on its own) each request
 * parses, as before.
 */
#ifndef PGCI_CHECKS_SURVEY_TREES_H
#define PGCI_CHECKS_SURVEY_TREES_H

#include "checks/body_uses.h"
#include "checks/returned.h"
#include "checks/signatures.h"
#include "py/py.h"

/* The tree of src[0..len) in *t; release it with survey_tree_release(p, t). */
int survey_tree_get(const survey_pair *p, py_tree *t, const char *src, size_t len,
                    const char *path);
void survey_tree_release(const survey_pair *p, py_tree *t);

/* What patch bodies use, by text, read once a run and shared by the checks that
 * follow them and every config (p->bodies; NULL: read each time). Thread-safe.
 * It knows a config file by its tree's address (survey_object_def): the configs
 * whose objects it reads must live until it is freed, or a tree made after one
 * is freed may take its address and its index. */
survey_bodies *survey_bodies_new(void);
void survey_bodies_free(survey_bodies *b);

/* structural_bodies_equal() of a[0..alen) and b[0..blen), two stretches of the
 * run's upstream sources (which live as long as p->bodies): asked once a run per
 * pair of stretches (sibling configs patch the same definitions), or each time
 * without p->bodies. */
int survey_same_body(const survey_pair *p, const char *a, size_t alen, const char *b, size_t blen);

/* 1 when the bodies of definition a of p->src_a and b of p->src_b are the same
 * (survey_same_body of their stretches, the same answer), read from the two
 * modules' trees in the run's parse sets, where both already are, instead of a
 * parse of each stretch; 0 when not, or when a stretch is outside its source. */
int survey_same_def_body(const survey_pair *p, const index_def *a, const index_def *b);

/* 1 when they read the same once each has its one-use temporaries written in
 * place (checks/inlined.h) and at least one had one: upstream folded a temporary
 * into the statement after it, or split one out, and changed nothing else. */
int survey_same_def_body_inlined(const survey_pair *p, const index_def *a, const index_def *b);

/* An object's lines (a def of a config file) inside its file's tree, as
 * pg_object.tree keeps it: the module-level statements on those lines (its def and
 * the comments there) in stmts[0..n), the first on row row0 of t. t borrows the
 * object's text and tree: nothing to free. */
typedef struct survey_view {
    py_tree t;
    TSNode root;
    TSNode stmts[8];
    size_t n;
    unsigned row0;
    int parsed; /* survey_object_tree: t is the run's tree of the text, stmts[0] its root */
} survey_view;

/* 1 and *v set when o's lines can be read from its file's tree (a def at column 0
 * of a file Python accepts reads there as alone: pg_object.parses_alone); 0 when
 * they must be parsed (no tree, or PGCI_NO_OBJECT_VIEWS set). */
int survey_object_view(const pg_object *o, survey_view *v);

/* The tree to read o's lines text[0..len) (signatures_object_text) from: its file's
 * (survey_object_view), else the run's tree of the text, with stmts[0] = its root
 * and v->parsed set. A walk over stmts[0..n) in order visits what a walk from the
 * root of the text's own tree would, on the same rows when it subtracts row0.
 * Release with survey_object_tree_release. */
int survey_object_tree(const survey_pair *p, const pg_object *o, const char *text, size_t len,
                       survey_view *v);
void survey_object_tree_release(const survey_pair *p, survey_view *v);

/* body_uses_read() of text, the lines of o (signatures_object_text; o may be NULL):
 * read from o's file's tree when survey_object_view() gives it (the config's
 * evaluation parsed the file: its bodies are not parsed again), else through the
 * run's tree of the text. The run's reading when p->bodies is set, else one made in
 * *own; NULL when the text does not parse. Call body_uses_free(own) when done,
 * either way. PGCI_VERIFY_OBJECT_VIEWS makes each reading from a file's tree
 * compare itself with a parse of the text (abort on a difference). */
const body_uses *survey_object_uses(const survey_pair *p, const pg_object *o, const char *text,
                                    size_t len, body_uses *own);

/* The calls in a body, in the order a walk from its root meets them (depth first,
 * a node's last child first): `f(...)` (self_ 0, name "f") and `self.m(...)` or
 * `cls.m(...)` (self_ 1, name "m"). Read once a run per text (p->bodies), from o's
 * file's tree when survey_object_view gives it; without p->bodies into *own, which
 * survey_calls_free() frees either way. */
typedef struct survey_call {
    int self_;
    char *name;
} survey_call;
typedef VEC(survey_call) survey_calls;
const survey_calls *survey_object_calls(const survey_pair *p, const pg_object *o, const char *text,
                                        size_t len, survey_calls *own);
void survey_calls_free(survey_calls *own);

/* index_module_from_parse_set() of a patch text: the run's index of it when
 * p->bodies is set (built once a run, owned by p->bodies), else one built into
 * *own (free it with index_module_free; *own is NULL otherwise). NULL when the
 * text does not parse. */
const index_module *survey_patch_index(const survey_pair *p, const char *text, size_t len,
                                       index_module **own);

/* The index of a file of the workspace (path, absolute; module, its dotted name,
 * "<package>.__init__" for a package's, so that its relative imports resolve):
 * read and indexed once a run when p->bodies is set (owned by p->bodies), else into
 * *own (free it with index_module_free; *own is NULL otherwise). NULL when the
 * file cannot be read or does not parse. A file's module of the same path is read
 * once whatever module name a later call gives. */
const index_module *survey_file_index(const survey_pair *p, const char *path, const char *module,
                                      index_module **own);

/* What make(key, arg) returns, made once a run per key when p->bodies is set (kept
 * there, freed with release(value) when the run's memos are), else made now into
 * *own, which the caller releases. make runs without the memos' lock, so it may
 * ask them; two threads may both make a value, and the second's is released. NULL
 * values are kept like any other. */
void *survey_memo(const survey_pair *p, const char *key, void *(*make)(const char *key, void *arg),
                  void *arg, void (*release)(void *), void **own);

/* The workspace's root directory: the config's file less its module's path
 * (`/ws/veomni/models/x/cfg.py` of `veomni.models.x.cfg`: `/ws`), malloc'ed; NULL
 * when the two do not agree. */
char *survey_workspace_root(const pg_config *cfg);

/* The def that o's lines text[0..len) (signatures_object_text) define, as
 * survey_patch_index(text)->defs[0] gives it - its kind, name, parameters,
 * documented arguments and members - read from the index of o's file, built once
 * a run from the tree its evaluation made (survey_object_view), when there is
 * one; its lines and bytes are then the file's. NULL when the text defines
 * nothing or does not parse. *own as survey_patch_index's. */
const index_def *survey_object_def(const survey_pair *p, const pg_object *o, const char *text,
                                   size_t len, index_module **own);

/* The tree of the upstream module src[0..len) that definition d of it lives in
 * (p->src_a, p->src_b, or an imported module's source at either tag), from the
 * parse set that holds that tag's modules, where the fetch left it: no second
 * parse. Fails when src is NULL or d lies outside it. Release the tree with
 * survey_tree_release(p, t); read d at d->start_byte of it. */
int survey_def_tree(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    py_tree *t);

/* returned_read() of definition d of src[0..len) (the module at A or B, or a
 * module a body's call leads to), through the run's tree of that source. Fails
 * when d is outside src or is not a function. */
int survey_returned(const survey_pair *p, const char *src, size_t len, const index_def *d,
                    returned *r);

#endif
