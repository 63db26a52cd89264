/*
 * The structural comparison: each source becomes a token stream (the tree's shape
 * as open/close markers plus its significant leaves) and a set of module-level
 * import bindings; see structural.h for what is ignored and why. Comparing token
 * streams rather than trees keeps the rules local: every normalisation is a choice
 * made while emitting one node.
 */
#include "py/structural.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/hashmap.h"
#include "core/vec.h"
#include "py/py.h"
#include "py/pystr.h"
#include "py/forest.h"
#include "py/pieces.h"
#include "py/reparse.h"

/* A token: a slice of the source (identifiers, operators), a type name from the
 * grammar's table, or text made while emitting (strings, numbers) in the canon's
 * arena. Tokens compare by length and bytes. */
typedef struct tok {
    const char *text;
    uint32_t len;
    unsigned line;
    int ref; /* an identifier read as a name (not an attribute, keyword or definition) */
} tok;

typedef struct binding {
    char *key;  /* "from m import n as a" in canonical form */
    char *name; /* the name it binds */
    unsigned line;
} binding;

/* A module-level statement of a canon and the tokens it gave. */
typedef struct top_stmt {
    uint32_t start, end; /* its bytes */
    unsigned row;
    size_t tok_begin, tok_end;
} top_stmt;

typedef struct canon canon;
struct canon {
    const py_tree *t;
    arena mem; /* the text of tokens that are not slices of the source */
    VEC(tok) toks;
    VEC(binding) imports;
    VEC(binding) nested; /* imports inside functions or blocks */
    unsigned depth;
    int record_nested;     /* 1 while recording a nested import: it goes to `nested` */
    TSNode walking;        /* the node walk() is in: the parent of the one it walks next */
    VEC(top_stmt) tops;    /* its module-level statements, but imports */
    VEC(top_stmt) members; /* the statements of its module-level classes' bodies */
    py_keys keys;          /* the bytes of both, numbered as they are */
    TSNode record_body;    /* the body whose statements go to members (walking a class) */
    const canon *donor;    /* a canon whose statements of the same bytes give their tokens */
    const py_piece *plan;  /* by pieces: the file's statements, t the tree of those parsed */
    size_t plan_len, plan_at;
    const py_piece *mplan; /* the statements of class bodies parsed in part */
    size_t mplan_at, mplan_end;
    TSNode plan_body;        /* the body of the class parsed in part being walked */
    unsigned plan_body_line; /* its line in the file (its first statement's) */
    const uint32_t *rowmap;  /* a row of t -> the row in the file */
    /* a forest's statement being walked: the file's byte and row of t's */
    long delta, row_delta;
    const py_forest *forest;
    const py_forest_stmt *split; /* the forest's class parsed in part being walked */
    /* a function's body compared for what runs: the annotations of the names it
     * assigns are never evaluated (PEP 526) and are left out, but inside a class
     * body it defines (counted by in_class), whose annotations are */
    int runtime;
    unsigned in_class;
};

#define MAX_DEPTH 400

/* What walk() does with a node, by its type's name: one table for the grammar,
 * made once, indexed by the node's symbol (the names' comparison was a large part
 * of the walk). */
typedef enum kind {
    K_OTHER,
    K_COMMENT,
    K_IMPORT,
    K_PAREN,
    K_STRING,
    K_EXPR_STMT,
    K_NUMBER,
    K_TYPE_WRAP, /* "type", "type_parameter": an annotation's wrapper */
    K_ARGS,      /* "argument_list" */
    K_IGNORED,   /* an anonymous token that never counts: , ( ) ; \ */
    K_MODULE
} kind;

typedef struct sym_info {
    unsigned char kind;
    unsigned char identifier; /* "identifier" */
    unsigned char binder;     /* 1 + the index in binders[]: a parent that binds a name */
    const char *name;         /* the name walk() emits (canon_type) */
} sym_info;

static const struct {
    const char *parent, *field;
} binders[] = {{"attribute", "attribute"},
               {"keyword_argument", "name"},
               {"function_definition", "name"},
               {"class_definition", "name"}};
#define N_BINDERS (sizeof(binders) / sizeof(binders[0]))

static struct {
    pthread_once_t once;
    sym_info *syms;
    uint32_t n;
    TSSymbol class_definition, function_definition, assignment, type;
    TSFieldId binder_field[N_BINDERS];
} table = {PTHREAD_ONCE_INIT, NULL, 0, 0, 0, 0, 0, {0}};

static int is_ignored_anon(const char *type)
{
    return !strcmp(type, ",") || !strcmp(type, "(") || !strcmp(type, ")") || !strcmp(type, ";") ||
           !strcmp(type, "\\") || !strcmp(type, "line_continuation");
}

/* Tuples written with or without parentheses are one thing to ruff. */
static const char *canon_type(const char *type)
{
    if (!strcmp(type, "expression_list") || !strcmp(type, "pattern_list") ||
        !strcmp(type, "tuple_pattern"))
        return "tuple";
    /* annotations: the type grammar and the expression grammar for one text */
    if (!strcmp(type, "union_type"))
        return "binary_operator";
    if (!strcmp(type, "generic_type"))
        return "subscript";
    if (!strcmp(type, "member_type"))
        return "attribute";
    return type;
}

static kind kind_of(const char *type)
{
    static const struct {
        const char *name;
        kind k;
    } kinds[] = {{"comment", K_COMMENT},
                 {"import_statement", K_IMPORT},
                 {"import_from_statement", K_IMPORT},
                 {"parenthesized_expression", K_PAREN},
                 {"string", K_STRING},
                 {"concatenated_string", K_STRING},
                 {"expression_statement", K_EXPR_STMT},
                 {"integer", K_NUMBER},
                 {"float", K_NUMBER},
                 {"type", K_TYPE_WRAP},
                 {"type_parameter", K_TYPE_WRAP},
                 {"argument_list", K_ARGS},
                 {"module", K_MODULE}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(type, kinds[i].name))
            return kinds[i].k;
    return is_ignored_anon(type) ? K_IGNORED : K_OTHER;
}

