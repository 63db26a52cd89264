/*
 * forest.c - a source as the donor's statement nodes and a parse of the rest
 * (forest.h).
 */
#include "py/forest.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"

typedef VEC(TSNode) node_vec;

static int is_comment(TSNode n)
{
    return !strcmp(ts_node_type(n), "comment");
}

/* The class a module-level statement defines (decorated or not), or a null node. */
static TSNode class_of(TSNode n)
{
    TSNode d = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
    return !ts_node_is_null(d) && py_is(d, "class_definition") ? d : (TSNode){0};
}

/* The statements of a block or module, comments left out. */
static void statements(TSNode parent, node_vec *out)
{
    uint32_t n = ts_node_child_count(parent);
    TSTreeCursor c = ts_tree_cursor_new(parent);
    if (n && ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&c);
            if (ts_node_is_named(k) && !is_comment(k))
                VEC_PUSH(out, k);
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
}

/* A donor's statement: its node and the tree it is in. */
typedef struct given {
    TSNode node;
    const py_tree *t;
} given;
typedef VEC(given) given_vec;

/* The module-level statements of donor d (kind 0) and those of its module-level
 * classes' bodies (kind 1), keyed, with their nodes in the same order. */
static void donor_keys(const py_tree *d, py_keys *k, given_vec dn[2])
{
    node_vec tops = VEC_INIT, body = VEC_INIT;
    statements(py_root(d), &tops);
    for (size_t i = 0; i < tops.len; i++) {
        TSNode n = tops.items[i];
        py_keys_add_in(k, 0, d->src, ts_node_start_byte(n), ts_node_end_byte(n));
        VEC_PUSH(&dn[0], ((given){n, d}));
        TSNode cls = class_of(n);
        if (ts_node_is_null(cls))
            continue;
        body.len = 0;
        statements(py_field(cls, "body"), &body);
        for (size_t m = 0; m < body.len; m++) {
            TSNode b = body.items[m];
            py_keys_add_in(k, 1, d->src, ts_node_start_byte(b), ts_node_end_byte(b));
            VEC_PUSH(&dn[1], ((given){b, d}));
        }
    }
    VEC_FREE(&tops);
    VEC_FREE(&body);
}

static uint32_t col_of(const char *s, uint32_t at)
{
    uint32_t c = 0;
    while (at > c && s[at - c - 1] != '\n')
        c++;
    return c;
}

/* A donated statement: the donor's node n for the source's statement at byte
 * `start`, row `row`. -1 when it stands at another column there (its positions
 * would not be the source's). */
static int donated(py_forest *f, py_forest_stmt *s, given g, uint32_t start, uint32_t row)
{
    TSNode n = g.node;
    if (ts_node_start_point(n).column != col_of(f->file.src, start))
        return -1;
    s->node = n;
    s->t = g.t;
    s->delta = (long)start - (long)ts_node_start_byte(n);
    s->row_delta = (long)row - (long)ts_node_start_point(n).row;
    s->start = start;
    s->end = (uint32_t)((long)ts_node_end_byte(n) + s->delta);
    return 0;
}

/* A parsed statement: node n of the parsed text for piece p. -1 when it does not
 * start where the piece does (the parse read the text otherwise). */
static int parsed(py_forest *f, const py_pieces *ps, py_forest_stmt *s, TSNode n, const py_piece *p)
{
    uint32_t row = ts_node_start_point(n).row;
    if (row >= ps->rows.len)
        return -1;
    s->node = n;
    s->t = &f->parsed;
    s->delta = (long)p->from - (long)p->cat_start;
    s->row_delta = (long)ps->rows.items[row] - (long)row;
    s->start = (uint32_t)((long)ts_node_start_byte(n) + s->delta);
    s->end = (uint32_t)((long)ts_node_end_byte(n) + s->delta);
    return s->start == p->start ? 0 : -1;
}

/* The statements of a class parsed in part (s, piece p): its parsed body's and
 * the donor's, in the order of its plan. */
