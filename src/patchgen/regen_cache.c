/*
 * regen_cache.c - codegen results in the result cache.
 *
 * The key is everything codegen_generate() reads: every field of the evaluated
 * config (the replacement objects with the whole text of the files that define
 * them, so an edit to a sibling config that a config imports from changes the
 * key of exactly the configs that use its objects), the upstream text and the
 * version string, under pgci's build id. Evaluating a config is cheap and stays
 * outside the cache; it is what finds the sibling files.
 *
 * The payload: "codegen 2\n<raw length>\n<raw><targets defined>\n<note count>\n"
 * and per note "<kind> <patch> <line> <target length> <detail length>\n<target><detail>",
 * a length of -1 for a NULL string.
 */
#include "patchgen/regen_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A codegen key being hashed: the hash, and the file texts already in it. Every
 * object carries the whole text of the file that defines it, and a config's objects
 * mostly come from one file: each text is hashed once, later objects from the same
 * text add its number (unambiguous: a new text adds the next number, then itself). */
typedef struct key_builder {
    sha256_ctx c;
    VEC(const char *) texts;
} key_builder;

static void add_text(key_builder *k, const char *text, size_t len)
{
    size_t i = 0;
    while (i < k->texts.len && k->texts.items[i] != text)
        i++;
    rcache_key_addu(&k->c, i);
    if (i == k->texts.len) {
        VEC_PUSH(&k->texts, text);
        rcache_key_add(&k->c, text, len);
    }
}

static void add_object(key_builder *k, const pg_object *o)
{
    sha256_ctx *c = &k->c;
    rcache_key_addu(c, o != NULL);
    if (!o)
        return;
    rcache_key_adds(c, o->name);
    rcache_key_adds(c, o->module);
    rcache_key_adds(c, o->file);
    add_text(k, o->text, o->text_len);
    rcache_key_addu(c, o->start_line);
    rcache_key_addu(c, o->end_line);
    rcache_key_addu(c, (unsigned long long)o->is_class);
}

static void add_patch(key_builder *k, const pg_patch *p)
{
    sha256_ctx *c = &k->c;
    rcache_key_addu(c, (unsigned long long)p->type);
    rcache_key_adds(c, p->target);
    add_object(k, p->replacement);
    rcache_key_adds(c, p->replacement_module);
    rcache_key_adds(c, p->replacement_name);
    rcache_key_adds(c, p->source_module);
    rcache_key_adds(c, p->description);
    rcache_key_addu(c, p->name_map_len);
    for (size_t j = 0; j < p->name_map_len; j++) {
        rcache_key_adds(c, p->name_map[j].from);
        rcache_key_adds(c, p->name_map[j].to);
    }
}

static void add_lists(key_builder *k, const pg_config *cfg)
{
    sha256_ctx *c = &k->c;
    rcache_key_addu(c, cfg->additional_imports.len);
    for (size_t i = 0; i < cfg->additional_imports.len; i++) {
        const pg_import *im = &cfg->additional_imports.items[i];
        rcache_key_adds(c, im->module);
        rcache_key_addu(c, im->names != NULL);
        rcache_key_addu(c, im->names_len);
        for (size_t j = 0; im->names && j < im->names_len; j++)
            rcache_key_adds(c, im->names[j]);
        rcache_key_adds(c, im->alias);
        rcache_key_addu(c, (unsigned long long)im->is_from_import);
    }
    rcache_key_addu(c, cfg->post_import_blocks.len);
    for (size_t i = 0; i < cfg->post_import_blocks.len; i++)
        rcache_key_adds(c, cfg->post_import_blocks.items[i]);
    rcache_key_addu(c, cfg->helpers.len);
    for (size_t i = 0; i < cfg->helpers.len; i++)
        add_object(k, cfg->helpers.items[i]);
    rcache_key_addu(c, cfg->positioned_helpers.len);
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        rcache_key_adds(c, cfg->positioned_helpers.items[i].target);
        add_object(k, cfg->positioned_helpers.items[i].helper);
        rcache_key_adds(c, cfg->positioned_helpers.items[i].placement);
    }
    rcache_key_addu(c, cfg->drop_imported_names.len);
    for (size_t i = 0; i < cfg->drop_imported_names.len; i++)
        rcache_key_adds(c, cfg->drop_imported_names.items[i]);
    rcache_key_addu(c, cfg->exclude.len);
    for (size_t i = 0; i < cfg->exclude.len; i++)
        rcache_key_adds(c, cfg->exclude.items[i]);
}