static void table_init(void)
{
    const TSLanguage *lang = tree_sitter_python();
    table.n = ts_language_symbol_count(lang);
    table.syms = pgci_calloc(table.n, sizeof(*table.syms));
    for (uint32_t s = 0; s < table.n; s++) {
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        sym_info *si = &table.syms[s];
        si->name = name ? canon_type(name) : "";
        si->kind = name ? (unsigned char)kind_of(name) : K_OTHER;
        si->identifier = name && !strcmp(name, "identifier");
        for (size_t b = 0; name && b < N_BINDERS; b++)
            if (!strcmp(name, binders[b].parent))
                si->binder = (unsigned char)(b + 1);
    }
    table.class_definition = ts_language_symbol_for_name(lang, "class_definition", 16, true);
    table.function_definition = ts_language_symbol_for_name(lang, "function_definition", 19, true);
    table.assignment = ts_language_symbol_for_name(lang, "assignment", 10, true);
    table.type = ts_language_symbol_for_name(lang, "type", 4, true);
    for (size_t b = 0; b < N_BINDERS; b++)
        table.binder_field[b] = ts_language_field_id_for_name(lang, binders[b].field,
                                                              (uint32_t)strlen(binders[b].field));
}

static const sym_info *sym_of(TSNode n)
{
    static const sym_info none = {K_OTHER, 0, 0, ""};
    TSSymbol s = ts_node_symbol(n);
    return s < table.n ? &table.syms[s] : &none;
}

/* By pieces, t's line -> the file's. */
static unsigned file_line(const canon *c, unsigned line)
{
    return c->rowmap ? c->rowmap[line - 1] + 1 : (unsigned)((long)line + c->row_delta);
}

static void emit(canon *c, const char *s, size_t n, unsigned line)
{
    tok t = {s, (uint32_t)n, file_line(c, line), 0};
    VEC_PUSH(&c->toks, t);
}

/* A token whose text is made here: kept in the canon's arena. */
static void emit_copy(canon *c, const char *s, size_t n, unsigned line)
{
    emit(c, arena_strndup(&c->mem, s, n), n, line);
}

/* 1 when identifier n is a reference to a name, as ruff's F401 counts uses: not
 * the attribute of `x.name`, not a keyword argument's name, not the name a def or
 * class statement binds. Only references keep an import alive. p is n's parent
 * (ts_node_parent() walks down from the root: asked of every identifier, it was
 * the structural comparison's largest cost). */
static int is_reference(TSNode n, TSNode p)
{
    if (ts_node_is_null(p))
        return 1;
    unsigned b = sym_of(p)->binder;
    if (!b)
        return 1;
    TSNode f = ts_node_child_by_field_id(p, table.binder_field[b - 1]);
    return ts_node_is_null(f) || !ts_node_eq(f, n);
}

static void emits(canon *c, const char *s, unsigned line)
{
    emit(c, s, strlen(s), line);
}

static void emit_string(canon *c, TSNode n, const char *prefix)
{
    strbuf v = STRBUF_INIT;
    if (pystr_decode_node(&v, c->t, n) == 0) {
        strbuf s = STRBUF_INIT;
        /* bytes and str with the same text differ */
        size_t len;
        const char *src = py_text(c->t, n, &len);
        int is_bytes = 0;
        for (size_t i = 0; i < len && src[i] != '\'' && src[i] != '"'; i++)
            is_bytes |= src[i] == 'b' || src[i] == 'B';
        strbuf_addf(&s, "%s%s:", prefix, is_bytes ? "bytes" : "str");
        strbuf_add(&s, v.buf, v.len);
        emit_copy(c, s.buf, s.len, py_line(n));
        strbuf_free(&s);
    } else {
        /* an f-string with fields: compare its text without quote style */
        pgci_error_clear();
        size_t len;
        const char *src = py_text(c->t, n, &len);
        strbuf s = STRBUF_INIT;
        strbuf_adds(&s, "fstr:");
        for (size_t i = 0; i < len; i++) {
            char ch = src[i];
            if (ch == '\'' || ch == '"')
                continue;
            strbuf_addc(&s, (char)tolower((unsigned char)ch));
        }
        emit_copy(c, s.buf, s.len, py_line(n));
        strbuf_free(&s);
    }
    strbuf_free(&v);
}

/* A docstring-like statement: compare its lines stripped, as ruff re-indents and
 * strips trailing space in docstrings. */
static void emit_docstring(canon *c, TSNode n)
{
    strbuf v = STRBUF_INIT, s = STRBUF_INIT;
    if (pystr_decode_node(&v, c->t, n) < 0) {
        pgci_error_clear();
        emit_string(c, n, "");
        strbuf_free(&v);
        return;
    }
    strbuf_adds(&s, "doc:");
    const char *p = v.buf, *end = v.buf + v.len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
        size_t a = 0, b = len;
        while (a < b && isspace((unsigned char)p[a]))
            a++;
        while (b > a && isspace((unsigned char)p[b - 1]))
            b--;
        if (b > a) {
            strbuf_add(&s, p + a, b - a);
            strbuf_addc(&s, '\n');
        }
        p += len + (e != NULL);
    }
    emit_copy(c, s.buf, s.len, py_line(n));
    strbuf_free(&s);
    strbuf_free(&v);
}

