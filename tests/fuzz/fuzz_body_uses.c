/*
 * Fuzzes the reader of patch bodies (checks/body_uses.c): what a body calls through
 * `self`, which free names it calls (through a local alias or with a `**kw` dict
 * literal), what a loop over a container of submodules does with each element,
 * and the free names it reads.
 *
 * Beyond memory safety (ASan, UBSan) and termination, it checks what the survey
 * relies on: every name it reports (a method, a called name, a container, an
 * attribute, a keyword, a free name) is a non-empty identifier that occurs in the
 * input; the element attributes come in pairs; a call unpacks only when its result
 * is used, and keeps only values it unpacks; a second reading gives the same uses.
 *
 * The same input is read as upstream definitions too (checks/returned.c): for each
 * function in it, what its last return returns and the steps binding each value;
 * each named value is an identifier of the input, with one written line per step,
 * and a reading compared with itself or with a second reading changes nothing; and
 * where its `**kwargs` goes (checks/kwargs_flow.c): the parameter and every keyword
 * an identifier of the input, each call that passes it on named, a second reading
 * the same; what it reads off its first parameter (each once, identifiers of the
 * input); and the stand-ins a body runs a class's method on.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/body_uses.h"
#include "checks/kwargs_flow.h"
#include "checks/returned.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int identifier_in(const char *name, const char *src, size_t len)
{
    size_t n = strlen(name);
    if (!n ||
        (!isalpha((unsigned char)name[0]) && name[0] != '_' && !((unsigned char)name[0] & 0x80)))
        return 0;
    return memmem(src, len, name, n) != NULL;
}

static void calls_ok(const body_call *calls, size_t n, const char *src, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        CHECK(calls[i].method && identifier_in(calls[i].method, src, len));
        CHECK(!calls[i].unpacked || calls[i].result_used);
        CHECK(calls[i].unpacked >= 64 || !(calls[i].kept >> calls[i].unpacked));
        CHECK(calls[i].via_dict == 0);
        for (size_t k = 0; k < calls[i].keywords.len; k++)
            CHECK(strlen(calls[i].keywords.items[k]) > 0);
    }
}

/* The uses as one text, for comparing two readings. */
static void render(strbuf *out, const body_uses *u)
{
    const body_call *lists[3] = {u->calls, u->name_calls, u->elem_calls};
    size_t lens[3] = {u->n_calls, u->n_name_calls, u->n_elem_calls};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < lens[l]; i++) {
            const body_call *c = &lists[l][i];
            strbuf_addf(out, "%d %s %zu %d %d %d %u", l, c->method, c->n_positional, c->star_args,
                        c->unpacked, c->result_used, c->line);
            for (size_t k = 0; k < c->keywords.len; k++)
                strbuf_addf(out, " %s=", c->keywords.items[k]);
            strbuf_addc(out, '\n');
        }
    for (size_t i = 0; i < u->n_stand_ins; i++)
        strbuf_addf(out, "s %s.%s %zu\n", u->stand_ins[i].cls, u->stand_ins[i].method,
                    u->stand_ins[i].attrs.len);
    for (size_t i = 0; i < u->elem_attrs.len; i++)
        strbuf_addf(out, "e %s\n", u->elem_attrs.items[i]);
    for (size_t i = 0; i < u->loads.len; i++)
        strbuf_addf(out, "l %s\n", u->loads.items[i]);
}

/* returned_read of every function in t, each checked and read twice. */
static void returns_ok(const py_tree *t, TSNode n, int depth)
{
    if (depth > 64)
        return;
    if (py_is(n, "function_definition")) {
        returned r, again;
        CHECK(returned_read(&r, t, ts_node_start_byte(n)) == 0);
        CHECK(returned_read(&again, t, ts_node_start_byte(n)) == 0);
        CHECK(r.n == again.n);
        for (size_t i = 0; i < r.n; i++) {
            const returned_value *v = &r.values[i];
            CHECK(!v->name || identifier_in(v->name, t->src, t->len));
            CHECK(v->steps.len == v->texts.len);
            CHECK(!v->name == !again.values[i].name);
            CHECK(!returned_value_changed(&r, &again, i));
            CHECK(!returned_value_changed(&r, &r, i));
            for (size_t k = 0; k < v->texts.len; k++)
                CHECK(!strchr(v->texts.items[k], '\n'));
        }
        returned_free(&again);
        returned_free(&r);
        kw_flow f, g;
        CHECK(kw_flow_read(&f, t, ts_node_start_byte(n)) == 0);
        CHECK(kw_flow_read(&g, t, ts_node_start_byte(n)) == 0);
        CHECK(!f.param || identifier_in(f.param, t->src, t->len));
        CHECK(f.param || (!f.n && !f.other_use));
        CHECK(f.n == g.n && f.other_use == g.other_use);
        for (size_t i = 0; i < f.n; i++) {
            CHECK(f.splats[i].callee && *f.splats[i].callee);
            CHECK(f.splats[i].keywords.len == g.splats[i].keywords.len);
            for (size_t k = 0; k < f.splats[i].keywords.len; k++)
                CHECK(identifier_in(f.splats[i].keywords.items[k], t->src, t->len));
        }
        kw_flow_free(&g);
        kw_flow_free(&f);
        strvec reads = STRVEC_INIT;
        CHECK(self_reads(&reads, t, ts_node_start_byte(n)) == 0);
        for (size_t i = 0; i < reads.len; i++) {
            CHECK(identifier_in(reads.items[i], t->src, t->len));
            CHECK(strvec_find(&reads, reads.items[i]) == (long)i); /* each once */
        }
        strvec_free(&reads);
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        returns_ok(t, ts_node_named_child(n, i), depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    body_uses u;
    if (body_uses_read(&u, src, size) < 0) {
        pgci_error_clear();
        return 0;
    }
    calls_ok(u.calls, u.n_calls, src, size);
    calls_ok(u.name_calls, u.n_name_calls, src, size);
    calls_ok(u.elem_calls, u.n_elem_calls, src, size);
    CHECK(u.elem_attrs.len % 2 == 0);
    for (size_t i = 0; i < u.n_stand_ins; i++) {
        CHECK(identifier_in(u.stand_ins[i].cls, src, size));
        CHECK(identifier_in(u.stand_ins[i].method, src, size));
        CHECK(u.stand_ins[i].ref == 0);
        for (size_t k = 0; k < u.stand_ins[i].attrs.len; k++)
            CHECK(identifier_in(u.stand_ins[i].attrs.items[k], src, size));
    }
    for (size_t i = 0; i < u.elem_attrs.len; i++)
        CHECK(identifier_in(u.elem_attrs.items[i], src, size));
    for (size_t i = 0; i < u.loads.len; i++)
        CHECK(identifier_in(u.loads.items[i], src, size));
    body_uses again;
    CHECK(body_uses_read(&again, src, size) == 0);
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    render(&x, &u);
    render(&y, &again);
    CHECK(x.len == y.len && (!x.len || !memcmp(x.buf, y.buf, x.len)));
    strbuf_free(&x);
    strbuf_free(&y);
    body_uses_free(&again);
    body_uses_free(&u);
    py_tree t;
    if (py_parse(&t, src, size, "<fuzz>") == 0) {
        returns_ok(&t, py_root(&t), 0);
        py_tree_free(&t);
    }
    pgci_error_clear();
    return 0;
}
