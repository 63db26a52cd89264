/*
 * normalize.h - patchgen's normalisation step (its _normalize.ruff_fix_and_format):
 * `ruff check --fix --quiet [--isolated] --ignore E402,B007[,extra] FILE` then
 * `ruff format --quiet [--isolated] FILE`, on a temporary file outside the
 * workspace, with the workspace root as working directory so that its ruff
 * configuration applies exactly as it does when patchgen's drift check runs there.
 *
 * ruff is run through the process API with an argument vector (never a shell).
 * A ruff that cannot be started, exits non-zero (as `ruff check --fix` does when
 * violations remain) or runs past the timeout is an error naming the command, its
 * exit status and its output.
 */
#ifndef PGCI_PATCHGEN_NORMALIZE_H
#define PGCI_PATCHGEN_NORMALIZE_H

#include <stddef.h>

#include "cache/result_cache.h"
#include "core/strbuf.h"
#include "core/vec.h"

typedef struct normalize_opts {
    const char *ruff;           /* the ruff command (argv[0]); NULL: "ruff" on PATH */
    const strvec *extra_ignore; /* ruff_extra_ignore codes, or NULL */
    int isolated;               /* ruff_isolated: pass --isolated */
    const char *cwd;            /* where ruff runs: the workspace root; NULL: inherit */
    const char *file_name;      /* base name of the temporary file ("x.py" when NULL) */
    int timeout_ms;             /* per ruff invocation; 0: 120 s */
    /* The result cache and the ruff version its keys name ("ruff 0.13.2"); the
     * cache is used only when both are set. */
    rcache *cache;
    const char *ruff_version;
    /* A batch's items that ruff must see alone run on up to this many threads
     * (0 or 1: one after another). */
    int jobs;
    /* normalize_ruff_batch() for a verdict only (does ruff accept each file?):
     * ruff's check runs as always, its format does not, an accepted item's out
     * stays empty. Its verdicts go to the cache under keys of their own; the full
     * way's entries are read too. */
    int verdict_only;
    /* With verdict_only: a refused item's error is the full way's, word for word
     * (cut from the check's report, or from ruff run on that item alone when the
     * report cannot be cut), and is cached as the full way's refusal. Without: a
     * refusal reads "ruff check --fix leaves a violation in FILE". */
    int words;
} normalize_opts;

/* Normalises src[0..len) and appends the result to out (from the cache when it
 * holds it). */
int normalize_ruff(const normalize_opts *o, const char *src, size_t len, strbuf *out);

/* One source of a batch: its input, and its result or error (caller frees out
 * and error; zero the item first). */
typedef struct normalize_item {
    const char *file_name; /* base name of its temporary file; NULL: "x.py" */
    const char *src;
    size_t len;
    strbuf out;
    int status; /* 0, or the negative error code */
    char *error;
    int cached;  /* 1 when the result (or ruff's refusal) came from the cache */
    int refused; /* 1 when the failure is ruff's verdict on the file (normalize_internal.h) */
} normalize_item;

/* Normalises every item as normalize_ruff() would, byte for byte: cache hits
 * first; the rest with one `ruff check --fix` and one `ruff format` process over
 * a temporary tree holding them all (one directory per item, each file named on
 * the command line, the same settings and working directory). An item the
 * batched check leaves a violation in gets exactly normalize_ruff()'s message,
 * worded from its part of the check's report (normalize_report.c), or, when the
 * report cannot be cut that way, from ruff run on it alone; when a batched ruff
 * fails otherwise, every item is redone alone. Returns 0 when every item
 * succeeded, else the first failure's code. */
int normalize_ruff_batch(const normalize_opts *o, normalize_item *items, size_t n);

/* The digest of what normalize_ruff()'s output depends on besides the source and
 * the file name: ruff's version, the argument vectors, the ruff configuration
 * files found from the working directory upwards and the user's own, and the
 * top-level entries of the working directory and its src/ (ruff's first-party
 * import detection looks there). Fails when no ruff_version is set. */
int normalize_settings_key(const normalize_opts *o, uint8_t out[SHA256_DIGEST_LEN]);

/* The argument vectors normalize_ruff() runs, for messages and docs: `which` 0 is
 * the check, 1 the format (2 and 3: normalize_internal.h); `file` is the path
 * passed last. Free with strvec_free. */
void normalize_argv(const normalize_opts *o, int which, const char *file, strvec *argv);

/* The diagnostic a line of ruff's text report (line[0..end)) starts: the line
 * itself when it starts with a rule code ("F811 Redefinition ...", the full
 * format's header), or the text after a concise format's "PATH:ROW:COL: "; NULL
 * when the line starts none. */
const char *normalize_ruff_diagnostic(const char *line, const char *end);

/* The line ruff's output cut short ends with, in a refusal's message: "... (N
 * more lines of ruff output)", with NORMALIZE_CUT_NONE before the ")" when the
 * lines left out hold no diagnostic the kept ones do not, or NORMALIZE_CUT_LISTED
 * and then those diagnostics' first lines, one a line, each once; when they do
 * not all fit, NORMALIZE_CUT_UNLISTED ends the list. */
#define NORMALIZE_CUT_NONE ", no other diagnostic among them"
#define NORMALIZE_CUT_LISTED "; the other diagnostics there:"
#define NORMALIZE_CUT_UNLISTED "... (and more)"

/* "ruff 0.13.2" (the first line of `ruff --version`) into out. */
int normalize_ruff_version(const char *ruff, strbuf *out);

#endif