static void add_binding(canon *c, const char *key, const char *name, unsigned line)
{
    binding b = {pgci_strdup(key), pgci_strdup(name), file_line(c, line)};
    if (c->record_nested)
        VEC_PUSH(&c->nested, b);
    else
        VEC_PUSH(&c->imports, b);
}

static char *text_nows(const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)s[i]) && s[i] != '\\')
            strbuf_addc(&out, s[i]);
    return strbuf_detach(&out, NULL);
}

static void record_import(canon *c, TSNode n)
{
    const py_tree *t = c->t;
    unsigned line = py_line(n);
    if (py_is(n, "import_statement")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode ch = ts_node_named_child(n, i);
            TSNode name = py_is(ch, "aliased_import") ? py_field(ch, "name") : ch;
            TSNode alias = py_is(ch, "aliased_import") ? py_field(ch, "alias") : (TSNode){0};
            char *mod = text_nows(t, name);
            char *al = ts_node_is_null(alias) ? NULL : text_nows(t, alias);
            char *key = pgci_asprintf("import %s%s%s", mod, al ? " as " : "", al ? al : "");
            char *bound = al ? pgci_strdup(al) : pgci_strndup(mod, strcspn(mod, "."));
            add_binding(c, key, bound, line);
            free(key);
            free(bound);
            free(mod);
            free(al);
        }
        return;
    }
    /* from M import a, b as c / from M import * */
    TSNode modn = py_field(n, "module_name");
    char *mod = ts_node_is_null(modn) ? pgci_strdup("") : text_nows(t, modn);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (ts_node_eq(ch, modn))
            continue;
        if (py_is(ch, "wildcard_import")) {
            char *key = pgci_asprintf("from %s import *", mod);
            add_binding(c, key, "*", line);
            free(key);
            continue;
        }
        if (!py_is(ch, "dotted_name") && !py_is(ch, "aliased_import"))
            continue;
        TSNode name = py_is(ch, "aliased_import") ? py_field(ch, "name") : ch;
        TSNode alias = py_is(ch, "aliased_import") ? py_field(ch, "alias") : (TSNode){0};
        char *nm = text_nows(t, name);
        char *al = ts_node_is_null(alias) ? NULL : text_nows(t, alias);
        char *key = pgci_asprintf("from %s import %s%s%s", mod, nm, al ? " as " : "", al ? al : "");
        add_binding(c, key, al ? al : nm, line);
        free(key);
        free(nm);
        free(al);
    }
    free(mod);
}

static int is_string_node(TSNode n)
{
    return sym_of(n)->kind == K_STRING;
}

/* Walks the children of the cursor's node (only the named ones when named_only),
 * the cursor back on the node after. */
static int walk(canon *c, TSTreeCursor *cur, int module_level);

static void copy_donated(canon *c, const top_stmt *ds, unsigned row)
{
    const canon *d = c->donor;
    VEC_RESERVE(&c->toks, ds->tok_end - ds->tok_begin);
    for (size_t i = ds->tok_begin; i < ds->tok_end; i++) {
        tok t = d->toks.items[i];
        t.line = t.line - ds->row + row;
        c->toks.items[c->toks.len++] = t;
    }
}

static int walk_top_here(canon *c, TSTreeCursor *cur)
{
    TSNode n = ts_tree_cursor_current_node(cur);
    if (sym_of(n)->kind == K_IMPORT || sym_of(n)->kind == K_COMMENT)
        return walk(c, cur, 1);
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    unsigned row = ts_node_start_point(n).row;
    if (c->rowmap)
        row = c->rowmap[row]; /* by pieces: the file's */
    const canon *d = c->donor;
    long k = d ? py_keys_find(&d->keys, 0, c->t->src + a, b - a) : 0;
    if (k) {
        copy_donated(c, &d->tops.items[k - 1], row);
        return 0;
    }
    size_t begin = c->toks.len;
    if (!c->donor) {
        TSNode def = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
        c->record_body =
            ts_node_symbol(def) == table.class_definition ? py_field(def, "body") : (TSNode){0};
    }
    int r = walk(c, cur, 1);
    c->record_body = (TSNode){0};
    if (r == 0 && !c->donor) {
        top_stmt ts = {a, b, row, begin, c->toks.len};
        VEC_PUSH(&c->tops, ts);
        py_keys_add(&c->keys, 0, a, b);
    }
    return r;
}

/* By pieces: the donated statements of a plan up to `upto` bytes of the parsed
 * text (all that are left when upto is UINT32_MAX). */
static void flush_donated(canon *c, const py_piece *plan, size_t *at, size_t end, const canon *d,
                          int members, uint32_t upto)
{
    while (*at < end) {
        const py_piece *p = &plan[*at];
        if (!p->donor && p->cat_end > upto)
            return;
        if (p->donor)
            copy_donated(c, &(members ? d->members.items : d->tops.items)[p->donor - 1], p->row);
        (*at)++;
    }
}

/* A module-level statement: walked, or its tokens copied from the donor's
 * statement of the same bytes (a statement's tokens depend on nothing but its
 * bytes, which parse the same anywhere at module level; only the lines move).
 * Imports are walked: they bind names rather than give tokens. By pieces, the
 * statement is one of those parsed: the donated ones before it go first; a class
 * parsed in part (only the statements of its body that the donor does not have)
 * takes the donated ones of its body as its block is walked. */
