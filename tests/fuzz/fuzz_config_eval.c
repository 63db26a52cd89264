/*
 * fuzz_config_eval - libFuzzer target for the static patch-config evaluator
 * (src/patchgen/config_eval*).
 *
 * The input is the source of a config, evaluated as if it were a file of the fixture
 * workspace fixtures/configs (so `from cfgfix.basic.toy_gpu_patch_gen_config import
 * ...` loads real siblings), in a fresh evaluator each time. The target aborts when
 * an invariant breaks:
 *  - a failure sets exactly one line of message;
 *  - a success gives a well-formed PatchConfig: a dotted source_module, a
 *    target_file, every patch a target and a description, every replacement or
 *    helper a def/class whose lines lie inside its file's text (and whose
 *    source, when the evaluator says it parses alone, does), no empty name_map
 *    key, no duplicate in drop_imported_names, and a JSON dump that renders.
 * Sanitizers (ASan, UBSan) catch the rest; the evaluator's own limits keep deep
 * nesting, huge literals and exploding lists bounded in time and memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "patchgen/codegen_method.h"
#include "patchgen/codegen_source.h"
#include "patchgen/config_dump.h"
#include "patchgen/config_eval.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static workspace ws;
static int have_ws = -1;

static size_t count_lines(const char *s, size_t n)
{
    size_t lines = 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n' && i + 1 < n)
            lines++;
    return lines;
}

static void check_object(const pg_object *o)
{
    CHECK(o && o->name && *o->name && o->module && o->file && o->text);
    CHECK(strlen(o->text) == o->text_len);
    CHECK(o->start_line >= 1 && o->start_line <= o->end_line);
    CHECK(o->end_line <= count_lines(o->text, o->text_len));
    if (o->parses_alone) { /* the code generator takes this without a parse */
        strbuf src = STRBUF_INIT;
        cgsrc_object_source(&src, o);
        CHECK(cgm_parses_with_function(src.buf ? src.buf : "", src.len));
        strbuf_free(&src);
    }
}

static void check_config(const pg_config *c)
{
    CHECK(c->source_module && *c->source_module && c->target_file && c->description);
    for (const char *p = c->source_module; *p; p++)
        CHECK(*p != '/' && *p != ' ' && (unsigned char)*p >= 0x20);
    for (size_t i = 0; i < c->patches.len; i++) {
        const pg_patch *p = &c->patches.items[i];
        CHECK(p->target && *p->target && p->description);
        CHECK(!strchr(p->target, '\n'));
        if (p->replacement)
            check_object(p->replacement);
        else
            CHECK(p->replacement_module && p->replacement_name);
        for (size_t j = 0; j < p->name_map_len; j++)
            CHECK(p->name_map[j].from && *p->name_map[j].from && p->name_map[j].to);
    }
    for (size_t i = 0; i < c->helpers.len; i++)
        check_object(c->helpers.items[i]);
    for (size_t i = 0; i < c->positioned_helpers.len; i++)
        check_object(c->positioned_helpers.items[i].helper);
    for (size_t i = 0; i < c->drop_imported_names.len; i++)
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(c->drop_imported_names.items[i], c->drop_imported_names.items[j]));
    strbuf sb = STRBUF_INIT;
    (void)config_dump_json(&sb, c, NULL); /* invalid UTF-8 in a value may refuse */
    strbuf_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (have_ws < 0) {
        ws.root = realpath("fixtures/configs", NULL);
        ws.search_root = "cfgfix";
        ws.package_prefix = "cfgfix";
        have_ws = ws.root != NULL;
    }
    config_eval *ev;
    CHECK(config_eval_new(&ev, have_ws ? &ws : NULL) == 0);
    const char *path = have_ws ? "cfgfix/fuzz/input_patch_gen_config.py" : "/fuzz/input.py";
    pg_config *c = NULL;
    pgci_error_clear();
    int r = config_eval_buffer(ev, path, (const char *)data, size, NULL, &c);
    if (r < 0) {
        const char *msg = pgci_error_last();
        CHECK(c == NULL && *msg && !strchr(msg, '\n'));
    } else {
        CHECK(c != NULL);
        config_eval_free(ev); /* the config must not depend on its evaluator */
        ev = NULL;
        check_config(c);
        pg_config_free(c);
    }
    config_eval_free(ev);
    return 0;
}
