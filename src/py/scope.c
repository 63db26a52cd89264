/*
 * scope.c - Python scoping after ruff's semantic model: scopes, bindings, name
 * resolution, and the pyflakes rules F821, F811 and F401 derived from them.
 *
 * Why a model and not a simple "is this name assigned anywhere" pass: pyflakes'
 * answers depend on *when* a name is bound relative to its use, in which scope, and
 * on which branch. checks/scope_walk.c visits the tree in ruff's order and calls the
 * operations here as it meets bindings and reads; each read is resolved against the
 * scopes as they are at that moment (scope_load), exactly like ruff's resolve_load:
 * class scopes are skipped from nested functions, annotation-only bindings are
 * skipped, deletions and unbound exception names make a read undefined.
 *
 * F811 needs branches: two imports of one name in the `if` and `else` arms are not a
 * redefinition. Each arm of if/elif/else, try body (with its else), each except
 * handler, finally, with body and match case is a branch; two bindings are on the
 * same branch when they were made under the same innermost branch.
 */
#include "py/scope_model.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"

typedef scope_ctx ctx;

/* ---- scopes, branches, bindings -------------------------------------------------------- */

static const char *const builtins_always[] = {
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EnvironmentError",
    "Exception",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    /* magic globals: not attributes of builtins, but defined in every module */
    "WindowsError",
    "__annotations__",
    "__builtins__",
    "__cached__",
    "__warningregistry__",
    "__file__",
};

static int is_builtin(const ctx *c, const char *name)
{
    int minor = c->o->py_minor;
    if (minor >= 10 &&
        (!strcmp(name, "EncodingWarning") || !strcmp(name, "aiter") || !strcmp(name, "anext")))
        return 1;
    if (minor >= 11 && (!strcmp(name, "BaseExceptionGroup") || !strcmp(name, "ExceptionGroup")))
        return 1;
    if (minor >= 13 && !strcmp(name, "PythonFinalizationError"))
        return 1;
    if (minor >= 14 && !strcmp(name, "__annotate__"))
        return 1;
    /* Looked up once per name per module (the result becomes a binding): a linear scan
     * with a first-byte filter is fast enough. */
    for (size_t i = 0; i < sizeof(builtins_always) / sizeof(builtins_always[0]); i++)
        if (builtins_always[i][0] == name[0] && !strcmp(builtins_always[i], name))
            return 1;
    return 0;
}

int scope_new(ctx *c, enum scope_kind k, int parent)
{
    scope s = {(uint8_t)k, 0, parent, HASHMAP_INIT};
    VEC_PUSH(&c->s, s);
    return (int)c->s.len - 1;
}

void scope_push(ctx *c, enum scope_kind k)
{
    c->cur.scope = scope_new(c, k, c->cur.scope);
}

void scope_pop(ctx *c)
{
    c->cur.scope = c->s.items[c->cur.scope].parent;
}

int scope_branch_push(ctx *c)
{
    VEC_PUSH(&c->branches, c->cur.branch);
    c->cur.branch = (int)c->branches.len - 1;
    return c->cur.branch;
}

void scope_branch_pop(ctx *c)
{
    c->cur.branch = c->branches.items[c->cur.branch];
}

int scope_binding_new(ctx *c, enum bkind k, const char *name, uint32_t start, uint32_t end,
                      int scope_id, int branch)
{
    binding b;
    memset(&b, 0, sizeof(b));
    b.kind = (uint8_t)k;
    b.name = name;
    b.start = start;
    b.end = end;
    b.scope = scope_id;
    b.branch = branch;
    b.prev = b.cross = b.target = -1;
    VEC_PUSH(&c->b, b);
    return (int)c->b.len - 1;
}

/* The binding a scope maps name to, or -1. The module scope holds the builtins; they
 * are created on first lookup instead of ~160 up front, which is equivalent because
 * every access to a scope goes through here. */
int scope_get(ctx *c, int sid, const char *name)
{
    void *v = hashmap_get(&c->s.items[sid].names, name);
    if (v)
        return (int)((intptr_t)v - 1);
    if (c->s.items[sid].kind == SK_MODULE && is_builtin(c, name)) {
        int id = scope_binding_new(c, BK_BUILTIN, arena_strdup(&c->ar, name), 0, 0, sid, -1);
        hashmap_put(&c->s.items[sid].names, name, (void *)(intptr_t)(id + 1));
        return id;
    }
    return -1;
}