static int walk_top(canon *c, TSTreeCursor *cur)
{
    if (!c->plan)
        return walk_top_here(c, cur);
    TSNode n = ts_tree_cursor_current_node(cur);
    flush_donated(c, c->plan, &c->plan_at, c->plan_len, c->donor, 0, ts_node_start_byte(n));
    const py_piece *p = c->plan_at < c->plan_len ? &c->plan[c->plan_at] : NULL;
    if (!p || p->sub_end == p->sub_begin)
        return walk_top_here(c, cur);
    TSNode def = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
    c->plan_body = py_field(def, "body");
    c->plan_body_line = c->mplan[p->sub_begin].row + 1;
    c->mplan_at = p->sub_begin;
    c->mplan_end = p->sub_end;
    int r = walk(c, cur, 1);
    c->plan_body = (TSNode){0};
    return r;
}

/* The statements of a module-level class's body: the donor's recorded (their
 * bytes and tokens, as for module-level statements), or by pieces the donated
 * ones put in between those walked. */
static int walk_body(canon *c, TSTreeCursor *cur, TSNode body)
{
    int recording =
        !c->plan && !ts_node_is_null(c->record_body) && ts_node_eq(body, c->record_body);
    c->record_body = (TSNode){0}; /* nested classes are not recorded */
    int r = 0;
    do {
        TSNode st = ts_tree_cursor_current_node(cur);
        if (!recording) {
            flush_donated(c, c->mplan, &c->mplan_at, c->mplan_end, c->donor, 1,
                          ts_node_start_byte(st));
            r = walk(c, cur, 0);
            continue;
        }
        size_t begin = c->toks.len;
        r = walk(c, cur, 0);
        if (r == 0 && sym_of(st)->kind != K_COMMENT) {
            uint32_t a = (uint32_t)((long)ts_node_start_byte(st) + c->delta);
            uint32_t b = (uint32_t)((long)ts_node_end_byte(st) + c->delta);
            unsigned row = (unsigned)((long)ts_node_start_point(st).row + c->row_delta);
            top_stmt ts = {a, b, row, begin, c->toks.len};
            VEC_PUSH(&c->members, ts);
            py_keys_add(&c->keys, 1, a, b);
        }
    } while (r == 0 && ts_tree_cursor_goto_next_sibling(cur));
    if (r == 0 && !recording)
        flush_donated(c, c->mplan, &c->mplan_at, c->mplan_end, c->donor, 1, UINT32_MAX);
    return r;
}

static int walk_from(canon *c, TSNode n);

/* A forest's statement: walked in its own tree, at its place in the file. */
static int walk_stmt(canon *c, const py_forest_stmt *st, int module_level)
{
    const py_tree *t = c->t;
    long delta = c->delta, row_delta = c->row_delta;
    c->t = st->t;
    c->delta = st->delta;
    c->row_delta = st->row_delta;
    TSTreeCursor cur = ts_tree_cursor_new(st->node);
    int r = walk(c, &cur, module_level);
    ts_tree_cursor_delete(&cur);
    c->t = t;
    c->delta = delta;
    c->row_delta = row_delta;
    return r;
}

/* The body of a forest's class parsed in part: its statements, each walked in
 * its own tree and recorded as walk_body() records those of a body whole. */
static int walk_split(canon *c, const py_forest_stmt *split)
{
    int r = 0;
    for (size_t i = split->mem_begin; r == 0 && i < split->mem_end; i++) {
        const py_forest_stmt *m = &c->forest->members[i];
        size_t begin = c->toks.len;
        r = walk_stmt(c, m, 0);
        top_stmt ts = {m->start, m->end, py_forest_row(m, m->node), begin, c->toks.len};
        VEC_PUSH(&c->members, ts);
        py_keys_add(&c->keys, 1, m->start, m->end);
    }
    return r;
}

static int walk_children(canon *c, TSTreeCursor *cur, int named_only, int module_level)
{
    TSNode n = ts_tree_cursor_current_node(cur);
    int body = (!ts_node_is_null(c->record_body) && ts_node_eq(n, c->record_body)) ||
               (!ts_node_is_null(c->plan_body) && ts_node_eq(n, c->plan_body));
    if (c->split && ts_node_eq(n, c->split->body)) {
        const py_forest_stmt *split = c->split;
        c->split = NULL;
        return walk_split(c, split);
    }
    if (!ts_tree_cursor_goto_first_child(cur))
        return 0;
    int r = 0;
    if (body) {
        c->plan_body = (TSNode){0};
        r = walk_body(c, cur, n);
        ts_tree_cursor_goto_parent(cur);
        return r;
    }
    do {
        if (named_only && !ts_node_is_named(ts_tree_cursor_current_node(cur)))
            continue;
        r = module_level ? walk_top(c, cur) : walk(c, cur, module_level);
    } while (r == 0 && ts_tree_cursor_goto_next_sibling(cur));
    ts_tree_cursor_goto_parent(cur);
    return r;
}

/* Walks the first named child of the cursor's node. */
static int walk_first_named(canon *c, TSTreeCursor *cur)
{
    if (!ts_tree_cursor_goto_first_child(cur))
        return 0;
    while (!ts_node_is_named(ts_tree_cursor_current_node(cur)) &&
           ts_tree_cursor_goto_next_sibling(cur))
        ;
    int r = walk(c, cur, 0);
    ts_tree_cursor_goto_parent(cur);
    return r;
}

static void emit_number(canon *c, TSNode n, unsigned line)
{
    size_t len;
    const char *s = py_text(c->t, n, &len);
    char *b = arena_alloc(&c->mem, len + 1);
    for (size_t i = 0; i < len; i++)
        b[i] = (char)tolower((unsigned char)s[i]);
    emit(c, b, len, line);
}

static void emit_leaf(canon *c, TSNode n, const sym_info *si, TSNode parent, unsigned line)
{
    if (ts_node_is_named(n)) {
        size_t len;
        const char *s = py_text(c->t, n, &len);
        emit(c, s, len, line);
        c->toks.items[c->toks.len - 1].ref = si->identifier && is_reference(n, parent);
    } else if (si->kind != K_IGNORED) {
        emits(c, si->name, line);
    }
}

