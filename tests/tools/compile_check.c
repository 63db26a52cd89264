/*
 * compile_check - what pgci's config evaluator says of a file's syntax, before it
 * evaluates anything: the tokenizer and parser weighing (config_syntax.c), the
 * nesting limits and the compiler's and symbol table's rules (config_compile.c), in
 * the order the evaluator runs them. For tests/oracle/compile.sh, which asks
 * CPython's compile() the same of the same files.
 *
 *   compile_check --files-from LIST   the files named in LIST, one a line
 *
 * Prints one line a file: "PATH<TAB>ok", or "PATH<TAB>STAGE<TAB>LINE:COL<TAB>MESSAGE"
 * (STAGE: syntax, nesting or compile, the check that refused; the message after
 * "syntax error: "), or "PATH<TAB>unreadable". Exits 0, or 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/config_internal.h"
#include "py/pysrc.h"

/* The message on one line. */
static void print_line(const char *s)
{
    for (; *s; s++)
        putchar(*s == '\n' || *s == '\t' ? ' ' : *s);
    putchar('\n');
}

static void one_file(const char *path)
{
    strbuf src = STRBUF_INIT;
    if (fs_read_file(&src, path, 0) < 0) { /* gone since it was listed */
        printf("%s\tunreadable\n", path);
        strbuf_free(&src);
        return;
    }
    py_tree t = {0};
    const char *stage = "parse";
    int r = py_parse(&t, src.buf, src.len, path);
    if (r == 0 && (r = ce_check_syntax(&t)) < 0)
        stage = "syntax";
    if (r == 0 && (r = pysrc_check_nesting(&t)) < 0)
        stage = "nesting";
    if (r == 0 && (r = ce_check_compile(&t)) < 0)
        stage = "compile";
    if (r == 0) {
        printf("%s\tok\n", path);
    } else {
        const char *msg = pgci_error_last();
        size_t n = strlen(path);
        unsigned line = 0, col = 0;
        int used = 0;
        if (!strncmp(msg, path, n) && msg[n] == ':' &&
            sscanf(msg + n, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0) {
            const char *why = msg + n + used;
            if (!strncmp(why, "syntax error: ", 14))
                why += 14;
            printf("%s\t%s\t%u:%u\t", path, stage, line, col);
            print_line(why);
        } else {
            printf("%s\t%s\t0:0\t", path, stage);
            print_line(msg);
        }
    }
    py_tree_free(&t);
    strbuf_free(&src);
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "--files-from")) {
        fprintf(stderr, "usage: compile_check --files-from LIST\n");
        return 2;
    }
    FILE *f = strcmp(argv[2], "-") ? fopen(argv[2], "r") : stdin;
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    char line[4096];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0])
            one_file(line);
    }
    if (f != stdin)
        fclose(f);
    return 0;
}