/* Maps name to binding id in a scope, remembering the binding it replaces. */
void scope_add(ctx *c, int sid, const char *name, int id)
{
    int prev = scope_get(c, sid, name);
    hashmap_put(&c->s.items[sid].names, name, (void *)(intptr_t)(id + 1));
    c->b.items[id].prev = prev;
}

int scope_is_unbound(const binding *b)
{
    return b->kind == BK_ANNOTATION || b->kind == BK_DELETION || b->kind == BK_UNBOUND_EXC;
}

/* ruff's add_binding: a new binding in the current scope (the enclosing
 * non-comprehension scope for `:=`), inheriting the uses of the binding it replaces. */
int scope_bind(ctx *c, const char *name, uint32_t start, uint32_t end, enum bkind k, unsigned flags,
               int branch)
{
    int sid = c->cur.scope;
    if (k == BK_NAMED_EXPR)
        while (c->s.items[sid].kind == SK_GENERATOR && c->s.items[sid].parent >= 0)
            sid = c->s.items[sid].parent;
    int id = scope_binding_new(c, k, name, start, end, sid, branch);
    c->b.items[id].flags = (uint8_t)flags;
    int old = scope_get(c, sid, name);
    if (old >= 0) {
        if (k == BK_ANNOTATION)
            return id; /* a later annotation of a bound name does not rebind it */
        binding *sh = &c->b.items[old];
        if (sh->kind != BK_BUILTIN && sh->kind != BK_DELETION && sh->kind != BK_UNBOUND_EXC) {
            c->b.items[id].refs = sh->refs;
            c->b.items[id].flags |= sh->flags & (BF_GLOBAL | BF_NONLOCAL);
        }
    } else {
        for (int a = c->s.items[sid].parent; a >= 0; a = c->s.items[a].parent) {
            uint8_t ak = c->s.items[a].kind;
            if (ak != SK_FUNCTION && ak != SK_MODULE)
                continue;
            int e = scope_get(c, a, name);
            if (e >= 0) {
                c->b.items[id].cross = e;
                break;
            }
        }
    }
    scope_add(c, sid, name, id);
    return id;
}

static unsigned exc_mask(const ctx *c)
{
    unsigned m = 0;
    for (size_t i = 0; i < c->exc.len; i++)
        m |= c->exc.items[i];
    return m;
}

void scope_unresolved(ctx *c, const char *name, uint32_t start, uint32_t end, int wildcard)
{
    unresolved u = {start, end, name, exc_mask(c), wildcard};
    VEC_PUSH(&c->unres, u);
}

/* `import pyarrow as pa; import pyarrow.csv`: reading `pa` also uses `pyarrow.csv`. */
static void ref_submodule(ctx *c, const char *name, int sid, int id)
{
    const binding *b = &c->b.items[id];
    if (b->kind != BK_IMPORT || !b->qual)
        return;
    const char *last = strrchr(b->qual, '.');
    last = last ? last + 1 : b->qual;
    if (!strcmp(last, name))
        return;
    int sub = scope_get(c, sid, last);
    if (sub < 0 || c->b.items[sub].kind != BK_SUBMODULE)
        return;
    const char *q1 = b->qual, *q2 = c->b.items[sub].qual;
    size_t n1 = strcspn(q1, "."), n2 = strcspn(q2, ".");
    if (n1 == n2 && !memcmp(q1, q2, n1))
        c->b.items[sub].refs++;
}

static int in_forward_ref(const ctx *c)
{
    return (c->cur.flags & (FL_STRING_DEF | FL_FUTURE_DEF)) != 0;
}