/* One node: the rules of structural.h, each a choice made while emitting it. */
static int walk_node(canon *c, TSTreeCursor *cur, TSNode n, const sym_info *si, TSNode parent,
                     int module_level)
{
    unsigned line = py_line(n);
    switch (si->kind) {
    case K_COMMENT:
        return 0;
    case K_IMPORT:
        if (module_level) {
            record_import(c, n);
            return 0;
        }
        /* a nested import compares in place, and its names are noted: a module-level
         * import of the same name that only nested code uses is one ruff drops */
        c->record_nested = 1;
        record_import(c, n);
        c->record_nested = 0;
        emits(c, si->name, line);
        int r = walk_children(c, cur, 0, 0);
        emits(c, "/", line);
        return r;
    case K_PAREN:
        if (ts_node_named_child_count(n) == 1 &&
            sym_of(ts_node_named_child(n, 0))->kind != K_COMMENT)
            return walk_first_named(c, cur);
        return walk_children(c, cur, 1, 0);
    case K_STRING:
        emit_string(c, n, "");
        return 0;
    case K_EXPR_STMT:
        if (ts_node_named_child_count(n) == 1 && is_string_node(ts_node_named_child(n, 0))) {
            emit_docstring(c, ts_node_named_child(n, 0));
            return 0;
        }
        break;
    case K_NUMBER:
        emit_number(c, n, line);
        return 0;
    case K_TYPE_WRAP:
        /* `x: A = v` in a function's body: A is never evaluated */
        if (c->runtime && !c->in_class && ts_node_symbol(n) == table.type &&
            !ts_node_is_null(parent) && ts_node_symbol(parent) == table.assignment)
            return 0;
        /* an annotation's wrapper: `-> (A | B)` parses as an expression, `-> A | B`
         * as a union of types, and ruff drops the parentheses */
        return walk_children(c, cur, 0, 0);
    case K_ARGS:
        if (ts_node_named_child_count(n) == 0 && !ts_node_is_null(parent) &&
            ts_node_symbol(parent) == table.class_definition)
            return 0; /* class A(): == class A: */
        break;
    default:
        break;
    }
    if (ts_node_child_count(n) == 0) {
        emit_leaf(c, n, si, parent, line);
        return 0;
    }
    /* a body parsed in part starts at its first statement in the file, which
     * may be a donated one: its own tokens take that line */
    int body = !ts_node_is_null(c->plan_body) && ts_node_eq(n, c->plan_body);
    emits(c, si->name, line);
    if (body)
        c->toks.items[c->toks.len - 1].line = c->plan_body_line;
    unsigned cls = c->runtime && ts_node_symbol(n) == table.class_definition;
    c->in_class += cls;
    int r = walk_children(c, cur, 0, si->kind == K_MODULE);
    c->in_class -= cls;
    if (si->kind == K_MODULE && c->plan)
        flush_donated(c, c->plan, &c->plan_at, c->plan_len, c->donor, 0, UINT32_MAX);
    emits(c, "/", line);
    if (body)
        c->toks.items[c->toks.len - 1].line = c->plan_body_line;
    return r;
}

static int walk(canon *c, TSTreeCursor *cur, int module_level)
{
    TSNode n = ts_tree_cursor_current_node(cur);
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return pgci_error_set(PGCI_ELIMIT, "%s:%u: nesting deeper than %d levels", c->t->path,
                              py_line(n), MAX_DEPTH);
    }
    TSNode parent = c->walking;
    c->walking = n;
    int r = walk_node(c, cur, n, sym_of(n), parent, module_level);
    c->walking = parent;
    c->depth--;
    return r;
}

/* Walks node n and what is under it. */
static int walk_from(canon *c, TSNode n)
{
    TSTreeCursor cur = ts_tree_cursor_new(n);
    int r = walk(c, &cur, 0);
    ts_tree_cursor_delete(&cur);
    return r;
}

static void canon_free(canon *c)
{
    for (size_t i = 0; i < c->imports.len; i++) {
        free(c->imports.items[i].key);
        free(c->imports.items[i].name);
    }
    for (size_t i = 0; i < c->nested.len; i++) {
        free(c->nested.items[i].key);
        free(c->nested.items[i].name);
    }
    VEC_FREE(&c->toks);
    VEC_FREE(&c->imports);
    VEC_FREE(&c->nested);
    VEC_FREE(&c->tops);
    VEC_FREE(&c->members);
    py_keys_free(&c->keys);
    arena_free(&c->mem);
}

static int canon_walk(canon *c, const py_tree *t)
{
    pthread_once(&table.once, table_init);
    int r = py_check_syntax(t);
    if (r < 0)
        return r;
    c->t = t;
    c->keys.src = t->src;
    return walk_from(c, py_root(t));
}

static unsigned module_row(const char *src, size_t len);

