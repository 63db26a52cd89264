/*
 * The survey note. Sections come from run.json's `changes` (or from grouping its
 * findings when an older or merged document has none); a change's findings are
 * those whose data.change is its id.
 *
 * Word budget: what a reader sees unfolded is the change titles, the configs and
 * how each is hit, the action, and for errors a short "what changed" (an old and
 * new signature, the evidence of a rename); every finding with its detail (ruff's
 * output, an upstream body diff) is folded in <details>.
 */
#include "reports/survey_note.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/changes.h"
#include "core/hashmap.h"
#include "core/vec.h"
#include "reports/render.h"

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void note_text(strbuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n')
            strbuf_addc(out, ' ');
        else if (c == '<')
            strbuf_adds(out, "&lt;");
        else if (c == '>')
            strbuf_adds(out, "&gt;");
        else if (c == '&')
            strbuf_adds(out, "&amp;");
        else {
            if (strchr("*_[]\\|#`", c))
                strbuf_addc(out, '\\');
            strbuf_addc(out, c);
        }
    }
}

/* Each `span` is written with md_code (its fence longer than any backtick run it
 * holds, so what it holds stays code); an unbalanced backtick opens a span to the
 * end rather than eat the rest; an empty pair is two literal backticks. */
void survey_note_inline(strbuf *out, const char *s)
{
    while (s && *s) {
        const char *open = strchr(s, '`');
        note_text(out, s, open ? (size_t)(open - s) : strlen(s));
        if (!open)
            return;
        const char *close = strchr(open + 1, '`');
        if (close == open + 1) {
            strbuf_adds(out, "\\`\\`");
            s = close + 1;
            continue;
        }
        size_t n = close ? (size_t)(close - open - 1) : strlen(open + 1);
        if (n)
            md_code_n(out, open + 1, n);
        s = close ? close + 1 : open + 1 + n;
    }
}

/* "veomni.models.transformers.qwen3_5.qwen3_5_gpu_patch_gen_config" -> "qwen3_5_gpu" */
static void short_config(strbuf *out, const char *module)
{
    const char *last = strrchr(module, '.');
    const char *s = last ? last + 1 : module;
    size_t n = strlen(s);
    static const char suffix[] = "_patch_gen_config";
    if (n > sizeof(suffix) - 1 && !strcmp(s + n - (sizeof(suffix) - 1), suffix))
        n -= sizeof(suffix) - 1;
    md_code_n(out, s, n);
}

static void fenced(strbuf *out, const char *text, const char *lang)
{
    md_fenced(out, text, lang, "");
}

