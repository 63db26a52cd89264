/*
 * codegen_imports.c - patchgen's _transform_imports() over a tree-sitter tree.
 *
 * patchgen visits the module with an ast.NodeVisitor, so imports inside
 * functions, classes, `try` and `if` blocks are collected too, in source order
 * (a pre-order walk). Each statement is rebuilt as an ast node and unparsed:
 * dotted names lose their spaces, parenthesised lists and comments disappear,
 * aliases are rendered "name as alias" separated by ", ".
 */
#include "patchgen/codegen_imports.h"

#include <string.h>

#include "py/pynode.h"

typedef struct imp_alias {
    strbuf name;  /* dotted name, "*" for a wildcard */
    strbuf alias; /* empty when none */
} imp_alias;

static void dotted_name(strbuf *out, const py_tree *t, TSNode n)
{
    if (!py_is(n, "dotted_name")) {
        size_t len;
        const char *s = py_text(t, n, &len);
        strbuf_add(out, s, len);
        return;
    }
    int first = 1;
    uint32_t c = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < c; i++) {
        TSNode k = ts_node_named_child(n, i);
        if (!py_is(k, "identifier"))
            continue;
        if (!first)
            strbuf_addc(out, '.');
        size_t len;
        const char *s = py_text(t, k, &len);
        strbuf_add(out, s, len);
        first = 0;
    }
}

static void alias_of(imp_alias *a, const py_tree *t, TSNode n)
{
    strbuf_init(&a->name, 0);
    strbuf_init(&a->alias, 0);
    if (py_is(n, "aliased_import")) {
        dotted_name(&a->name, t, py_field(n, "name"));
        TSNode al = py_field(n, "alias");
        if (!ts_node_is_null(al)) {
            size_t len;
            const char *s = py_text(t, al, &len);
            strbuf_add(&a->alias, s, len);
        }
    } else if (py_is(n, "wildcard_import")) {
        strbuf_addc(&a->name, '*');
    } else {
        dotted_name(&a->name, t, n);
    }
}

/* _should_keep_alias(): candidates {name, last dotted part, asname}. */
static int keep_alias(const imp_alias *a, const pg_config *cfg)
{
    const char *last = strrchr(a->name.buf, '.');
    last = last ? last + 1 : a->name.buf;
    for (size_t i = 0; i < cfg->drop_imported_names.len; i++) {
        const char *d = cfg->drop_imported_names.items[i];
        if (!strcmp(d, a->name.buf) || !strcmp(d, last) ||
            (a->alias.len && !strcmp(d, a->alias.buf)))
            return 0;
    }
    return 1;
}

static void render_names(strbuf *line, imp_alias *as, size_t n, const unsigned char *keep)
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        if (!first)
            strbuf_adds(line, ", ");
        strbuf_add(line, as[i].name.buf, as[i].name.len);
        if (as[i].alias.len) {
            strbuf_adds(line, " as ");
            strbuf_add(line, as[i].alias.buf, as[i].alias.len);
        }
        first = 0;
    }
}

