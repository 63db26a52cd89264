/*
 * pystr_decode - the oracle's window onto pgci's string-literal decoder (built by
 * mk/index.mk, never installed). Reads NUL-separated records on stdin; each is one
 * Python expression made of string literals. For each it prints one line:
 *
 *     OK <flags> <hex of the decoded bytes>
 *     ERR <code> <message>
 *
 * With --text the record goes to pystr_decode_info() as literal source; with --node
 * it is parsed by tree-sitter and its string / concatenated_string node is decoded
 * through pystr_decode_node(), as the index and the config evaluator do.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/py.h"
#include "py/pystr.h"

static int decode_node_record(strbuf *out, const char *src, size_t len)
{
    py_tree t;
    int r = py_parse(&t, src, len, "<oracle>");
    if (r < 0)
        return r;
    r = py_check_syntax(&t);
    if (r == 0) {
        TSNode n = ts_node_named_child(py_root(&t), 0);
        if (py_is(n, "expression_statement"))
            n = ts_node_named_child(n, 0);
        while (py_is(n, "parenthesized_expression"))
            n = ts_node_named_child(n, 0);
        r = pystr_decode_node(out, &t, n);
    }
    py_tree_free(&t);
    return r;
}

static void one(const char *mode, const char *src, size_t len)
{
    strbuf out = STRBUF_INIT;
    unsigned flags = 0;
    int r = strcmp(mode, "--text") == 0 ? pystr_decode_info(&out, src, len, &flags)
                                        : decode_node_record(&out, src, len);
    if (r < 0) {
        const char *m = pgci_error_last();
        printf("ERR %d ", r);
        for (; *m; m++)
            putchar(*m == '\n' || *m == '\r' ? ' ' : *m);
        putchar('\n');
    } else {
        printf("OK %u ", flags);
        for (size_t i = 0; i < out.len; i++)
            printf("%02x", (unsigned char)out.buf[i]);
        putchar('\n');
    }
    strbuf_free(&out);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "--text";
    strbuf rec = STRBUF_INIT;
    int c;
    while ((c = getchar()) != EOF) {
        if (c == '\0') {
            one(mode, rec.buf, rec.len);
            strbuf_reset(&rec);
        } else {
            strbuf_addc(&rec, (char)c);
        }
    }
    if (rec.len)
        one(mode, rec.buf, rec.len);
    strbuf_free(&rec);
    return 0;
}