static int is_diff(const char *d)
{
    return !strncmp(d, "--- ", 4) || strstr(d, "\n@@ ") != NULL;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* ---- one change ------------------------------------------------------------------ */

static const char *finding_how(json_t *f)
{
    const char *kind = str(json_object_get(f, "data"), "kind");
    const char *sev = str(f, "severity");
    if (!strcmp(str(f, "check"), "regen") ||
        json_is_true(json_object_get(json_object_get(f, "data"), "fails_regen")))
        return "fails to regenerate";
    if (!strcmp(kind, "missing-target") || !strcmp(kind, "vanished") ||
        !strcmp(kind, "unreachable") || !strcmp(kind, "auto-built"))
        return "silently dropped or bypassed";
    if (!strcmp(sev, "error"))
        return "breaks at run time";
    if (!strcmp(sev, "warning"))
        return "runs against a changed contract";
    return "note";
}

static int in_change(json_t *f, const char *id)
{
    return !strcmp(str(json_object_get(f, "data"), "change"), id);
}

/* "fails to regenerate: `a`, `b`; breaks at run time: `c`", at most max names
 * in all (0: no limit). */
static void hits(strbuf *sb, json_t *fs, const char *id, size_t max)
{
    static const char *const order[] = {"fails to regenerate", "silently dropped or bypassed",
                                        "breaks at run time", "runs against a changed contract",
                                        "note"};
    strvec seen = STRVEC_INIT;
    size_t shown = 0, total = 0, groups = 0;
    for (size_t o = 0; o < 5; o++) {
        size_t i, before = sb->len;
        json_t *f;
        int any = 0;
        json_array_foreach(fs, i, f)
        {
            const char *cfg = str(f, "config");
            if (!in_change(f, id) || strcmp(finding_how(f), order[o]) || !*cfg ||
                strvec_find(&seen, cfg) >= 0)
                continue;
            strvec_push(&seen, cfg);
            total++;
            if (max && shown >= max)
                continue;
            strbuf_adds(sb, any ? ", " : (groups ? "; " : ""));
            if (!any)
                strbuf_addf(sb, "%s in ", order[o]);
            short_config(sb, cfg);
            any = 1;
            shown++;
        }
        if (any)
            groups++;
        else
            strbuf_setlen(sb, before);
    }
    if (total > shown)
        strbuf_addf(sb, " and %zu more", total - shown);
    strvec_free(&seen);
}

/* For an error: the first finding's short "what changed" (an old and a new
 * signature, a rename's evidence, candidates), unfolded. */
/* How the calls of a changed callee break, each distinct way once (at most three):
 * "- `self.layers[i]()`: `attention_mask=` now goes into its `**kwargs` ...". */
static void why_it_breaks(strbuf *sb, json_t *fs, const char *id)
{
    strvec seen = STRVEC_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        json_t *d = json_object_get(f, "data");
        if (!in_change(f, id) || strcmp(str(f, "severity"), "error") || !*str(d, "because"))
            continue;
        char *line = pgci_asprintf("`%s`: %s", str(d, "call"), str(d, "because"));
        if (strvec_find(&seen, line) < 0 && seen.len < 3)
            strvec_push(&seen, line);
        free(line);
    }
    if (seen.len) {
        strbuf_adds(sb, "Why it breaks:\n\n");
        for (size_t k = 0; k < seen.len; k++) {
            strbuf_adds(sb, "- ");
            survey_note_inline(sb, seen.items[k]);
            strbuf_addc(sb, '\n');
        }
        strbuf_addc(sb, '\n');
    }
    strvec_free(&seen);
}

/* When the change's findings name different successors of a name upstream dropped
 * (checks/written_instead.h: what upstream's code writes in its place, which
 * differs by the method that used it), each method with its own; 0 when they name
 * one or none. */
static int successors_by_use(strbuf *sb, json_t *fs, const char *id)
{
    strvec pairs = STRVEC_INIT, names = STRVEC_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        json_t *d = json_object_get(f, "data");
        const char *w = str(d, "written_instead"), *by = str(d, "used_by");
        if (!in_change(f, id) || !*w || !*by)
            continue;
        char *pair = pgci_asprintf("`%s`: `%s`", by, w);
        if (strvec_find(&pairs, pair) < 0)
            strvec_push(&pairs, pair);
        free(pair);
        if (strvec_find(&names, w) < 0)
            strvec_push(&names, w);
    }
    int shown = names.len > 1;
    if (shown) {
        strbuf text = STRBUF_INIT;
        for (size_t k = 0; k < pairs.len; k++)
            strbuf_addf(&text, "%s\n", pairs.items[k]);
        strbuf_adds(sb, "What upstream writes in its place, by the method that uses it:\n\n");
        fenced(sb, text.buf, "");
        strbuf_addc(sb, '\n');
        strbuf_free(&text);
    }
    strvec_free(&pairs);
    strvec_free(&names);
    return shown;
}

static void what_changed(strbuf *sb, json_t *fs, const char *id, const char *ta, const char *tb)
{
    size_t i;
    json_t *f;
    if (successors_by_use(sb, fs, id))
        return;
    json_array_foreach(fs, i, f)
    {
        if (!in_change(f, id) || !strcmp(str(f, "check"), "regen"))
            continue;
        json_t *d = json_object_get(f, "data");
        if (*str(d, "old_signature") && *str(d, "new_signature")) {
            strbuf s = STRBUF_INIT;
            strbuf_addf(&s, "%s: %s\n%s: %s\n", ta, str(d, "old_signature"), tb,
                        str(d, "new_signature"));
            strbuf_adds(sb, "What changed:\n\n");
            fenced(sb, s.buf, "python");
            strbuf_addc(sb, '\n');
            strbuf_free(&s);
            why_it_breaks(sb, fs, id);
            return;
        }
        const char *det = str(f, "detail");
        if (*det && !is_diff(det) && count_lines(det) <= 4) {
            strbuf_adds(sb, "What changed:\n\n");
            fenced(sb, det, "");
            strbuf_addc(sb, '\n');
            return;
        }
    }
}

