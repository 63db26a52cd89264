/*
 * names_cmp - compares the targets check's names-only indexes with full indexes
 * (tests/tools/names_cmp.h) over many files in one process, for
 * tests/corpus/11-near-miss.sh.
 *
 *   names_cmp [--dense] --files-from LIST   the files named in LIST, one a line
 *
 * Prints one line of counts and exits 0 when every file agrees; prints the first
 * difference and exits 1 when one does not, 2 on bad usage or an unreadable file.
 */
#include <stdio.h>
#include <string.h>

#include "core/fs.h"
#include "tests/tools/names_cmp.h"

static int one_file(names_cmp *c, const char *path)
{
    strbuf src = STRBUF_INIT;
    if (fs_read_file(&src, path, 0) < 0) {
        fprintf(stderr, "names_cmp: %s\n", pgci_error_last());
        strbuf_free(&src);
        return 2;
    }
    int r = names_cmp_source(c, src.buf, src.len, path);
    strbuf_free(&src);
    return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    names_cmp c = {.why = STRBUF_INIT};
    int a = 1;
    if (a < argc && !strcmp(argv[a], "--dense")) {
        c.dense = 1;
        a++;
    }
    if (a + 2 != argc || strcmp(argv[a], "--files-from")) {
        fputs("usage: names_cmp [--dense] --files-from LIST\n", stderr);
        return 2;
    }
    strbuf list = STRBUF_INIT;
    if (fs_read_file(&list, argv[a + 1], 0) < 0) {
        fprintf(stderr, "names_cmp: %s\n", pgci_error_last());
        return 2;
    }
    int r = 0;
    char *p = list.buf, *line;
    while (r == 0 && (line = strsep(&p, "\n")))
        if (*line)
            r = one_file(&c, line);
    strbuf_free(&list);
    if (r == 1)
        fprintf(stderr, "names_cmp: %s\n", c.why.buf);
    else if (r == 0)
        printf("%zu files (%zu refused by the full index), %zu definitions, %zu targets, "
               "%zu with a suggestion: the same suggestions from names-only indexes\n",
               c.files, c.refused, c.defs, c.targets, c.suggestions);
    strbuf_free(&c.why);
    return r;
}