/* A forest's canon: as canon_walk() of the tree of its whole source. */
static int canon_walk_forest(canon *c, const py_forest *f)
{
    pthread_once(&table.once, table_init);
    c->depth = 1; /* its statements are the module's children */
    c->forest = f;
    c->keys.src = f->file.src;
    c->t = &f->parsed;
    unsigned line = module_row(f->file.src, f->file.len) + 1;
    emits(c, sym_of(py_root(&f->parsed))->name, line);
    int r = 0;
    for (size_t i = 0; r == 0 && i < f->ntops; i++) {
        const py_forest_stmt *st = &f->tops[i];
        if (sym_of(st->node)->kind == K_IMPORT) {
            r = walk_stmt(c, st, 1);
            continue;
        }
        size_t begin = c->toks.len;
        TSNode def =
            py_is(st->node, "decorated_definition") ? py_field(st->node, "definition") : st->node;
        int is_class = ts_node_symbol(def) == table.class_definition;
        c->split = st->mem_end > st->mem_begin ? st : NULL;
        if (c->split) {
            c->plan_body = st->body;
            c->plan_body_line =
                py_forest_row(&f->members[st->mem_begin], f->members[st->mem_begin].node) + 1;
        }
        c->record_body = is_class && !c->split ? py_field(def, "body") : (TSNode){0};
        r = walk_stmt(c, st, 1);
        c->record_body = (TSNode){0};
        c->split = NULL;
        c->plan_body = (TSNode){0};
        top_stmt ts = {st->start, st->end, py_forest_row(st, st->node), begin, c->toks.len};
        VEC_PUSH(&c->tops, ts);
        py_keys_add(&c->keys, 0, st->start, st->end);
    }
    emits(c, "/", line);
    c->depth = 0;
    return r;
}

static int tok_eq(const tok *a, const tok *b)
{
    return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

static long find_binding(const canon *c, const char *key)
{
    for (size_t i = 0; i < c->imports.len; i++)
        if (!strcmp(c->imports.items[i].key, key))
            return (long)i;
    return -1;
}

/* A name is used when it appears as a referenced identifier outside the imports
 * (is_reference), or as a string in the body (e.g. listed in __all__). */
static int name_used(const canon *c, const char *name)
{
    if (!strcmp(name, "*"))
        return 1;
    size_t n = strlen(name);
    for (size_t i = 0; i < c->toks.len; i++) {
        const tok *t = &c->toks.items[i];
        if (t->ref && t->len == n && !memcmp(t->text, name, n))
            return 1;
        if (t->len == n + 4 && !memcmp(t->text, "str:", 4) && !memcmp(t->text + 4, name, n))
            return 1;
        /* dotted uses of an `import a.b` binding start with the bound name */
        if (t->len > n && !memcmp(t->text, name, n) && t->text[n] == '.')
            return 1;
    }
    return 0;
}

/* 1 when another import of a binds the same name as the i-th and b kept it:
 * ruff's F811 fix drops an import redefined before any use, and which of the two
 * comes first is for its import sorting (I001, applied in the same run) to say. */
static int rebound(const canon *a, size_t i, const canon *b)
{
    for (size_t k = 0; k < a->imports.len; k++)
        if (k != i && !strcmp(a->imports.items[k].name, a->imports.items[i].name) &&
            find_binding(b, a->imports.items[k].key) >= 0)
            return 1;
    return 0;
}

static int nested_binds(const canon *c, const char *name)
{
    for (size_t i = 0; i < c->nested.len; i++)
        if (!strcmp(c->nested.items[i].name, name))
            return 1;
    return 0;
}

/* The trees of the two sources: the checked-in one parsed, the regenerated one
 * derived from it where their lines agree (most of a file: ruff changes little of
 * what codegen writes), through the run's parse set when there is one. */
static int parse_pair(py_parse_set *set, const char *a, size_t alen, const char *b, size_t blen,
                      py_tree *ta, py_tree *tb)
{
    memset(ta, 0, sizeof(*ta));
    int r = py_parse(tb, b, blen, "<checked-in>");
    if (r < 0)
        return r;
    if (set)
        return py_parse_set_get_near(set, a, alen, "<regenerated>", tb, ta);
    return py_parse_near(ta, a, alen, "<regenerated>", tb);
}

/* At most 60 bytes of a token, for messages. */
#define TOK_SHOW(t) (int)((t)->len < 60 ? (t)->len : 60), (t)->text

/* The verdict on two canons (ca the regenerated file's). */
static void compare_canons(const canon *ca, const canon *cb, structural_result *res)
{
    res->equal = 1;
    /* imports: every binding of b must exist in a; a binding of a missing from b
     * must be unused in a */
    for (size_t i = 0; i < cb->imports.len && res->equal; i++) {
        if (find_binding(ca, cb->imports.items[i].key) < 0) {
            res->equal = 0;
            res->line_b = cb->imports.items[i].line;
            strbuf_addf(&res->what, "import '%s' is not in the regenerated file",
                        cb->imports.items[i].key);
        }
    }
    for (size_t i = 0; i < ca->imports.len && res->equal; i++) {
        const binding *bi = &ca->imports.items[i];
        if (find_binding(cb, bi->key) < 0 && name_used(ca, bi->name) &&
            !nested_binds(ca, bi->name) && !rebound(ca, i, cb)) {
            res->equal = 0;
            res->line_a = bi->line;
            strbuf_addf(&res->what, "import '%s' is missing from the checked-in file", bi->key);
        }
    }
    size_t n = ca->toks.len < cb->toks.len ? ca->toks.len : cb->toks.len;
    for (size_t i = 0; i < n && res->equal; i++) {
        const tok *x = &ca->toks.items[i], *y = &cb->toks.items[i];
        if (!tok_eq(x, y)) {
            res->equal = 0;
            res->line_a = x->line;
            res->line_b = y->line;
            strbuf_addf(&res->what,
                        "regenerated line %u has '%.*s' where the checked-in line "
                        "%u has '%.*s'",
                        res->line_a, TOK_SHOW(x), res->line_b, TOK_SHOW(y));
        }
    }
    if (res->equal && ca->toks.len != cb->toks.len) {
        res->equal = 0;
        const tok *extra = ca->toks.len > n ? &ca->toks.items[n] : &cb->toks.items[n];
        res->line_a = ca->toks.len > n ? extra->line : 0;
        res->line_b = cb->toks.len > n ? extra->line : 0;
        strbuf_addf(&res->what, "the %s file goes on at line %u ('%.*s')",
                    ca->toks.len > n ? "regenerated" : "checked-in", extra->line, TOK_SHOW(extra));
    }
}

/* Both files whole: the checked-in file parsed, the regenerated one near it. */
static int compare_whole(py_parse_set *set, const char *a, size_t alen, const char *b, size_t blen,
                         structural_result *res)
{
    memset(res, 0, sizeof(*res));
    strbuf_init(&res->what, 0);
    py_tree ta, tb;
    canon ca, cb;
    memset(&ca, 0, sizeof(ca));
    memset(&cb, 0, sizeof(cb));
    int r = parse_pair(set, a, alen, b, blen, &ta, &tb);
    /* the regenerated file's errors first; the checked-in file's statements that
     * are the regenerated file's, byte for byte, take their tokens */
    if (r == 0)
        r = canon_walk(&ca, &ta);
    cb.donor = &ca;
    if (r == 0)
        r = canon_walk(&cb, &tb);
    if (r == 0)
        compare_canons(&ca, &cb, res);
    canon_free(&ca);
    canon_free(&cb);
    if (ta.tree && set)
        py_parse_set_release(&ta);
    else if (ta.tree)
        py_tree_free(&ta);
    if (tb.tree)
        py_tree_free(&tb);
    return r;
}

/* The row of the first byte of src that is neither blank nor a line break: where
 * a module's node starts (its first comment or statement). */
static unsigned module_row(const char *src, size_t len)
{
    unsigned row = 0;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '\n')
            row++;
        else if (src[i] != ' ' && src[i] != '\t' && src[i] != '\f')
            break;
    }
    return row;
}

