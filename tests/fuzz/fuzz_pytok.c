/*
 * fuzz_pytok - libFuzzer target for CPython's tokenizer refusals read without a
 * parser (src/py/pytok.c) and the syntax and compile checks of a config that use
 * them (src/patchgen/config_syntax.c, config_compile.c).
 *
 * The input is read as a config is (pysrc_prepare: line breaks, encoding). Aborts
 * when an invariant breaks:
 *  - the scan is deterministic: a second scan finds the same refusals and lines;
 *  - a refusal names a line of the text (1 .. lines + 1) and a column >= 1, with a
 *    one-line, non-empty reason;
 *  - the logical lines' offsets increase, each inside the text, each on a byte
 *    that is neither blank nor a comment's '#';
 *  - where tree-sitter finds no error and the scan no refusal, each logical line
 *    starts where a token of the tree starts (two tokenizers agree);
 *  - ce_check_syntax and ce_check_compile succeed, or fail with one line that
 *    names the file at a line of the text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "patchgen/config_internal.h"
#include "py/py.h"
#include "py/pysrc.h"
#include "py/pytok.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned count_lines(const char *s, size_t n)
{
    unsigned k = 1;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

static void check_error(const pytok_error *e, unsigned lines)
{
    if (!e->line)
        return;
    CHECK(e->line <= lines + 1);
    CHECK(e->col >= 1);
    CHECK(e->why[0] && !strchr(e->why, '\n'));
}

static int same_error(const pytok_error *a, const pytok_error *b)
{
    return a->line == b->line && a->col == b->col && a->parser == b->parser && a->late == b->late &&
           !strcmp(a->why, b->why);
}

/* A check's refusal: one line, "<fuzz>:LINE:COL: ...", LINE a line of the text. */
static void check_refusal(unsigned lines)
{
    const char *m = pgci_error_last();
    CHECK(*m && !strchr(m, '\n'));
    CHECK(!strncmp(m, "<fuzz>:", 7));
    char *end;
    unsigned long line = strtoul(m + 7, &end, 10);
    CHECK(end > m + 7 && *end == ':');
    CHECK(line >= 1 && line <= lines + 1);
}

/* Whether a leaf token of t starts at byte at. */
static int token_starts_at(const py_tree *t, uint32_t at)
{
    TSNode n = ts_node_descendant_for_byte_range(py_root(t), at, at + 1);
    while (!ts_node_is_null(n) && ts_node_start_byte(n) == at && ts_node_child_count(n) > 0)
        n = ts_node_child(n, 0);
    return !ts_node_is_null(n) && ts_node_start_byte(n) == at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    strbuf text = STRBUF_INIT;
    if (pysrc_prepare(&text, (const char *)data, size, "<fuzz>") < 0) {
        strbuf_free(&text);
        pgci_error_clear();
        return 0;
    }
    const char *s = text.buf ? text.buf : "";
    size_t n = text.len;
    unsigned lines = count_lines(s, n);

    pytok_result a, b;
    int ra = pytok_scan(s, n, &a), rb = pytok_scan(s, n, &b);
    CHECK(ra == rb);
    CHECK(same_error(&a.error, &b.error) && same_error(&a.parser_indent, &b.parser_indent) &&
          same_error(&a.unclosed, &b.unclosed));
    CHECK(a.lines.len == b.lines.len &&
          (!a.lines.len || !memcmp(a.lines.items, b.lines.items, a.lines.len * sizeof(size_t))));
    check_error(&a.error, lines);
    check_error(&a.parser_indent, lines);
    check_error(&a.unclosed, lines);
    CHECK(ra == (a.error.line || a.parser_indent.line || a.unclosed.line));
    for (size_t k = 0; k < a.lines.len; k++) {
        size_t at = a.lines.items[k];
        CHECK(at < n);
        CHECK(!k || at > a.lines.items[k - 1]);
        CHECK(!strchr(" \t\f\n#", s[at]));
    }

    py_tree t;
    if (py_parse(&t, s, n, "<fuzz>") == 0) {
        if (!ts_node_has_error(py_root(&t)) && !ra)
            for (size_t k = 0; k < a.lines.len; k++)
                CHECK(token_starts_at(&t, (uint32_t)a.lines.items[k]));
        if (ce_check_syntax(&t) < 0)
            check_refusal(lines);
        else if (!ts_node_has_error(py_root(&t)) && ce_check_compile(&t) < 0)
            check_refusal(lines);
        py_tree_free(&t);
    }
    pgci_error_clear();
    pytok_result_free(&a);
    pytok_result_free(&b);
    strbuf_free(&text);
    return 0;
}
