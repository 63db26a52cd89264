/* Renders Markdown (a file, or stdin) to HTML on stdout the way GitHub's or any
 * permissive renderer would: cmark with raw HTML kept (CMARK_OPT_UNSAFE). Used by
 * tests/e2e/report_hostile.sh to show that no string of a run.json becomes live
 * HTML in report.md or comment.md. */
#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/fs.h"
#include "core/strbuf.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: md_html FILE.md\n");
        return 2;
    }
    strbuf md = STRBUF_INIT;
    if (fs_read_file(&md, argv[1], 64u << 20) < 0) {
        fprintf(stderr, "md_html: cannot read %s\n", argv[1]);
        return 2;
    }
    char *html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_UNSAFE);
    if (!html)
        return 2;
    fputs(html, stdout);
    free(html);
    strbuf_free(&md);
    return 0;
}
