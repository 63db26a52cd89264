/*
 * codegen_source.c - replacement-object source text, patchgen's way.
 *
 * patchgen gets a replacement's text from inspect.getsourcelines() (from the
 * first decorator to the end of the block) and then rewinds over the comment
 * block above it, because config files document *why* a patch exists there. The
 * evaluator gives us the same line range in pg_object; this file does the rest.
 */
#include "patchgen/codegen_source.h"

#include <stdlib.h>
#include <string.h>

#include "patchgen/codegen_text.h"

void cgsrc_object_source(strbuf *out, const pg_object *obj)
{
    if (!obj || !obj->text || obj->start_line == 0 || obj->end_line < obj->start_line)
        return;
    /* the file's lines as linecache holds them (universal newlines); only the
     * lines up to the end of the object are needed */
    strbuf text = STRBUF_INIT;
    size_t tlen = obj->text_len ? obj->text_len : strlen(obj->text);
    const char *tp = obj->text;
    if (memchr(tp, '\r', tlen)) {
        cgtext_universal_newlines(&text, tp, tlen);
        tp = text.buf;
        tlen = text.len;
    }
    size_t cut = 0;
    for (unsigned k = 0; k < obj->end_line && cut < tlen; k++) {
        const char *nl = memchr(tp + cut, '\n', tlen - cut);
        cut = nl ? (size_t)(nl - tp) + 1 : tlen;
    }
    cg_lines all = VEC_INIT;
    cgtext_readlines(&all, tp, cut);
    size_t idx = obj->start_line - 1;
    if (idx >= all.len)
        goto done;
    size_t end = obj->end_line < all.len ? obj->end_line : all.len;

    /* walk back over blank lines and column-0 comments */
    size_t actual = idx;
    while (actual > 0) {
        cg_span raw = all.items[actual - 1];
        if (raw.n && raw.p[raw.n - 1] == '\n')
            raw.n--;
        if (cgtext_is_blank(raw.p, raw.n) || (raw.n && raw.p[0] == '#')) {
            actual--;
            continue;
        }
        break;
    }
    size_t lo = actual, hi = idx;
    while (lo < hi && cgtext_is_blank(all.items[lo].p, all.items[lo].n))
        lo++;
    while (hi > lo && cgtext_is_blank(all.items[hi - 1].p, all.items[hi - 1].n))
        hi--;
    for (size_t i = lo; i < hi; i++)
        strbuf_add(out, all.items[i].p, all.items[i].n);
    for (size_t i = idx; i < end; i++)
        strbuf_add(out, all.items[i].p, all.items[i].n);
done:
    VEC_FREE(&all);
    strbuf_free(&text);
}

static const char *const patch_decorators[] = {
    "replace_class", "replace_function", "override_method",
    "modify_init",   "add_helper",       "add_helper_after",
};

static int is_word_byte(unsigned char c)
{
    /* non-ASCII: treated as a word character (identifiers, letters) */
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c >= 0x80;
}

/* re.match(r"@(?:config\.)?(?:replace_class|...)\b", stripped) */
int cgsrc_is_patch_decorator(const char *s, size_t n)
{
    if (n == 0 || s[0] != '@')
        return 0;
    s++, n--;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof(patch_decorators) / sizeof(patch_decorators[0]); i++) {
            size_t k = strlen(patch_decorators[i]);
            if (n >= k && memcmp(s, patch_decorators[i], k) == 0 &&
                (n == k || !is_word_byte((unsigned char)s[k])))
                return 1;
        }
        if (pass == 0 && n >= 7 && memcmp(s, "config.", 7) == 0) {
            s += 7, n -= 7;
            continue;
        }
        break;
    }
    return 0;
}

static long paren_delta(const char *s, size_t n)
{
    long d = 0;
    for (size_t i = 0; i < n; i++)
        d += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    return d;
}

void cgsrc_strip_patch_decorators(strbuf *out, const char *s, size_t n)
{
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, s, n);
    int in_dec = 0, first = 1;
    long depth = 0;
    for (size_t i = 0; i < lines.len; i++) {
        cg_span l = lines.items[i];
        cg_span st = cgtext_strip(l.p, l.n);
        if (!in_dec && cgsrc_is_patch_decorator(st.p, st.n)) {
            in_dec = 1;
            depth = paren_delta(st.p, st.n);
            if (depth <= 0)
                in_dec = 0;
            continue;
        }
        if (in_dec) {
            depth += paren_delta(st.p, st.n);
            if (depth <= 0)
                in_dec = 0;
            continue;
        }
        if (!first)
            strbuf_addc(out, '\n');
        strbuf_add(out, l.p, l.n);
        first = 0;
    }
    VEC_FREE(&lines);
}

void cgsrc_apply_name_map(strbuf *sb, const pg_name_map_entry *map, size_t len)
{
    if (!map || len == 0)
        return;
    /* a stable sort by descending code-point length (Python's sorted is stable) */
    size_t *order = pgci_malloc(len * sizeof(*order));
    size_t *klen = pgci_malloc(len * sizeof(*klen));
    for (size_t i = 0; i < len; i++) {
        order[i] = i;
        klen[i] = cgtext_cplen(map[i].from, strlen(map[i].from));
    }
    for (size_t i = 1; i < len; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && klen[order[j - 1]] < klen[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < len; i++)
        cgtext_replace_in(sb, map[order[i]].from, map[order[i]].to, -1);
    free(order);
    free(klen);
}

void cgsrc_helper_source(strbuf *out, const pg_object *obj)
{
    strbuf src = STRBUF_INIT, ded = STRBUF_INIT, clean = STRBUF_INIT;
    cgsrc_object_source(&src, obj);
    if (src.len) {
        cgtext_dedent(&ded, src.buf, src.len);
        cgsrc_strip_patch_decorators(&clean, ded.buf, ded.len);
        cg_span st = cgtext_strip(clean.buf, clean.len);
        /* rstrip only: keep leading whitespace */
        if (st.n)
            strbuf_add(out, clean.buf, (size_t)(st.p - clean.buf) + st.n);
    }
    strbuf_free(&src);
    strbuf_free(&ded);
    strbuf_free(&clean);
}