/* By pieces: the regenerated file's tree whole (the names check wants it too),
 * and of the checked-in file only the statements that are not the regenerated
 * file's byte for byte (most of them are: ruff changes little of what codegen
 * writes), parsed together as one text. Their tokens are the same as in a parse
 * of the whole file: a module-level statement parses the same wherever it is,
 * and py_top_split() finds the statements as tree-sitter does. Declines
 * (PGCI_EUNSUPPORTED) when the scan cannot tell the statements, or either file
 * has an error to report: the whole comparison says it. */
static int compare_pieces(py_parse_set *set, const py_forest *fa, const char *a, size_t alen,
                          const char *b, size_t blen, structural_result *res)
{
    memset(res, 0, sizeof(*res));
    strbuf_init(&res->what, 0);
    py_tree ta, tc;
    canon ca, cb;
    memset(&ta, 0, sizeof(ta));
    memset(&tc, 0, sizeof(tc));
    memset(&ca, 0, sizeof(ca));
    memset(&cb, 0, sizeof(cb));
    py_pieces ps;
    memset(&ps, 0, sizeof(ps));
    int r = 0;
    if (fa)
        r = canon_walk_forest(&ca, fa);
    else if ((r = set ? py_parse_set_get(set, a, alen, "<regenerated>", &ta)
                      : py_parse(&ta, a, alen, "<regenerated>")) == 0)
        r = canon_walk(&ca, &ta);
    if (r == 0)
        r = py_pieces_plan(&ca.keys, b, blen, &ps);
    if (r == 0)
        r = py_parse(&tc, ps.cat.buf, ps.cat.len, "<checked-in>");
    if (r == 0) {
        cb.donor = &ca;
        cb.plan = ps.plan.items;
        cb.plan_len = ps.plan.len;
        cb.mplan = ps.mplan.items;
        cb.rowmap = ps.rows.items;
        r = canon_walk(&cb, &tc);
    }
    if (r == 0) {
        /* the module's own tokens, at its row in the whole file */
        unsigned line = module_row(b, blen) + 1;
        cb.toks.items[0].line = line;
        cb.toks.items[cb.toks.len - 1].line = line;
        compare_canons(&ca, &cb, res);
    } else {
        pgci_error_clear();
        r = PGCI_EUNSUPPORTED;
    }
    canon_free(&ca);
    canon_free(&cb);
    if (ta.tree && set)
        py_parse_set_release(&ta);
    else if (ta.tree)
        py_tree_free(&ta);
    if (tc.tree)
        py_tree_free(&tc);
    py_pieces_free(&ps);
    return r;
}

/* Aborts when the comparison by pieces does not say what the whole one does
 * (PGCI_VERIFY_STRUCTURAL; tests set it). */
static void verify_pieces(py_parse_set *set, const char *a, size_t alen, const char *b, size_t blen,
                          const structural_result *got)
{
    structural_result want;
    if (compare_whole(set, a, alen, b, blen, &want) < 0 || !structural_result_same(&want, got)) {
        fprintf(stderr,
                "pgci: the structural comparison by pieces says %d %u %u '%s', whole %d %u %u "
                "'%s'\n",
                got->equal, got->line_a, got->line_b, got->what.buf, want.equal, want.line_a,
                want.line_b, want.what.buf);
        abort();
    }
    structural_result_free(&want);
}

int structural_compare(const char *a, size_t alen, const char *b, size_t blen,
                       structural_result *res)
{
    return structural_compare_in(NULL, NULL, 0, a, alen, b, blen, res);
}

int structural_compare_in(py_parse_set *set, const char *donor, size_t donor_len, const char *a,
                          size_t alen, const char *b, size_t blen, structural_result *res)
{
    const py_forest *fa =
        set && donor ? py_parse_set_get_forest(set, a, alen, "<regenerated>", donor, donor_len)
                     : NULL;
    int r = compare_pieces(set, fa, a, alen, b, blen, res);
    if (fa)
        py_parse_set_release_forest(set, fa);
    if (r == 0) {
        if (getenv("PGCI_VERIFY_STRUCTURAL"))
            verify_pieces(set, a, alen, b, blen, res);
        return 0;
    }
    structural_result_free(res);
    return compare_whole(set, a, alen, b, blen, res);
}

