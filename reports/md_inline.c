/*
 * Inline Markdown for a finding's title: its `code spans` stay code spans (so
 * `LlamaMLP.fowrard` renders as code, not as literal backticks), and the text
 * between them is escaped only where CommonMark would read markup. An underscore
 * inside a word never opens emphasis, so a path such as
 * veomni/models/qwen3_5/x.py is written as it is, without stray backslashes.
 *
 * Also the one way every renderer writes data as code (md_code, md_fenced): a
 * config name, path or diff from run.json is text, whatever backticks it holds.
 */
#include <ctype.h>
#include <string.h>

#include "reports/render.h"

void md_code_n(strbuf *out, const char *s, size_t n)
{
    if (n == 0) { /* "``" is no span: it would pair with a later backtick */
        strbuf_adds(out, "` `");
        return;
    }
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    int pad = s[0] == '`' || s[n - 1] == '`';
    strbuf_addrep(out, "`", longest + 1);
    if (pad)
        strbuf_addc(out, ' ');
    for (size_t i = 0; i < n; i++)
        strbuf_addc(out, s[i] == '\n' || s[i] == '\r' ? ' ' : s[i]);
    if (pad)
        strbuf_addc(out, ' ');
    strbuf_addrep(out, "`", longest + 1);
}

void md_code(strbuf *out, const char *s)
{
    md_code_n(out, s ? s : "", s ? strlen(s) : 0);
}

void md_fenced(strbuf *out, const char *text, const char *info, const char *indent)
{
    size_t run = 0, longest = 0;
    for (const char *q = text; *q; q++) {
        run = *q == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    strbuf fence = STRBUF_INIT;
    strbuf_addrep(&fence, "`", longest >= 3 ? longest + 1 : 3);
    strbuf_addf(out, "%s%s%s\n", indent, fence.buf, info);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        strbuf_adds(out, indent);
        strbuf_add(out, p, n);
        strbuf_addc(out, '\n');
        p += n + (p[n] == '\n');
    }
    strbuf_addf(out, "%s%s\n", indent, fence.buf);
    strbuf_free(&fence);
}

static void text(strbuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int intraword = c == '_' && i > 0 && i + 1 < n && isalnum((unsigned char)s[i - 1]) &&
                        isalnum((unsigned char)s[i + 1]);
        if (intraword) {
            strbuf_addc(out, c);
            continue;
        }
        char one[2] = {c, 0};
        md_escape(out, one);
    }
}

void md_inline(strbuf *out, const char *s)
{
    if (!s)
        return;
    const char *p = s;
    while (*p) {
        const char *open = strchr(p, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        if (!close || close == open + 1) {
            text(out, p, open ? (size_t)(open - p) + 1 : strlen(p));
            p = open ? open + 1 : p + strlen(p);
            continue;
        }
        text(out, p, (size_t)(open - p));
        md_code_n(out, open + 1, (size_t)(close - open - 1));
        p = close + 1;
    }
}
