/*
 * fuzz_index - libFuzzer target for the module index builder and its JSON form.
 *
 * The input is parsed as Python; a tree with a syntax error must be refused with
 * PGCI_EINVALID and a message. Otherwise the index is built twice and aborts when
 * an invariant breaks:
 *  - both builds agree (same definitions, same fingerprints: no hidden state); the
 *    second computes its fingerprints on demand, after it let its tree go for
 *    every other input, and they must be the first's;
 *  - every definition is found by index_find under its qualified name (the first
 *    of that name), its lines are ordered (start_line <= line <= end_line) and
 *    within the input, its __init__ attributes are sorted and unique;
 *  - the JSON form loads back with jansson and carries the schema version;
 *  - a names-only index agrees with the full one (tests/tools/names_cmp.h: the same
 *    definitions, members and near-miss suggestions).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "index/index.h"
#include "tests/tools/names_cmp.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_def(const index_module *m, const index_def *d, const index_def *twin,
                      unsigned lines)
{
    CHECK(!strcmp(d->qualname, twin->qualname));
    CHECK(index_def_fingerprint(d) == index_def_fingerprint(twin));
    const index_def *found = index_find(m, d->qualname);
    CHECK(found != NULL && !strcmp(found->qualname, d->qualname));
    CHECK(d->start_line <= d->line && d->line <= d->end_line && d->end_line <= lines);
    CHECK(d->start_byte < d->end_byte);
    for (size_t i = 1; i < d->n_init_attrs; i++)
        CHECK(strcmp(d->init_attrs[i - 1], d->init_attrs[i]) < 0);
    for (size_t i = 0; i < d->n_params; i++)
        CHECK(d->params[i].name && d->params[i].name[0]);
    CHECK(d->n_members == twin->n_members);
    for (size_t i = 0; i < d->n_members; i++) {
        CHECK(d->members[i]->parent == d);
        check_def(m, d->members[i], twin->members[i], lines);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    py_tree t;
    if (py_parse(&t, (const char *)data, size, "fuzz.py") < 0)
        return 0;
    TSNode err;
    int has_error = py_first_error(&t, &err);
    index_module *a = NULL, *b = NULL;
    pgci_error_clear();
    int r = index_module_build(&a, &t, "fuzz");
    if (has_error) {
        CHECK(r == PGCI_EINVALID && a == NULL && pgci_error_last()[0]);
        py_tree_free(&t);
        return 0;
    }
    CHECK(r == 0 && a != NULL);
    CHECK(index_module_from_parse_set_lazy(&b, NULL, (const char *)data, size, "fuzz.py", "fuzz") ==
          0);
    if (size % 2)
        index_module_drop_tree(b);
    unsigned lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n' || (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n'));
    CHECK(a->n_defs == b->n_defs && a->n_imports == b->n_imports);
    for (size_t i = 0; i < a->n_defs; i++)
        check_def(a, a->defs[i], b->defs[i], lines);
    names_cmp nc = {.why = STRBUF_INIT};
    if (names_cmp_source(&nc, (const char *)data, size, "fuzz.py") < 0) {
        fprintf(stderr, "fuzz_index: names-only index differs: %s\n", nc.why.buf);
        abort();
    }
    strbuf_free(&nc.why);

    strbuf js = STRBUF_INIT;
    CHECK(index_module_to_json(&js, a, 0) == 0);
    json_error_t jerr;
    json_t *j = json_loads(js.buf, 0, &jerr);
    CHECK(j != NULL);
    CHECK(json_integer_value(json_object_get(j, "schema_version")) == INDEX_SCHEMA_VERSION);
    CHECK(json_array_size(json_object_get(j, "definitions")) == a->n_defs);
    json_decref(j);
    strbuf_free(&js);
    index_module_free(a);
    index_module_free(b);
    py_tree_free(&t);
    return 0;
}