static void render_one(strvec *out, const py_tree *t, TSNode n, const pg_config *cfg)
{
    int is_from = !py_is(n, "import_statement");
    int seen_import = !is_from;
    strbuf module = STRBUF_INIT;
    long level = 0;
    if (py_is(n, "future_import_statement"))
        strbuf_adds(&module, "__future__");
    VEC(imp_alias) names = VEC_INIT;
    uint32_t c = ts_node_child_count(n);
    for (uint32_t i = 0; i < c; i++) {
        TSNode k = ts_node_child(n, i);
        const char *type = ts_node_type(k);
        if (!strcmp(type, "import")) {
            seen_import = 1;
            continue;
        }
        if (!seen_import) {
            if (!strcmp(type, "dotted_name")) {
                dotted_name(&module, t, k);
            } else if (!strcmp(type, "relative_import")) {
                uint32_t rc = ts_node_named_child_count(k);
                for (uint32_t j = 0; j < rc; j++) {
                    TSNode r = ts_node_named_child(k, j);
                    if (py_is(r, "import_prefix")) {
                        size_t len;
                        const char *s = py_text(t, r, &len);
                        for (size_t q = 0; q < len; q++)
                            level += s[q] == '.';
                    } else if (py_is(r, "dotted_name")) {
                        dotted_name(&module, t, r);
                    }
                }
            }
            continue;
        }
        if (!strcmp(type, "dotted_name") || !strcmp(type, "aliased_import") ||
            !strcmp(type, "wildcard_import")) {
            imp_alias a;
            alias_of(&a, t, k);
            VEC_PUSH(&names, a);
        }
    }

    unsigned char *keep = pgci_calloc(names.len ? names.len : 1, 1);
    size_t kept = 0;
    for (size_t i = 0; i < names.len; i++)
        if ((keep[i] = (unsigned char)keep_alias(&names.items[i], cfg)))
            kept++;
    if (kept) {
        strbuf line = STRBUF_INIT;
        if (!is_from) {
            strbuf_adds(&line, "import ");
        } else {
            strbuf mod = STRBUF_INIT;
            long lv = level;
            /* relative imports made absolute against source_module when the level
             * fits; ".".join(base_parts[:-level]) then "{abs}.{module}" */
            size_t nparts = 1;
            for (const char *p = cfg->source_module; *p; p++)
                nparts += *p == '.';
            if (level > 0 && (size_t)level <= nparts) {
                size_t keep_parts = nparts - (size_t)level, seen = 0;
                const char *p = cfg->source_module, *end = p;
                if (keep_parts > 0) {
                    while (*end) {
                        if (*end == '.' && ++seen == keep_parts)
                            break;
                        end++;
                    }
                }
                strbuf_add(&mod, p, (size_t)(end - p));
                if (module.len) {
                    strbuf_addc(&mod, '.');
                    strbuf_add(&mod, module.buf, module.len);
                }
                lv = 0;
            } else {
                strbuf_add(&mod, module.buf, module.len);
            }
            strbuf_adds(&line, "from ");
            for (long q = 0; q < lv; q++)
                strbuf_addc(&line, '.');
            strbuf_add(&line, mod.buf, mod.len);
            strbuf_adds(&line, " import ");
            strbuf_free(&mod);
        }
        render_names(&line, names.items, names.len, keep);
        strvec_push_owned(out, strbuf_detach(&line, NULL));
    }
    free(keep);
    for (size_t i = 0; i < names.len; i++) {
        strbuf_free(&names.items[i].name);
        strbuf_free(&names.items[i].alias);
    }
    VEC_FREE(&names);
    strbuf_free(&module);
}

/* The nodes whose children may be statements, def and class included (patchgen's
 * ast.walk finds imports in their bodies too): the index's import walk has the
 * same set (src/index/index_build.c, checked against CPython's ast on whole
 * releases by tests/corpus/10-index.sh). */
static int holds_statements(TSNode n)
{
    return pynode_holds_statements(n) || py_is(n, "function_definition") ||
           py_is(n, "class_definition");
}

/* Every import statement of the tree (free of syntax errors: codegen checked),
 * however nested (patchgen's ast.walk finds those in functions, classes and try
 * blocks too), in source order: a preorder walk that enters only the nodes that
 * may hold statements, most of a module's nodes being under expressions. With a
 * cursor: in tree-sitter 0.20 ts_node_named_child(n, i) costs O(i), so a loop over
 * it is quadratic in a node's child count (the module's statements). */
void cgimp_render(strvec *out, const py_tree *t, const pg_config *cfg)
{
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int enter;
    do {
        TSNode n = ts_tree_cursor_current_node(&cur);
        enter = 0;
        if (ts_node_is_named(n)) {
            if (pynode_is_import(n))
                render_one(out, t, n, cfg);
            else
                enter = holds_statements(n);
        }
    } while (py_cursor_next(&cur, enter));
    ts_tree_cursor_delete(&cur);
}
