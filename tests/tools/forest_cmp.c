/*
 * forest_cmp - a regenerated file read as a forest against its upstream module,
 * and read whole, on real files: for every pair of paths on the command line
 * (the regenerated file, then the upstream module), the names check's
 * diagnostics (scope_analyze) must be the same both ways. Prints one line per
 * difference and the counts (files read as forests, declined, bytes parsed);
 * exits 1 on any difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "py/forest.h"
#include "py/py.h"
#include "py/scope.h"

static int same_diags(const char *path, const scope_diags *x, const scope_diags *y)
{
    if (x->len != y->len) {
        printf("%s: %zu diagnostics read whole, %zu as a forest\n", path, x->len, y->len);
        return 0;
    }
    for (size_t i = 0; i < x->len; i++) {
        const scope_diag *a = &x->items[i], *b = &y->items[i];
        if (strcmp(a->code, b->code) || a->line != b->line || a->col != b->col ||
            strcmp(a->name, b->name) || a->prev_line != b->prev_line ||
            a->parent_line != b->parent_line) {
            printf("%s: whole %s %u:%u %s (%u, %u), forest %s %u:%u %s (%u, %u)\n", path, a->code,
                   a->line, a->col, a->name, a->prev_line, a->parent_line, b->code, b->line, b->col,
                   b->name, b->prev_line, b->parent_line);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    size_t files = 0, forests = 0, declined = 0, bad = 0, bytes = 0, parsed = 0, diags = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        strbuf a = STRBUF_INIT, u = STRBUF_INIT;
        py_tree ta, tu;
        if (fs_read_file(&a, argv[i], 0) < 0 || fs_read_file(&u, argv[i + 1], 0) < 0 ||
            py_parse(&ta, a.buf, a.len, argv[i]) < 0) {
            fprintf(stderr, "forest_cmp: %s\n", pgci_error_last());
            return 2;
        }
        py_parse(&tu, u.buf, u.len, argv[i + 1]);
        files++;
        scope_opts o = SCOPE_OPTS_INIT;
        scope_diags whole = SCOPE_DIAGS_INIT, forest = SCOPE_DIAGS_INIT;
        int rw = scope_analyze(&ta, &o, &whole);
        py_forest f;
        int r = py_check_syntax(&tu) == 0 ? py_forest_build(&f, a.buf, a.len, argv[i], &tu, NULL, 0)
                                          : PGCI_EUNSUPPORTED;
        pgci_error_clear();
        if (r == 0) {
            forests++;
            bytes += a.len;
            parsed += f.parsed.len;
            int rf = scope_analyze_forest(&f, &o, &forest);
            if (rw != rf || !same_diags(argv[i], &whole, &forest))
                bad++;
            diags += whole.len;
            py_forest_free(&f);
        } else {
            declined++;
        }
        scope_diags_free(&whole);
        scope_diags_free(&forest);
        py_tree_free(&ta);
        py_tree_free(&tu);
        strbuf_free(&a);
        strbuf_free(&u);
    }
    printf("forest_cmp: %zu files, %zu read as forests (%.1f %% of their bytes parsed), %zu "
           "declined, %zu diagnostics, %zu different\n",
           files, forests, bytes ? 100.0 * (double)parsed / (double)bytes : 0.0, declined, diags,
           bad);
    return bad ? 1 : 0;
}