/* The detail every finding of the change has, when they all have the same one
 * (upstream's text of one base method, inherited by each config's classes); NULL
 * when there are fewer than two or any differs. */
static const char *common_detail(json_t *fs, const char *id)
{
    const char *common = NULL;
    size_t i, k = 0;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        if (!in_change(f, id))
            continue;
        const char *det = str(f, "detail");
        if (!*det || (common && strcmp(common, det)))
            return NULL;
        common = det;
        k++;
    }
    return k > 1 ? common : NULL;
}

/* Whether det, but for its last line break, is a part of the text above. */
static int shown_above(const char *above, const char *det)
{
    size_t n = strlen(det);
    while (n && det[n - 1] == '\n')
        n--;
    return n && memmem(above, strlen(above), det, n) != NULL;
}

/* Appends the fenced block of a detail, each line indented as a list item's. */
static void item_block(strbuf *sb, const char *det)
{
    strbuf block = STRBUF_INIT;
    fenced(&block, det, is_diff(det) ? "diff" : "");
    strbuf_adds(sb, "\n");
    for (const char *p = block.buf; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        strbuf_adds(sb, "  ");
        strbuf_add(sb, p, len);
        p += len;
    }
    strbuf_adds(sb, "\n");
    strbuf_free(&block);
}

/* The findings of a change that say one thing under several configs: one bullet
 * naming each config with its place, its detail once. A workspace file every
 * config imports (one place, 29 configs), or a GPU config and its NPU sibling
 * overriding the same upstream method (two places, one upstream diff). */
typedef struct same_finding {
    json_t *first;
    VEC(json_t *) members; /* the findings, in the run's order */
} same_finding;

typedef struct same_findings {
    same_finding *items;
    size_t len, cap;
} same_findings;

static void same_findings_build(same_findings *out, json_t *fs, const char *id)
{
    hashmap at = HASHMAP_INIT; /* key -> index + 1 */
    strbuf k = STRBUF_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        if (!in_change(f, id))
            continue;
        strbuf_reset(&k);
        strbuf_addf(&k, "%s\x1f%s\x1f%s\x1f%s", str(f, "severity"), str(f, "check"),
                    str(f, "title"), str(f, "detail"));
        size_t n = (size_t)(uintptr_t)hashmap_get(&at, k.buf);
        if (!n) {
            same_finding g = {f, VEC_INIT};
            VEC_PUSH(out, g);
            n = out->len;
            hashmap_put(&at, k.buf, (void *)(uintptr_t)n);
        }
        VEC_PUSH(&out->items[n - 1].members, f);
    }
    strbuf_free(&k);
    hashmap_free(&at);
}

static void same_findings_free(same_findings *g)
{
    for (size_t i = 0; i < g->len; i++)
        VEC_FREE(&g->items[i].members);
    VEC_FREE(g);
}

/* "path:line", "path", or "" (malloc'ed). */
static char *where_of(json_t *f)
{
    long line = (long)json_integer_value(json_object_get(f, "line"));
    if (!*str(f, "path"))
        return pgci_strdup("");
    return line ? pgci_asprintf("%s:%ld", str(f, "path"), line) : pgci_strdup(str(f, "path"));
}

/* "`a`, `b` (`p:41`); `c` (`q:7`)": the configs of each place, the places in the
 * order their first finding has in the run. */
static void who_and_where(strbuf *sb, const same_finding *g)
{
    strvec wheres = STRVEC_INIT;
    for (size_t m = 0; m < g->members.len; m++) {
        char *w = where_of(g->members.items[m]);
        if (strvec_find(&wheres, w) < 0)
            strvec_push(&wheres, w);
        free(w);
    }
    for (size_t w = 0; w < wheres.len; w++) {
        strvec cfgs = STRVEC_INIT;
        for (size_t m = 0; m < g->members.len; m++) {
            json_t *f = g->members.items[m];
            char *fw = where_of(f);
            const char *cfg = *str(f, "config") ? str(f, "config") : "-";
            if (!strcmp(fw, wheres.items[w]) && strvec_find(&cfgs, cfg) < 0)
                strvec_push(&cfgs, cfg);
            free(fw);
        }
        strbuf_adds(sb, w ? "; " : "");
        for (size_t c = 0; c < cfgs.len; c++) {
            strbuf_adds(sb, c ? ", " : "");
            short_config(sb, cfgs.items[c]);
        }
        if (*wheres.items[w]) {
            strbuf_adds(sb, " (");
            md_code(sb, wheres.items[w]);
            strbuf_adds(sb, ")");
        }
        strvec_free(&cfgs);
    }
    strvec_free(&wheres);
}

