/*
 * fuzz_pytop - libFuzzer target for the module-level statement scan
 * (src/py/pytop.c: py_top_split) and the structural comparison by pieces it
 * serves (src/py/structural.c). Aborts when an invariant breaks:
 *  - on a text whose tree has no error, the scan either declines or finds the
 *    starts of the module node's children that are not comments, in order, each
 *    code_end at or before the next start; a class's body, split, is its block's
 *    children that are not comments;
 *  - split at the first "\n#--\n" into a regenerated and a checked-in text (the
 *    input and itself without one), the comparison by pieces, when it does not
 *    decline, says what the whole comparison says, to the lines and the message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "py/py.h"
#include "py/pytop.h"
#include "py/structural.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void body_like_tree(const char *s, size_t n, const py_top *tops, size_t k, size_t j,
                           TSNode ch)
{
    TSNode def = py_is(ch, "decorated_definition") ? py_field(ch, "definition") : ch;
    TSNode body = py_is(def, "class_definition") ? py_field(def, "body") : (TSNode){0};
    if (!tops[j].body)
        return;
    CHECK(!ts_node_is_null(body));
    py_top *m;
    size_t km;
    if (py_top_split_body(s, n, &tops[j], j + 1 < k ? tops[j + 1].start : n, &m, &km) < 0)
        return;
    size_t i = 0;
    for (uint32_t c = 0; c < ts_node_named_child_count(body); c++) {
        TSNode st = ts_node_named_child(body, c);
        if (py_is(st, "comment"))
            continue;
        CHECK(i < km && m[i].start == ts_node_start_byte(st));
        i++;
    }
    CHECK(i == km);
    free(m);
}

static void scan_like_tree(const char *s, size_t n)
{
    py_tree t;
    CHECK(py_parse(&t, s, n, "<fuzz>") == 0);
    py_top *tops;
    size_t k;
    if (!ts_node_has_error(py_root(&t)) && py_top_split(s, n, &tops, &k) == 0) {
        TSNode root = py_root(&t);
        size_t j = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(root); i++) {
            TSNode ch = ts_node_named_child(root, i);
            if (py_is(ch, "comment"))
                continue;
            CHECK(j < k && tops[j].start == ts_node_start_byte(ch));
            CHECK(tops[j].code_end >= tops[j].start &&
                  (j + 1 == k || tops[j].code_end <= tops[j + 1].start));
            body_like_tree(s, n, tops, k, j, ch);
            j++;
        }
        CHECK(j == k);
        free(tops);
    }
    py_tree_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    const char *s = (const char *)data, *b;
    size_t alen, blen;
    fuzz_two_texts(s, size, &alen, &b, &blen);
    scan_like_tree(s, alen);
    if (b != s)
        scan_like_tree(b, blen);
    structural_result whole, pieces;
    int rw = structural_compare_whole(s, alen, b, blen, &whole);
    pgci_error_clear();
    if (structural_compare_pieces(s, alen, b, blen, &pieces) == 0) {
        CHECK(rw == 0);
        CHECK(structural_result_same(&whole, &pieces));
        structural_result_free(&pieces);
    }
    if (rw == 0)
        structural_result_free(&whole);
    pgci_error_clear();
    return 0;
}
