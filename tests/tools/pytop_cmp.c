/*
 * pytop_cmp - py_top_split() against tree-sitter on real files: for every file
 * named on the command line whose tree has no error, the statement starts the
 * scan finds must be those of the module's children that are not comments (a
 * declined text is counted, never wrong). Prints one line per disagreement and
 * the counts; exits 1 on any disagreement. It also counts the statements
 * whose code_end is the node's end (how often the comparison finds a statement
 * by its bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "py/py.h"
#include "py/pytop.h"

/* The statements of a class's body: those of its block that are not comments. */
static int body_like_tree(const char *path, const char *src, size_t len, const py_top *tops,
                          size_t n, size_t j, TSNode ch, size_t *count)
{
    TSNode def = py_is(ch, "decorated_definition") ? py_field(ch, "definition") : ch;
    TSNode body = py_is(def, "class_definition") ? py_field(def, "body") : (TSNode){0};
    size_t end = j + 1 < n ? tops[j + 1].start : len;
    py_top *m;
    size_t k;
    if (!tops[j].body) {
        /* no body on the lines after a header: no class, or `class A: pass` */
        if (!ts_node_is_null(body) &&
            ts_node_start_point(body).row > ts_node_start_point(def).row) {
            printf("%s:%u: the scan finds no class body\n", path, py_line(ch));
            return 1;
        }
        return 0;
    }
    if (ts_node_is_null(body)) {
        printf("%s:%u: the scan finds a class body, tree-sitter no class\n", path, py_line(ch));
        return 1;
    }
    if (py_top_split_body(src, len, &tops[j], end, &m, &k) < 0)
        return 0; /* declined */
    size_t i = 0;
    for (uint32_t c = 0; c < ts_node_named_child_count(body); c++) {
        TSNode st = ts_node_named_child(body, c);
        if (py_is(st, "comment"))
            continue;
        if (i >= k || m[i].start != ts_node_start_byte(st)) {
            printf("%s:%u: tree-sitter starts a class body statement the scan does not\n", path,
                   py_line(st));
            free(m);
            return 1;
        }
        i++;
    }
    free(m);
    if (i != k) {
        printf("%s:%u: the scan finds %zu class body statements, tree-sitter %zu\n", path,
               py_line(ch), k, i);
        return 1;
    }
    *count += k;
    return 0;
}

int main(int argc, char **argv)
{
    size_t files = 0, declined = 0, errors = 0, bad = 0, stmts = 0, ends = 0, members = 0;
    for (int a = 1; a < argc; a++) {
        strbuf sb = STRBUF_INIT;
        if (fs_read_file(&sb, argv[a], 64u << 20) < 0) {
            fprintf(stderr, "pytop_cmp: %s\n", pgci_error_last());
            return 2;
        }
        size_t len = sb.len;
        char *src = strbuf_detach(&sb, NULL);
        files++;
        py_tree t;
        if (py_parse(&t, src, len, argv[a]) < 0 || ts_node_has_error(py_root(&t))) {
            if (t.tree)
                py_tree_free(&t);
            errors++;
            free(src);
            continue;
        }
        py_top *tops;
        size_t n;
        if (py_top_split(src, len, &tops, &n) < 0) {
            declined++;
            printf("%s: declined\n", argv[a]);
        } else {
            TSNode root = py_root(&t);
            uint32_t k = ts_node_named_child_count(root);
            size_t j = 0, children = 0;
            int broke = 0;
            for (uint32_t i = 0; i < k && !broke; i++) {
                TSNode ch = ts_node_named_child(root, i);
                if (py_is(ch, "comment"))
                    continue;
                if (j >= n || tops[j].start != ts_node_start_byte(ch)) {
                    printf("%s:%u: tree-sitter starts a statement at byte %u, the scan %s\n",
                           argv[a], py_line(ch), ts_node_start_byte(ch),
                           j < n ? "elsewhere" : "at none");
                    bad++;
                    broke = 1;
                    continue;
                }
                children++;
                stmts++;
                ends += tops[j].code_end == ts_node_end_byte(ch);
                bad += body_like_tree(argv[a], src, len, tops, n, j, ch, &members);
                j++;
            }
            if (!broke && n != children) {
                printf("%s: the scan finds %zu statements, tree-sitter %zu\n", argv[a], n,
                       children);
                bad++;
            }
            free(tops);
        }
        py_tree_free(&t);
        free(src);
    }
    printf("pytop_cmp: %zu files, %zu with a syntax error (skipped), %zu declined, %zu "
           "statements, %zu ending where the node does, %zu class body statements, %zu "
           "disagreements\n",
           files, errors, declined, stmts, ends, members, bad);
    return bad ? 1 : 0;
}
