/*
 * difftool - drives src/patchgen/difflib from the oracle test, the corpus test and
 * the bench, so thousands of cases cost one process instead of thousands.
 *
 *   difftool unified A B FROMFILE TOFILE [N]   unified_diff(A, B) to stdout
 *   difftool patchgen A B FROMFILE TOFILE      the patchgen .diff form to stdout
 *   difftool batch IN OUT [TIMES]              every case of IN, results to OUT;
 *                                              TIMES gets the seconds spent diffing
 *
 * Batch format, written by tests/oracle/difflib_oracle.py. IN holds records
 *   "<n> <len a> <len b> <len fromfile> <len tofile>\n" a b fromfile tofile
 * and OUT gets, per record in order,
 *   "<len unified> <len patchgen>\n" unified patchgen
 * where unified uses the record's n and patchgen always n = 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "patchgen/difflib.h"

static int usage(void)
{
    fputs("usage: difftool unified A B FROMFILE TOFILE [N]\n"
          "       difftool patchgen A B FROMFILE TOFILE\n"
          "       difftool batch IN OUT [TIMES]\n",
          stderr);
    return 2;
}

static int read_two(strbuf *a, strbuf *b, const char *pa, const char *pb)
{
    if (fs_read_file(a, pa, 0) < 0 || fs_read_file(b, pb, 0) < 0) {
        fprintf(stderr, "difftool: %s\n", pgci_error_last());
        return -1;
    }
    return 0;
}

static int write_all(FILE *f, const char *s, size_t n)
{
    return fwrite(s, 1, n, f) == n ? 0 : -1;
}

/* Parses one record header at in[*pos]; fills the five numbers. */
static int parse_header(const strbuf *in, size_t *pos, long *n, size_t len[4])
{
    const char *nl = memchr(in->buf + *pos, '\n', in->len - *pos);
    if (!nl)
        return -1;
    char *end;
    *n = strtol(in->buf + *pos, &end, 10);
    for (int k = 0; k < 4; k++)
        len[k] = strtoul(end, &end, 10);
    if (end != nl)
        return -1;
    *pos = (size_t)(nl - in->buf) + 1;
    size_t total = len[0] + len[1] + len[2] + len[3];
    return total <= in->len - *pos ? 0 : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_batch(const char *inpath, const char *outpath, const char *timespath)
{
    double spent = 0;
    strbuf in = STRBUF_INIT, u = STRBUF_INIT, p = STRBUF_INIT;
    if (fs_read_file(&in, inpath, 0) < 0) {
        fprintf(stderr, "difftool: %s\n", pgci_error_last());
        return 2;
    }
    FILE *out = fopen(outpath, "wb");
    if (!out) {
        perror(outpath);
        strbuf_free(&in);
        return 2;
    }
    size_t pos = 0, cases = 0;
    int rc = 0;
    while (pos < in.len) {
        long n;
        size_t len[4];
        if (parse_header(&in, &pos, &n, len) < 0) {
            fprintf(stderr, "difftool: %s: bad record %zu at byte %zu\n", inpath, cases, pos);
            rc = 2;
            break;
        }
        const char *a = in.buf + pos, *b = a + len[0];
        char *from = pgci_strndup(b + len[1], len[2]);
        char *to = pgci_strndup(b + len[1] + len[2], len[3]);
        pos += len[0] + len[1] + len[2] + len[3];
        strbuf_reset(&u);
        strbuf_reset(&p);
        double t0 = now();
        difflib_unified_diff(&u, a, len[0], b, len[1], from, to, (int)n);
        if (n == 3) {
            difflib_patchgen_form(&p, u.buf, u.len);
        } else {
            difflib_patchgen_diff(&p, a, len[0], b, len[1], from, to);
        }
        spent += now() - t0;
        free(from);
        free(to);
        fprintf(out, "%zu %zu\n", u.len, p.len);
        if (write_all(out, u.buf, u.len) < 0 || write_all(out, p.buf, p.len) < 0) {
            rc = 2;
            break;
        }
        cases++;
    }
    if (fclose(out) != 0)
        rc = 2;
    strbuf_free(&in);
    strbuf_free(&u);
    strbuf_free(&p);
    if (!rc && timespath) {
        FILE *t = fopen(timespath, "w");
        if (!t || fprintf(t, "%.6f\n", spent) < 0 || fclose(t) != 0)
            rc = 2;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "batch") == 0)
        return run_batch(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
    int unified = argc >= 6 && argc <= 7 && strcmp(argv[1], "unified") == 0;
    int patchgen = argc == 6 && strcmp(argv[1], "patchgen") == 0;
    if (!unified && !patchgen)
        return usage();
    strbuf a = STRBUF_INIT, b = STRBUF_INIT, out = STRBUF_INIT;
    if (read_two(&a, &b, argv[2], argv[3]) < 0)
        return 2;
    if (unified)
        difflib_unified_diff(&out, a.buf, a.len, b.buf, b.len, argv[4], argv[5],
                             argc == 7 ? atoi(argv[6]) : 3);
    else
        difflib_patchgen_diff(&out, a.buf, a.len, b.buf, b.len, argv[4], argv[5]);
    int rc = write_all(stdout, out.buf, out.len) < 0 || fflush(stdout) != 0 ? 2 : 0;
    strbuf_free(&a);
    strbuf_free(&b);
    strbuf_free(&out);
    return rc;
}
