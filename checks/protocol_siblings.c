/*
 * protocol-siblings: a GPU config and its NPU sibling stay a pair.
 *
 *   - siblings.pair: an NPU config (<model>_npu_patch_gen_config.py) has its GPU
 *     sibling next to it; when both are checked, both regenerate and both have
 *     their generated file checked in (one half of a pair left behind is how an
 *     NPU file silently stays on the old pin).
 *   - siblings.copied-body: an NPU config that reuses a GPU patch imports it
 *     (`from ..._gpu_patch_gen_config import fn`) rather than copying its body;
 *     a copy identical to a GPU patch (up to its name and decorators) drifts
 *     apart the first time only one of them is edited. A warning: the copy is
 *     correct today.
 *   - siblings.name-map (off by default): a body reused through name_map that
 *     builds an output dataclass lacking fields the renamed dataclass has (the
 *     name-map-fields check of `pgci survey`, cross-referenced into the PR gate
 *     against the upstream at the pin). Off by default because `pgci survey`
 *     already reports it; turn it on in [tool.pgci.protocol.rules].
 */
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/contracts.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "index/index.h"

/* The definition from its `def`/`class` line on, decorators dropped and the
 * defined name replaced by "_": two bodies that differ only there are copies. */
static char *body_of(const pg_object *o)
{
    if (!o || !o->text)
        return NULL;
    const char *p = o->text;
    unsigned line = 1;
    for (const char *nl; line < o->start_line && (nl = strchr(p, '\n')); line++)
        p = nl + 1;
    if (line < o->start_line)
        p += strlen(p); /* the text ends before the definition's line */
    strbuf out = STRBUF_INIT;
    int started = 0;
    while (*p && line <= o->end_line) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        if (!started &&
            (!strncmp(q, "def ", 4) || !strncmp(q, "async def ", 10) || !strncmp(q, "class ", 6))) {
            started = 1;
            const char *hit = strstr(q, o->name);
            if (hit && hit < p + n) {
                strbuf_add(&out, p, (size_t)(hit - p));
                strbuf_adds(&out, "_");
                const char *rest = hit + strlen(o->name);
                strbuf_add(&out, rest, (size_t)(p + n - rest));
            } else {
                strbuf_add(&out, p, n);
            }
            strbuf_addc(&out, '\n');
        } else if (started) {
            strbuf_add(&out, p, n);
            strbuf_addc(&out, '\n');
        }
        p = e ? e + 1 : p + n;
        line++;
    }
    if (!started) {
        strbuf_free(&out);
        return NULL;
    }
    return strbuf_detach(&out, NULL);
}

static char *sibling_path(const char *npu_path, const proto_settings *s)
{
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "%s_patch_gen_config.py", s->npu_suffix);
    size_t n = strlen(npu_path) - want.len;
    strbuf out = STRBUF_INIT;
    strbuf_add(&out, npu_path, n);
    strbuf_addf(&out, "%s_patch_gen_config.py", s->gpu_suffix);
    strbuf_free(&want);
    return strbuf_detach(&out, NULL);
}

static const check_input *find_input(const check_ctx *ctx, const char *path)
{
    for (size_t i = 0; i < ctx->n_inputs; i++)
        if (ctx->inputs[i].config_path && !strcmp(ctx->inputs[i].config_path, path))
            return &ctx->inputs[i];
    /* a GPU sibling outside the checked subset (pgci check CONFIG, --shard) */
    for (size_t i = 0; i < ctx->n_context; i++)
        if (ctx->context[i].config_path && !strcmp(ctx->context[i].config_path, path))
            return &ctx->context[i];
    return NULL;
}

static const char *short_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static void check_copies(const proto_settings *s, const check_input *npu, const check_input *gpu,
                         findings *out)
{
    const pg_config *nc = npu->cfg, *gc = gpu->cfg;
    if (!nc || !gc)
        return;
    /* the GPU side's bodies, each made once when first compared (NULL: not yet) */
    char **bodies = pgci_calloc(gc->patches.len ? gc->patches.len : 1, sizeof(*bodies));
    static char none[1]; /* body_of() gave nothing */
    for (size_t i = 0; i < nc->patches.len; i++) {
        const pg_object *o = nc->patches.items[i].replacement;
        if (!o || !o->file || strcmp(o->file, nc->file))
            continue; /* imported: what the protocol asks for */
        int dup = 0;
        for (size_t k = 0; k < i; k++)
            dup |= nc->patches.items[k].replacement == o;
        if (dup)
            continue;
        char *mine = body_of(o);
        for (size_t k = 0; mine && k < gc->patches.len; k++) {
            const pg_object *g = gc->patches.items[k].replacement;
            if (!g || !g->file || strcmp(g->file, gc->file))
                continue;
            if (!bodies[k]) {
                bodies[k] = body_of(g);
                if (!bodies[k])
                    bodies[k] = none;
            }
            if (bodies[k] != none && !strcmp(mine, bodies[k])) {
                proto_add(out, s, "siblings.copied-body", npu->module, npu->config_path,
                          o->start_line,
                          "%s copies the GPU patch %s (%s:%u) verbatim: import it from the GPU "
                          "config instead",
                          o->name, g->name, short_name(gpu->config_path), g->start_line);
                break;
            }
        }
        free(mine);
    }
    for (size_t k = 0; k < gc->patches.len; k++)
        if (bodies[k] != none)
            free(bodies[k]);
    free(bodies);
}