/* ruff's resolve_load: resolves a read of `name` at the current point. */
void scope_load(ctx *c, const char *name, uint32_t start, uint32_t end)
{
    if (in_forward_ref(c)) {
        int g = scope_get(c, 0, name);
        if (g >= 0 && !scope_is_unbound(&c->b.items[g])) {
            c->b.items[g].refs++;
            ref_submodule(c, name, 0, g);
            return;
        }
    }
    int starred = 0, visible = 1, index = 0;
    for (int sid = c->cur.scope; sid >= 0; sid = c->s.items[sid].parent, index++) {
        const scope *s = &c->s.items[sid];
        if (s->kind == SK_CLASS && !visible)
            continue;
        visible = (s->kind == SK_TYPE && index == 0) || (s->kind == SK_CLASSCELL && index == 1);
        int id = scope_get(c, sid, name);
        if (id >= 0) {
            binding *b = &c->b.items[id];
            b->refs++;
            ref_submodule(c, name, sid, id);
            switch (b->kind) {
            case BK_ANNOTATION:
                continue;
            case BK_DELETION:
                scope_unresolved(c, name, start, end, 0);
                return;
            case BK_UNBOUND_EXC:
                if (b->target < 0) {
                    scope_unresolved(c, name, start, end, 0);
                } else {
                    c->b.items[b->target].refs++;
                    ref_submodule(c, name, sid, b->target);
                }
                return;
            case BK_GLOBAL:
            case BK_NONLOCAL:
                if (b->target >= 0)
                    c->b.items[b->target].refs++;
                return;
            default:
                return;
            }
        }
        if (index == 0 && s->kind == SK_CLASS &&
            (!strcmp(name, "__module__") || !strcmp(name, "__qualname__")))
            return;
        starred |= s->star;
    }
    scope_unresolved(c, name, start, end, starred);
}

/* ruff's lookup_symbol: resolve_load without recording anything. -1 when unbound. */
int scope_lookup(ctx *c, const char *name)
{
    if (in_forward_ref(c)) {
        int g = scope_get(c, 0, name);
        if (g >= 0 && !scope_is_unbound(&c->b.items[g]))
            return g;
    }
    int visible = 1, index = 0;
    for (int sid = c->cur.scope; sid >= 0; sid = c->s.items[sid].parent, index++) {
        const scope *s = &c->s.items[sid];
        if (s->kind == SK_CLASS && !visible)
            continue;
        visible = (s->kind == SK_TYPE && index == 0) || (s->kind == SK_CLASSCELL && index == 1);
        int id = scope_get(c, sid, name);
        if (id >= 0) {
            const binding *b = &c->b.items[id];
            if (b->kind == BK_ANNOTATION)
                continue;
            if (b->kind == BK_DELETION || (b->kind == BK_UNBOUND_EXC && b->target < 0))
                return -1;
            if (b->kind == BK_UNBOUND_EXC)
                return b->target;
            return id;
        }
        if (index == 0 && s->kind == SK_CLASS &&
            (!strcmp(name, "__module__") || !strcmp(name, "__qualname__")))
            return -1;
    }
    return -1;
}