/* Every finding of the change with its detail, folded; a detail they all share
 * once, before them, or not at all when `above` (what the section shows already)
 * holds it; findings equal but for their config and place one bullet. */
static void finding_list(strbuf *sb, json_t *fs, const char *id, size_t n, const char *above)
{
    strbuf_addf(sb, "<details><summary>%zu %s</summary>\n\n", n, n == 1 ? "finding" : "findings");
    const char *common = common_detail(fs, id);
    if (common && above && shown_above(above, common)) {
        /* nothing: the section's "What changed" is every finding's detail */
    } else if (common) {
        strbuf_adds(sb, "The same for each:\n\n");
        fenced(sb, common, is_diff(common) ? "diff" : "");
        strbuf_adds(sb, "\n");
    }
    same_findings gs = {NULL, 0, 0};
    same_findings_build(&gs, fs, id);
    for (size_t i = 0; i < gs.len; i++) {
        json_t *f = gs.items[i].first;
        strbuf_addf(sb, "- **%s** ", str(f, "severity"));
        who_and_where(sb, &gs.items[i]);
        strbuf_adds(sb, ": ");
        survey_note_inline(sb, str(f, "title"));
        strbuf_addc(sb, '\n');
        const char *det = str(f, "detail");
        if (*det && !common)
            item_block(sb, det);
    }
    same_findings_free(&gs);
    strbuf_adds(sb, "\n</details>\n\n");
}

/* text without its <details> blocks (nested ones within them), malloc'ed. */
static char *without_details(const char *text)
{
    strbuf out = STRBUF_INIT;
    int depth = 0;
    for (const char *p = text; *p;) {
        if (!strncmp(p, "<details>", 9)) {
            depth++;
            p += 9;
        } else if (!strncmp(p, "</details>", 10)) {
            depth -= depth > 0;
            p += 10;
            while (*p == '\n')
                p++;
        } else {
            if (!depth)
                strbuf_addc(&out, *p);
            p++;
        }
    }
    return strbuf_detach(&out, NULL);
}

static void md_doc_add_section(md_doc *m, const char *id, const char *title, strbuf *text, int keep)
{
    if (m->len == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->items = pgci_realloc(m->items, m->cap * sizeof(*m->items));
    }
    md_section *s = &m->items[m->len++];
    s->id = pgci_strdup(id);
    s->title = pgci_strdup(title);
    s->text = strbuf_detach(text, NULL);
    s->keep = keep;
    s->brief = without_details(s->text);
}

/* ---- sections ---------------------------------------------------------------------- */

static const struct {
    const char *how, *heading, *intro;
    int full; /* 1: a section per change; 0: one bullet per change */
} groups[] = {
    {"fails-to-regenerate", "What fails to regenerate",
     "Configs that no longer regenerate against the new pin, by the upstream change that "
     "explains it.",
     1},
    {"silently-dropped", "What is silently dropped or bypassed",
     "Patches that stop applying without an error: their target is gone, or upstream no longer "
     "builds the patched class.",
     1},
    {"breaks-at-run-time", "What breaks at run time",
     "The generated code regenerates but fails when it runs: a name, method or attribute the "
     "patch bodies use is gone.",
     1},
    {"contract-changed", "Contract changes under the patches",
     "Upstream moved under a patch that still applies: read the folded signatures or diff of "
     "each and port what applies into the override.",
     0},
    {"deprecation", "Deprecations due by the new pin",
     "Upstream code the patches override or call that announces its removal by the new pin: "
     "move the patches off it.",
     0},
    {"note", "Notes", NULL, 0},
};