int structural_compare_whole(const char *a, size_t alen, const char *b, size_t blen,
                             structural_result *res)
{
    return compare_whole(NULL, a, alen, b, blen, res);
}

int structural_compare_pieces(const char *a, size_t alen, const char *b, size_t blen,
                              structural_result *res)
{
    int r = compare_pieces(NULL, NULL, a, alen, b, blen, res);
    if (r < 0)
        structural_result_free(res);
    return r;
}

int structural_compare_forest(const char *donor, size_t donor_len, const char *a, size_t alen,
                              const char *b, size_t blen, structural_result *res)
{
    py_tree td;
    py_forest f;
    int r = py_parse(&td, donor, donor_len, "<upstream>");
    if (r == 0 && (r = py_check_syntax(&td)) == 0)
        r = py_forest_build(&f, a, alen, "<regenerated>", &td, NULL, 0);
    if (r == 0) {
        r = compare_pieces(NULL, &f, a, alen, b, blen, res);
        py_forest_free(&f);
        if (r < 0)
            structural_result_free(res);
    } else {
        r = PGCI_EUNSUPPORTED; /* the message says why */
    }
    py_tree_free(&td);
    return r;
}

int structural_result_same(const structural_result *x, const structural_result *y)
{
    return x->equal == y->equal && x->line_a == y->line_a && x->line_b == y->line_b &&
           !strcmp(x->what.buf ? x->what.buf : "", y->what.buf ? y->what.buf : "");
}

void structural_result_free(structural_result *res)
{
    strbuf_free(&res->what);
}

/* The body of the first function or class in a tree (decorated or not). */
static TSNode first_body(TSNode root)
{
    uint32_t k = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < k; i++) {
        TSNode n = ts_node_named_child(root, i);
        if (py_is(n, "decorated_definition"))
            n = py_field(n, "definition");
        if (py_is(n, "function_definition") || py_is(n, "class_definition"))
            return py_field(n, "body");
    }
    return (TSNode){0};
}

/* The tokens of a definition's body (its docstring left out) into c. */
static int canon_def_body(canon *c, const py_tree *t, TSNode body)
{
    memset(c, 0, sizeof(*c));
    pthread_once(&table.once, table_init);
    c->t = t;
    if (ts_node_is_null(body))
        return 0;
    TSNode def = ts_node_parent(body);
    c->runtime = !ts_node_is_null(def) && ts_node_symbol(def) == table.function_definition;
    int r = 0;
    uint32_t k = ts_node_named_child_count(body);
    c->walking = body;
    for (uint32_t i = 0; i < k && r == 0; i++) {
        TSNode st = ts_node_named_child(body, i);
        if (i == 0 && py_is(st, "expression_statement") && ts_node_named_child_count(st) == 1 &&
            is_string_node(ts_node_named_child(st, 0)))
            continue; /* the docstring */
        r = walk_from(c, st);
    }
    return r;
}

static int canon_body(canon *c, py_tree *t, const char *src, size_t len)
{
    memset(c, 0, sizeof(*c));
    int r = py_parse(t, src, len, "<definition>");
    if (r < 0)
        return r;
    return canon_def_body(c, t, first_body(py_root(t)));
}

/* The tokens of both bodies compared: 1 equal, 0 not. */
static int canon_equal(const canon *ca, const canon *cb)
{
    int eq = ca->toks.len == cb->toks.len;
    for (size_t i = 0; eq && i < ca->toks.len; i++)
        eq = tok_eq(&ca->toks.items[i], &cb->toks.items[i]);
    return eq;
}

/* The body of the definition that starts at byte `at` of t (decorated or not). */
static int def_body_at(const py_tree *t, uint32_t at, TSNode *body)
{
    TSNode n = ts_node_descendant_for_byte_range(py_root(t), at, at);
    for (; !ts_node_is_null(n) && ts_node_start_byte(n) == at; n = ts_node_parent(n)) {
        TSNode def = py_is(n, "decorated_definition") ? py_field(n, "definition") : n;
        if (py_is(def, "function_definition") || py_is(def, "class_definition")) {
            *body = py_field(def, "body");
            return 0;
        }
    }
    return pgci_error_set(PGCI_ENOTFOUND, "%s: no definition at byte %u", t->path, at);
}

int structural_def_bodies_equal(const py_tree *ta, uint32_t a_start, const py_tree *tb,
                                uint32_t b_start)
{
    TSNode ba, bb;
    int r = def_body_at(ta, a_start, &ba);
    if (r == 0)
        r = def_body_at(tb, b_start, &bb);
    if (r < 0)
        return r;
    canon ca, cb;
    memset(&cb, 0, sizeof(cb));
    r = canon_def_body(&ca, ta, ba);
    if (r == 0)
        r = canon_def_body(&cb, tb, bb);
    int eq = r < 0 ? r : canon_equal(&ca, &cb);
    canon_free(&ca);
    canon_free(&cb);
    return eq;
}

int structural_bodies_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    py_tree ta, tb;
    canon ca, cb;
    memset(&tb, 0, sizeof(tb));
    memset(&cb, 0, sizeof(cb));
    int r = canon_body(&ca, &ta, a, alen);
    if (r == 0)
        r = canon_body(&cb, &tb, b, blen);
    int eq = r == 0 ? canon_equal(&ca, &cb) : -1;
    canon_free(&ca);
    canon_free(&cb);
    if (ta.tree)
        py_tree_free(&ta);
    if (tb.tree)
        py_tree_free(&tb);
    return r < 0 ? r : eq;
}