static int assemble_class(py_forest *f, const py_pieces *ps, const given_vec *dm, py_forest_stmt *s,
                          const py_piece *p)
{
    TSNode cls = class_of(s->node);
    s->body = ts_node_is_null(cls) ? cls : py_field(cls, "body");
    if (ts_node_is_null(s->body))
        return -1;
    node_vec kids = VEC_INIT;
    statements(s->body, &kids);
    size_t at = 0;
    int r = 0;
    s->mem_begin = f->nmembers;
    for (size_t i = p->sub_begin; r == 0 && i < p->sub_end; i++) {
        const py_piece *q = &ps->mplan.items[i];
        py_forest_stmt *m = &f->members[f->nmembers++];
        memset(m, 0, sizeof(*m));
        if (q->donor)
            r = donated(f, m, dm->items[q->donor - 1], q->start, q->row);
        else
            r = at < kids.len ? parsed(f, ps, m, kids.items[at++], q) : -1;
    }
    s->mem_end = f->nmembers;
    if (at != kids.len || s->mem_end == s->mem_begin)
        r = -1;
    else
        s->end = f->members[s->mem_end - 1].end;
    VEC_FREE(&kids);
    return r;
}

/* The forest's statements, from the plan and the parsed text's tree. */
static int assemble(py_forest *f, const py_pieces *ps, const given_vec dn[2])
{
    node_vec kids = VEC_INIT;
    statements(py_root(&f->parsed), &kids);
    f->tops = pgci_calloc(ps->plan.len + 1, sizeof(*f->tops));
    f->members = pgci_calloc(ps->mplan.len + 1, sizeof(*f->members));
    size_t at = 0;
    int r = 0;
    for (size_t i = 0; r == 0 && i < ps->plan.len; i++) {
        const py_piece *p = &ps->plan.items[i];
        py_forest_stmt *s = &f->tops[f->ntops++];
        if (p->donor) {
            r = donated(f, s, dn[0].items[p->donor - 1], p->start, p->row);
            continue;
        }
        r = at < kids.len ? parsed(f, ps, s, kids.items[at++], p) : -1;
        if (r == 0 && p->sub_end > p->sub_begin)
            r = assemble_class(f, ps, &dn[1], s, p);
    }
    if (at != kids.len)
        r = -1;
    VEC_FREE(&kids);
    return r;
}

int py_forest_build(py_forest *f, const char *src, size_t len, const char *path,
                    const py_tree *donor, const py_tree *const *kin, size_t nkin)
{
    memset(f, 0, sizeof(*f));
    f->donor = donor;
    py_keys k;
    memset(&k, 0, sizeof(k));
    given_vec dn[2] = {VEC_INIT, VEC_INIT};
    for (size_t i = 0; i < nkin; i++)
        donor_keys(kin[i], &k, dn);
    donor_keys(donor, &k, dn); /* a statement the donor has too is the donor's */
    py_pieces ps;
    int r = py_pieces_plan(&k, src, len, &ps);
    f->file.src = pgci_malloc(len + 1);
    memcpy(f->file.src, src, len);
    f->file.src[len] = '\0';
    f->file.len = len;
    if (r == 0)
        r = py_parse(&f->parsed, ps.cat.buf, ps.cat.len, path);
    TSNode err;
    if (r == 0 && py_first_error(&f->parsed, &err))
        r = pgci_error_set(PGCI_EUNSUPPORTED, "%s: a syntax error in what is parsed", path);
    else if (r == 0 && assemble(f, &ps, dn) < 0)
        r = pgci_error_set(PGCI_EUNSUPPORTED, "%s: the parse does not read the plan's statements",
                           path);
    if (r == 0)
        f->file.path = pgci_strdup(path ? path : "<input>");
    py_pieces_free(&ps);
    py_keys_free(&k);
    VEC_FREE(&dn[0]);
    VEC_FREE(&dn[1]);
    if (r < 0)
        py_forest_free(f);
    return r;
}

void py_forest_free(py_forest *f)
{
    py_tree_free(&f->parsed);
    py_tree_free(&f->file);
    free(f->tops);
    free(f->members);
    memset(f, 0, sizeof(*f));
}

uint32_t py_forest_byte(const py_forest_stmt *s, TSNode n)
{
    return (uint32_t)((long)ts_node_start_byte(n) + s->delta);
}

unsigned py_forest_row(const py_forest_stmt *s, TSNode n)
{
    return (unsigned)((long)ts_node_start_point(n).row + s->row_delta);
}