/* name-map-fields over one config against the upstream at the pin, each of its
 * findings restated as a protocol finding */
static void check_name_map(const check_ctx *ctx, const proto_settings *s, const check_input *in,
                           findings *out)
{
    if (!in->cfg || !in->upstream)
        return;
    int any = 0;
    for (size_t i = 0; i < in->cfg->patches.len; i++)
        any |= in->cfg->patches.items[i].name_map_len > 0;
    index_module *idx;
    if (!any || index_module_from_source(&idx, in->upstream, in->upstream_len, in->source_module,
                                         in->source_module) < 0) {
        pgci_error_clear();
        return;
    }
    survey_pair sp;
    memset(&sp, 0, sizeof(sp));
    sp.config = in->module;
    sp.config_path = in->config_path;
    sp.cfg = in->cfg;
    sp.a = sp.b = idx;
    sp.tag_a = sp.tag_b = ctx->tag;
    sp.src_b = in->upstream;
    sp.src_b_len = in->upstream_len;
    findings tmp = FINDINGS_INIT;
    check_name_map_fields(&tmp, &sp);
    for (size_t i = 0; i < tmp.len; i++)
        proto_add(out, s, "siblings.name-map", in->module, tmp.items[i]->path, tmp.items[i]->line,
                  "%s (name-map-fields)", tmp.items[i]->title);
    findings_free(&tmp);
    index_module_free(idx);
}

/* A finding that a generated file is absent: writing the file (check --fix) is
 * what answers it, so it must not stop --fix from writing it (gate_fix.h). */
static void not_checked_in(finding *f)
{
    if (f && f->data)
        json_object_set_new(f->data, "kind", json_string("not-checked-in"));
}

static int run_siblings(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    (void)why;
    for (size_t i = 0; proto_sev(s, "siblings.name-map") != PROTO_OFF && i < ctx->n_inputs; i++)
        check_name_map(ctx, s, &ctx->inputs[i], out);
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        const check_input *npu = &ctx->inputs[i];
        if (!proto_is_npu(npu->config_path, s))
            continue;
        char *gpath = sibling_path(npu->config_path, s);
        const check_input *gpu = find_input(ctx, gpath);
        if (!proto_exists(ctx->ws, gpath)) {
            proto_add(out, s, "siblings.pair", npu->module, npu->config_path, 0,
                      "NPU config without its GPU sibling %s", short_name(gpath));
        } else if (gpu) {
            const check_input *pair[2] = {gpu, npu};
            for (int k = 0; k < 2; k++) {
                const check_input *a = pair[k], *b = pair[1 - k];
                /* a construct pgci's evaluator refuses is pgci's limit, not the pair's
                 * (the regen finding names it) */
                if (a->error && !b->error && !strstr(a->error, "unsupported construct"))
                    proto_add(out, s, "siblings.pair", a->module, a->config_path, 0,
                              "%s regenerates but its %s sibling does not: %s",
                              short_name(b->config_path), k ? "NPU" : "GPU", a->error);
                else if (!a->error && !b->error && !a->checked_py && b->checked_py)
                    not_checked_in(proto_add(out, s, "siblings.pair", a->module, a->py_path, 0,
                                             "%s is not checked in while its sibling's %s is",
                                             a->py_path ? a->py_path : "the generated file",
                                             b->py_path));
            }
            check_copies(s, npu, gpu, out);
        }
        free(gpath);
    }
    return CHECK_RAN;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_siblings);
}

const check_def check_protocol_siblings = {
    .id = "protocol-siblings",
    .summary =
        "GPU/NPU config pairs regenerate together; NPU configs import GPU patches, not copies",
    .run = run};