/* 1-based line and character column of a module offset (ruff counts characters). */
void scope_position(const ctx *c, uint32_t off, unsigned *line, unsigned *col)
{
    size_t lo = 0, hi = c->lines.len;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->lines.items[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    unsigned chars = 0;
    for (uint32_t i = c->lines.items[lo]; i < off && i < c->t->len; i++)
        if (((unsigned char)c->t->src[i] & 0xC0) != 0x80)
            chars++;
    *line = (unsigned)lo + 1;
    *col = chars + 1;
}

/* ---- the rules ------------------------------------------------------------------------ */

static void diag_add(scope_diags *d, const char *code, unsigned line, unsigned col,
                     const char *name, size_t nlen, unsigned prev_line)
{
    VEC_PUSH(d, ((scope_diag){code, line, col, pgci_strndup(name, nlen), prev_line, 0}));
}

/* The statement line of a from-import binding (ruff's parent range), else 0. */
static unsigned parent_line(const ctx *c, const binding *b)
{
    unsigned line = 0, col;
    if (b->from_stmt)
        scope_position(c, b->stmt_start, &line, &col);
    return line;
}

static void rule_undefined(ctx *c, scope_diags *out)
{
    for (size_t i = 0; i < c->unres.len; i++) {
        const unresolved *u = &c->unres.items[i];
        if (u->wildcard || (u->exc & EXC_NAME_ERROR))
            continue;
        if (c->o->is_init && !strcmp(u->name, "__path__"))
            continue;
        unsigned line, col;
        scope_position(c, u->start, &line, &col);
        diag_add(out, "F821", line, col, c->t->src + u->start, u->end - u->start, 0);
    }
}

static int is_import_kind(int k)
{
    return k == BK_IMPORT || k == BK_FROM_IMPORT || k == BK_SUBMODULE || k == BK_FUTURE_IMPORT;
}

/* pyflakes' "redefinition": does binding b replace e in a way worth reporting? */
static int redefines(const binding *b, const binding *e)
{
    switch (b->kind) {
    case BK_IMPORT:
    case BK_FROM_IMPORT:
        if (e->kind == BK_SUBMODULE)
            return b->qual && e->qual && !strcmp(b->qual, e->qual);
        break;
    case BK_SUBMODULE:
        if (e->kind == BK_IMPORT || e->kind == BK_SUBMODULE || e->kind == BK_FROM_IMPORT)
            return b->qual && e->qual && !strcmp(b->qual, e->qual);
        break;
    case BK_DELETION:
    case BK_ANNOTATION:
    case BK_FUTURE_IMPORT:
    case BK_BUILTIN:
        return 0;
    case BK_ASSIGNMENT:
    case BK_NAMED_EXPR:
        if (e->kind == BK_ASSIGNMENT || e->kind == BK_NAMED_EXPR)
            return 0;
        break;
    default:
        break;
    }
    return e->kind == BK_CLASS || e->kind == BK_FUNCTION || e->kind == BK_IMPORT ||
           e->kind == BK_FROM_IMPORT || e->kind == BK_ASSIGNMENT || e->kind == BK_NAMED_EXPR;
}

/* ruff's default dummy-variable-rgx: ^(_+|(_+[a-zA-Z0-9_]*[a-zA-Z0-9]+?))$ */
static int is_dummy(const char *n)
{
    if (n[0] != '_')
        return 0;
    size_t len = strlen(n), i = 0;
    while (i < len && n[i] == '_')
        i++;
    if (i == len)
        return 1;
    for (size_t j = i; j < len; j++)
        if (!(n[j] == '_' || (n[j] >= '0' && n[j] <= '9') || (n[j] >= 'a' && n[j] <= 'z') ||
              (n[j] >= 'A' && n[j] <= 'Z')))
            return 0;
    char last = n[len - 1];
    return last != '_';
}

static void report_redefinition(ctx *c, scope_diags *out, const binding *b, const binding *e)
{
    unsigned line, col, pline, pcol;
    scope_position(c, b->start, &line, &col);
    scope_position(c, e->start, &pline, &pcol);
    diag_add(out, "F811", line, col, c->t->src + b->start, b->end - b->start, pline);
    out->items[out->len - 1].parent_line = parent_line(c, b);
}

static void consider(ctx *c, scope_diags *out, const char *name, int bid, int eid, int same)
{
    const binding *b = &c->b.items[bid], *e = &c->b.items[eid];
    if (b->kind == BK_LOOP_VAR || e->refs > 0 || !redefines(b, e))
        return;
    if (same) {
        if (!is_import_kind(e->kind) && is_dummy(name))
            return;
        if (e->kind == BK_BUILTIN)
            return; /* no source statement */
        if (e->kind == BK_FUNCTION && (e->flags & BF_OVERLOAD))
            return;
    } else if (!is_import_kind(e->kind)) {
        return;
    }
    if (e->branch != b->branch)
        return;
    report_redefinition(c, out, b, e);
}

static void rule_redefined(ctx *c, scope_diags *out)
{
    for (size_t s = 0; s < c->s.len; s++) {
        uint8_t k = c->s.items[s].kind;
        if (k == SK_TYPE || k == SK_CLASSCELL)
            continue;
        const hashmap *m = &c->s.items[s].names;
        for (size_t i = 0; i < m->len; i++) {
            if (!m->entries[i].key)
                continue;
            const char *name = m->entries[i].key;
            int id = (int)((intptr_t)m->entries[i].value - 1);
            while (id >= 0) {
                if (c->b.items[id].cross >= 0)
                    consider(c, out, name, id, c->b.items[id].cross, 0);
                int prev = c->b.items[id].prev;
                if (prev >= 0)
                    consider(c, out, name, id, prev, 1);
                id = prev;
            }
        }
    }
}

static void rule_unused_import(ctx *c, scope_diags *out)
{
    for (size_t s = 0; s < c->s.len; s++) {
        uint8_t k = c->s.items[s].kind;
        if (k != SK_MODULE && k != SK_FUNCTION)
            continue;
        const hashmap *m = &c->s.items[s].names;
        for (size_t i = 0; i < m->len; i++) {
            if (!m->entries[i].key)
                continue;
            const binding *b = &c->b.items[(intptr_t)m->entries[i].value - 1];
            if (b->kind != BK_IMPORT && b->kind != BK_FROM_IMPORT && b->kind != BK_SUBMODULE)
                continue;
            if (b->refs > 0 || (b->flags & (BF_EXPLICIT_EXPORT | BF_GLOBAL | BF_NONLOCAL)))
                continue;
            unsigned line, col;
            scope_position(c, b->start, &line, &col);
            diag_add(out, "F401", line, col, b->qual, strlen(b->qual), 0);
            out->items[out->len - 1].parent_line = parent_line(c, b);
        }
    }
}

/* ---- entry point ---------------------------------------------------------------------- */

static void ctx_free(ctx *c)
{
    for (size_t i = 0; i < c->s.len; i++)
        hashmap_free(&c->s.items[i].names);
    for (size_t i = 0; i < c->subtrees.len; i++) {
        py_tree_free(c->subtrees.items[i]);
        free(c->subtrees.items[i]);
    }
    VEC_FREE(&c->subtrees);
    VEC_FREE(&c->s);
    VEC_FREE(&c->b);
    VEC_FREE(&c->branches);
    VEC_FREE(&c->unres);
    VEC_FREE(&c->exc);
    VEC_FREE(&c->lines);
    VEC_FREE(&c->q_functions);
    VEC_FREE(&c->q_lambdas);
    VEC_FREE(&c->q_typeparams);
    VEC_FREE(&c->q_futures);
    VEC_FREE(&c->q_strings);
    arena_free(&c->ar);
}

/* The module t (a forest's source when f is not NULL) analysed. */
static int analyze(const py_tree *t, const py_forest *f, const scope_opts *o, scope_diags *out)
{
    static const scope_opts defaults = SCOPE_OPTS_INIT;
    ctx c;
    memset(&c, 0, sizeof(c));
    c.t = t;
    c.forest = f;
    c.o = o ? o : &defaults;
    nm_src main_src = {t->src, 0, 0, 0, 0};
    VEC_PUSH(&c.lines, 0);
    for (size_t i = 0; i < t->len; i++)
        if (t->src[i] == '\n')
            VEC_PUSH(&c.lines, (uint32_t)(i + 1));
    c.cur.scope = scope_new(&c, SK_MODULE, -1);
    c.cur.branch = -1;
    c.cur.src = &main_src;
    scope_walk(&c);
    int r = 0;
    if (c.too_deep) {
        r = pgci_error_set(PGCI_ELIMIT, "%s: nesting deeper than %d levels", t->path,
                           SCOPE_MAX_DEPTH);
    } else if (c.depth != 0) {
        r = pgci_error_set(PGCI_ERROR, "%s: internal error: unbalanced scope walk", t->path);
    } else {
        size_t before = out->len;
        rule_undefined(&c, out);
        rule_redefined(&c, out);
        rule_unused_import(&c, out);
        if (out->len > before) {
            scope_diags tail = {out->items + before, out->len - before, 0};
            scope_diags_sort(&tail);
        }
    }
    ctx_free(&c);
    return r;
}

int scope_analyze(const py_tree *t, const scope_opts *o, scope_diags *out)
{
    if (py_check_syntax(t) < 0)
        return pgci_error_code();
    return analyze(t, NULL, o, out);
}

int scope_analyze_forest(const py_forest *f, const scope_opts *o, scope_diags *out)
{
    return analyze(&f->file, f, o, out);
}

static int diag_cmp(const void *a, const void *b)
{
    const scope_diag *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return strcmp(x->code, y->code);
}

void scope_diags_sort(scope_diags *d)
{
    if (d->len > 1)
        qsort(d->items, d->len, sizeof(d->items[0]), diag_cmp);
}

void scope_diags_free(scope_diags *d)
{
    for (size_t i = 0; i < d->len; i++)
        free(d->items[i].name);
    free(d->items);
    d->items = NULL;
    d->len = d->cap = 0;
}
