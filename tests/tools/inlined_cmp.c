/*
 * inlined_cmp - one-use temporaries written in place (checks/inlined.c) for the
 * definitions of a real module, for tests/corpus/73-inlined.sh, whose oracle
 * folds the same definitions with CPython's ast.
 *
 *   inlined_cmp FILE < spans      each line of stdin "START END": the byte span
 *                                 of a function definition of FILE (decorators
 *                                 included)
 *
 * Prints one JSON object a line: {"start", "n" (folds), "text"}, read from the
 * module's tree (inlined_temporaries_at); exits 1 when the text read alone
 * (inlined_temporaries) says otherwise, 2 on a usage or read error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checks/inlined.h"
#include "core/error.h"
#include "core/fs.h"
#include "py/py.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: inlined_cmp FILE < spans\n");
        return 2;
    }
    strbuf src = STRBUF_INIT;
    py_tree t;
    if (fs_read_file(&src, argv[1], 0) < 0 || py_parse(&t, src.buf, src.len, argv[1]) < 0) {
        fprintf(stderr, "inlined_cmp: %s\n", pgci_error_last());
        return 2;
    }
    unsigned start, end;
    int rc = 0;
    while (scanf("%u %u", &start, &end) == 2) {
        strbuf at = STRBUF_INIT, alone = STRBUF_INIT;
        int n = inlined_temporaries_at(&at, &t, start, end);
        int m = end >= start && end <= src.len
                    ? inlined_temporaries(&alone, src.buf + start, end - start)
                    : -1;
        if (n != m || (n >= 0 && strcmp(at.buf ? at.buf : "", alone.buf ? alone.buf : ""))) {
            fprintf(stderr, "inlined_cmp: %s at %u: from the tree %d, alone %d\n", argv[1], start,
                    n, m);
            rc = 1;
        }
        json_t *o = json_pack("{s:I, s:i, s:s}", "start", (json_int_t)start, "n", n, "text",
                              n >= 0 && at.buf ? at.buf : "");
        char *line = json_dumps(o, JSON_COMPACT);
        puts(line);
        free(line);
        json_decref(o);
        strbuf_free(&at);
        strbuf_free(&alone);
    }
    py_tree_free(&t);
    strbuf_free(&src);
    return rc;
}