void regen_cache_key(const pg_config *cfg, const char *upstream, size_t len, const char *version,
                     uint8_t key[SHA256_DIGEST_LEN])
{
    key_builder k = {.texts = VEC_INIT};
    sha256_ctx *c = &k.c;
    rcache_key_begin(c, "codegen");
    rcache_key_adds(c, cfg->var_name);
    rcache_key_adds(c, cfg->file);
    rcache_key_adds(c, cfg->module);
    rcache_key_adds(c, cfg->source_module);
    rcache_key_adds(c, cfg->target_file);
    rcache_key_adds(c, cfg->description);
    rcache_key_adds(c, cfg->transformers_version);
    rcache_key_addu(c, cfg->line);
    rcache_key_addu(c, cfg->col);
    rcache_key_addu(c, cfg->patches.len);
    for (size_t i = 0; i < cfg->patches.len; i++)
        add_patch(&k, &cfg->patches.items[i]);
    add_lists(&k, cfg);
    rcache_key_add(c, upstream, len);
    rcache_key_adds(c, version);
    sha256_final(c, key);
    VEC_FREE(&k.texts);
}

static void add_str(strbuf *lens, strbuf *data, const char *s)
{
    strbuf_addf(lens, " %ld", s ? (long)strlen(s) : -1L);
    if (s)
        strbuf_adds(data, s);
}

void regen_cache_encode(const cg_result *r, strbuf *out)
{
    strbuf_addf(out, "codegen 2\n%zu\n", r->output.len);
    strbuf_add(out, r->output.buf, r->output.len);
    strbuf_addf(out, "%zu\n", r->targets_defined);
    strbuf_addf(out, "%zu\n", r->notes.len);
    for (size_t i = 0; i < r->notes.len; i++) {
        const cg_note *n = &r->notes.items[i];
        strbuf lens = STRBUF_INIT, data = STRBUF_INIT;
        add_str(&lens, &data, n->target);
        add_str(&lens, &data, n->detail);
        strbuf_addf(out, "%d %ld %u%s\n", (int)n->kind, n->patch, n->line, lens.buf);
        strbuf_add(out, data.buf, data.len);
        strbuf_free(&lens);
        strbuf_free(&data);
    }
}

/* Reads "<decimal><end>" at *p; -1 when absent. */
static long long read_num(const char **p, const char *end, char stop)
{
    char buf[32];
    size_t n = 0;
    while (*p < end && **p != stop && n + 1 < sizeof(buf))
        buf[n++] = *(*p)++;
    if (*p >= end || **p != stop || n == 0)
        return -2;
    (*p)++;
    buf[n] = '\0';
    char *e;
    long long v = strtoll(buf, &e, 10);
    return *e ? -2 : v;
}

static const char *take_str(cg_result *r, const char **p, const char *end, long long n, int *bad)
{
    if (n == -1)
        return NULL;
    if (n < 0 || (long long)(end - *p) < n) {
        *bad = 1;
        return NULL;
    }
    const char *s = arena_strndup(&r->mem, *p, (size_t)n);
    *p += n;
    return s;
}

int regen_cache_decode(const char *p, size_t len, cg_result *r)
{
    const char *end = p + len, *magic = "codegen 2\n";
    if (len < strlen(magic) || memcmp(p, magic, strlen(magic)))
        return -1;
    p += strlen(magic);
    long long n = read_num(&p, end, '\n');
    if (n < 0 || (long long)(end - p) < n)
        return -1;
    strbuf_add(&r->output, p, (size_t)n);
    p += n;
    long long defined = read_num(&p, end, '\n');
    if (defined < 0)
        return -1;
    r->targets_defined = (size_t)defined;
    long long notes = read_num(&p, end, '\n');
    int bad = notes < 0;
    for (long long i = 0; !bad && i < notes; i++) {
        cg_note note = {0};
        long long kind = read_num(&p, end, ' '), patch = read_num(&p, end, ' ');
        long long line = read_num(&p, end, ' '), tl = read_num(&p, end, ' ');
        long long dl = read_num(&p, end, '\n');
        if (kind < 0 || patch < -1 || line < 0 || tl < -1 || dl < -1)
            return -1;
        note.kind = (cg_note_kind)kind;
        note.patch = (long)patch;
        note.line = (unsigned)line;
        note.target = take_str(r, &p, end, tl, &bad);
        note.detail = take_str(r, &p, end, dl, &bad);
        VEC_PUSH(&r->notes, note);
    }
    return bad || p != end ? -1 : 0;
}