static void full_section(strbuf *sb, json_t *fs, json_t *c, const char *ta, const char *tb)
{
    const char *id = str(c, "id");
    strbuf_adds(sb, "### ");
    survey_note_inline(sb, str(c, "title"));
    size_t nc = json_array_size(json_object_get(c, "configs"));
    strbuf_addf(sb, "\n\nHits %zu %s: ", nc, nc == 1 ? "config" : "configs");
    hits(sb, fs, id, 0);
    strbuf_adds(sb, ".\n\n");
    size_t at = sb->len;
    if (!strcmp(str(c, "severity"), "error"))
        what_changed(sb, fs, id, ta, tb);
    char *above = pgci_strndup(sb->buf + at, sb->len - at);
    if (*str(c, "action")) {
        strbuf_adds(sb, "**Action:** ");
        survey_note_inline(sb, str(c, "action"));
        strbuf_adds(sb, ".\n\n");
    }
    finding_list(sb, fs, id, (size_t)json_integer_value(json_object_get(c, "findings")), above);
    free(above);
}

/* Whose action the section's intro already says. */
static int generic_action(json_t *c)
{
    static const char *const kinds[] = {
        "signature", "body", "auto-docstring", "deprecation", "callee-signature", "callee-return"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(str(c, "kind"), kinds[i]))
            return 1;
    return 0;
}

static void bullet(strbuf *sb, json_t *fs, json_t *c)
{
    const char *id = str(c, "id");
    size_t nc = json_array_size(json_object_get(c, "configs"));
    strbuf_adds(sb, "- ");
    survey_note_inline(sb, str(c, "title"));
    strbuf_addf(sb, " — %zu %s", nc, nc == 1 ? "config" : "configs");
    if (nc <= 3) {
        strbuf_adds(sb, ": ");
        size_t i;
        json_t *cfg;
        json_array_foreach(json_object_get(c, "configs"), i, cfg)
        {
            strbuf_adds(sb, i ? ", " : "");
            short_config(sb, json_string_value(cfg));
        }
    }
    if (*str(c, "action") && !generic_action(c)) {
        strbuf_adds(sb, ". Action: ");
        survey_note_inline(sb, str(c, "action"));
    }
    strbuf_adds(sb, ".\n\n  ");
    strbuf block = STRBUF_INIT;
    finding_list(&block, fs, id, (size_t)json_integer_value(json_object_get(c, "findings")), NULL);
    for (const char *p = block.buf; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        if (len > 1)
            strbuf_adds(sb, p == block.buf ? "" : "  ");
        strbuf_add(sb, p, len);
        p += len;
    }
    strbuf_free(&block);
}

void survey_note_sections(md_doc *m, const run_doc *d)
{
    json_t *changes = json_object_get(d->root, "changes");
    json_t *fs = run_doc_findings(d), *own = NULL;
    if (!json_is_array(changes)) { /* an older or merged document: group here */
        own = json_deep_copy(fs);
        changes = changes_group(own);
        fs = own;
    }
    const char *ta = run_doc_input(d, "from") ? run_doc_input(d, "from") : "A";
    const char *tb = run_doc_input(d, "to") ? run_doc_input(d, "to") : "B";
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        strbuf sb = STRBUF_INIT;
        size_t i, n = 0;
        json_t *c;
        json_array_foreach(changes, i, c) n += !strcmp(str(c, "how"), groups[g].how);
        if (!n)
            continue;
        strbuf_addf(&sb, "## %s (%zu %s)\n\n", groups[g].heading, n, n == 1 ? "change" : "changes");
        if (groups[g].intro)
            strbuf_addf(&sb, "%s\n\n", groups[g].intro);
        int folded = !strcmp(groups[g].how, "note");
        if (folded)
            strbuf_addf(&sb, "<details><summary>%zu notes</summary>\n\n", n);
        json_array_foreach(changes, i, c)
        {
            if (strcmp(str(c, "how"), groups[g].how))
                continue;
            if (groups[g].full)
                full_section(&sb, fs, c, ta, tb);
            else
                bullet(&sb, fs, c);
        }
        if (folded)
            strbuf_adds(&sb, "</details>\n\n");
        char *sid = pgci_asprintf("changes-%s", groups[g].how);
        md_doc_add_section(m, sid, groups[g].heading, &sb, groups[g].full);
        free(sid);
        strbuf_free(&sb);
    }
    if (own) {
        json_decref(changes);
        json_decref(own);
    }
}
