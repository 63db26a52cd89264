/*
 * fuzz_regen_finding - libFuzzer target for checks/regen_finding: a regeneration's
 * error message (the evaluator's, the code generator's, ruff's output) made a
 * finding, located in the config where the message allows.
 *
 * The config has one patch body (lines 3-8 of its 8-line file), taken a second
 * time with a name_map, and one positioned helper (registered at line 20). The
 * target aborts when an invariant breaks:
 *  - each message makes exactly one finding, titled "<what>: ...";
 *  - a finding with a line is at one the message names (its "path:LINE:COL: "
 *    prefix), at the helper's registration, or in the body's file (inside the
 *    body, or outside it where ruff's frame shows a line of the file's);
 *  - without the config, a line comes only from the message's prefix;
 *  - the same message gives the same finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/regen_finding.h"
#include "core/strbuf.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char text[] = "import torch\n"
                           "\n"
                           "@config.override_method(\"M.forward\")\n"
                           "def forward(\n"
                           "    self,\n"
                           "    x,\n"
                           ") -> tuple | GoneOutput:\n"
                           "    return GoneOutput(x)\n";
#define PATH "m/q/q_gpu_patch_gen_config.py"
#define FILE_ "/ws/" PATH

/* The line the message's own "path:LINE:COL: " prefix names, or 0. */
static unsigned prefixed(const char *msg)
{
    size_t n = strlen(PATH);
    if (strncmp(msg, PATH, n) || msg[n] != ':')
        return 0;
    return (unsigned)strtoul(msg + n + 1, NULL, 10);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *msg = malloc(size + 1);
    memcpy(msg, data, size);
    msg[size] = '\0';
    pg_object body = {.name = "forward",
                      .file = FILE_,
                      .text = text,
                      .text_len = sizeof(text) - 1,
                      .start_line = 3,
                      .end_line = 8};
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.file = FILE_;
    pg_patch p = {0};
    p.type = PG_METHOD_OVERRIDE;
    p.target = "M.forward";
    p.replacement = &body;
    VEC_PUSH(&cfg.patches, p);
    pg_name_map_entry map[] = {{"GoneOutput", "GoneOutputMoe"}, {"x", "y"}};
    p.target = "N.forward";
    p.name_map = map;
    p.name_map_len = 2;
    VEC_PUSH(&cfg.patches, p);
    pg_positioned_helper h = {"GoneOutput", &body, "after", PATH, 20, 1};
    VEC_PUSH(&cfg.positioned_helpers, h);
    findings fs = FINDINGS_INIT;
    regen_finding(&fs, "m.q", PATH, &cfg, "fails", msg);
    regen_finding(&fs, "m.q", PATH, &cfg, "fails", msg);
    regen_finding(&fs, "m.q", PATH, NULL, "fails", msg);
    CHECK(fs.len == 3);
    for (size_t i = 0; i < 3; i++)
        CHECK(!strncmp(fs.items[i]->title, "fails: ", 7));
    const finding *a = fs.items[0], *b = fs.items[1], *c = fs.items[2];
    CHECK(a->line == b->line && a->col == b->col && !strcmp(a->title, b->title));
    CHECK(!strcmp(a->title, c->title));
    unsigned pre = prefixed(msg);
    CHECK(!a->line || a->line == pre || a->line == 20 || a->line <= 8);
    CHECK(!c->line || c->line == pre);
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
    VEC_FREE(&cfg.positioned_helpers);
    free(msg);
    return 0;
}
