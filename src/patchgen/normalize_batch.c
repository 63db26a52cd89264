/*
 * normalize_batch.c - ruff once for many files, and the result cache around it.
 *
 * Why one process and not one per file: starting ruff (and letting it read its
 * configuration) costs more than normalising one generated module, and ruff
 * spreads the files of one invocation over every core itself. Why the result is
 * the same as the per-file way: ruff lints and formats each file on its own; each
 * file sits alone in its own directory under one temporary directory outside the
 * workspace, keeps its base name, and is named on the command line (so
 * `exclude` and .gitignore rules, which apply only to files ruff finds by walking
 * directories, do not apply, as they do not to patchgen's single file); the
 * working directory and the arguments are those of the per-file way, so the
 * configuration ruff discovers is the same. tests/corpus/56-ruff-batch.sh proves
 * it byte for byte on the real VeOmni tree.
 *
 * Errors are the per-file way's: the batched check runs in the per-file way's
 * report format, and ruff prints each file's diagnostics as that file's own run
 * does, so the items it leaves a violation in (`--fix` cannot fix an undefined
 * name; a syntax error) get their error - the command and ruff's output - from
 * their part of its report (normalize_report.c cuts it), word for word, and
 * without a second lint. When the report cannot be cut (a format it does not
 * read) every item is redone one at a time; when ruff also wrote on stderr, which
 * names no file, the refused items are. The others are formatted in one batch.
 * When a batched ruff fails in any other way (it cannot start, a hang), every
 * item is redone one at a time.
 *
 * A verdict-only batch runs the check alone, and no item is formatted. With
 * words (the survey's look at tag B, which reports each refusal), its refusals
 * are worded as above. Without (the survey asking whether configs failing at tag
 * B fail at tag A too), one lint settles the files whose fixes are certain and
 * the fix loop's JSON report the others (normalize_prelint.c), and no item is
 * redone. Its verdicts go to the cache under keys of their own, beside the full
 * entries, which it reads as well.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/par.h"
#include "patchgen/normalize_internal.h"

/* The key of one item: the settings digest, its file name, its bytes. */
static void item_key(const uint8_t settings[SHA256_DIGEST_LEN], const char *file_name,
                     const char *src, size_t len, uint8_t key[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    rcache_key_begin(&c, "ruff");
    rcache_key_add(&c, settings, SHA256_DIGEST_LEN);
    rcache_key_adds(&c, file_name && file_name[0] ? file_name : "x.py");
    rcache_key_add(&c, src, len);
    sha256_final(&c, key);
}

static int use_cache(const normalize_opts *o, uint8_t settings[SHA256_DIGEST_LEN])
{
    if (!o->cache || !o->ruff_version)
        return 0;
    if (normalize_settings_key(o, settings) < 0) {
        pgci_error_clear();
        return 0;
    }
    return 1;
}

/* A "ruff" cache entry holds one byte, then the rest: 'o' and the normalised
 * text, or 'r' and the message of ruff's verdict on a file it refuses (see
 * normalize_ruff_uncached: as much a function of the key as a result), so that a
 * warm run of a config whose output ruff refuses runs no ruff either. */
enum { ENTRY_OUTPUT = 'o', ENTRY_REFUSED = 'r' };

/* Reads the entry of key: 1 and the text appended to out (or *why set), 0 on a
 * miss. */
static int entry_get(const normalize_opts *o, const uint8_t key[SHA256_DIGEST_LEN], strbuf *out,
                     char **why)
{
    strbuf e = STRBUF_INIT;
    int hit = rcache_get(o->cache, "ruff", key, &e) && e.len > 0 &&
              (e.buf[0] == ENTRY_OUTPUT || e.buf[0] == ENTRY_REFUSED);
    *why = NULL;
    if (hit && e.buf[0] == ENTRY_OUTPUT)
        strbuf_add(out, e.buf + 1, e.len - 1);
    else if (hit)
        *why = pgci_strndup(e.buf + 1, e.len - 1);
    strbuf_free(&e);
    return hit;
}

static void entry_put(const normalize_opts *o, const uint8_t key[SHA256_DIGEST_LEN], char kind,
                      const char *data, size_t len)
{
    strbuf e = STRBUF_INIT;
    strbuf_addc(&e, kind);
    strbuf_add(&e, data, len);
    rcache_put(o->cache, "ruff", key, e.buf, e.len);
    strbuf_free(&e);
}

/* A verdict-only run's entries ("ruff-verdict", same keys): 'a' ruff accepts the
 * item, 'r' it refuses it. Read only by verdict-only runs, which read the full
 * entries above too. */
enum { VERDICT_ACCEPTED = 'a', VERDICT_REFUSED = 'r' };

/* The verdict-only error of an item ruff refuses (its words are not asked for). */
static void refuse(normalize_item *it)
{
    it->status = PGCI_EIO;
    it->refused = 1;
    free(it->error);
    it->error = pgci_asprintf("ruff check --fix leaves a violation in %s",
                              it->file_name && it->file_name[0] ? it->file_name : "x.py");
}

/* The key of an item's verdict entry, from its full entry's key (an entry's file
 * is named by its key alone: the two need different keys). */
static void verdict_key(const uint8_t key[SHA256_DIGEST_LEN], uint8_t vkey[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    rcache_key_begin(&c, "ruff-verdict");
    rcache_key_add(&c, key, SHA256_DIGEST_LEN);
    sha256_final(&c, vkey);
}

/* 1 and the item's verdict set when the cache holds it. A refusal there has no
 * words: a run that asks for them (o->words) reads it as a miss. */
static int verdict_get(const normalize_opts *o, const uint8_t key[SHA256_DIGEST_LEN],
                       normalize_item *it)
{
    uint8_t vkey[SHA256_DIGEST_LEN];
    verdict_key(key, vkey);
    strbuf e = STRBUF_INIT;
    int hit = rcache_get(o->cache, "ruff-verdict", vkey, &e) && e.len == 1 &&
              (e.buf[0] == VERDICT_ACCEPTED || e.buf[0] == VERDICT_REFUSED);
    if (hit && e.buf[0] == VERDICT_REFUSED && o->words)
        hit = 0;
    else if (hit && e.buf[0] == VERDICT_REFUSED)
        refuse(it);
    strbuf_free(&e);
    return hit;
}

int normalize_ruff(const normalize_opts *o, const char *src, size_t len, strbuf *out)
{
    uint8_t settings[SHA256_DIGEST_LEN], key[SHA256_DIGEST_LEN];
    int cached = use_cache(o, settings);
    char *why = NULL;
    if (cached) {
        item_key(settings, o->file_name, src, len, key);
        if (entry_get(o, key, out, &why)) {
            int r = why ? pgci_error_set(PGCI_EIO, "%s", why) : 0;
            free(why);
            return r;
        }
    }
    size_t start = out->len;
    int refused = 0;
    int r = normalize_ruff_uncached(o, src, len, out, &refused);
    if (r == 0 && cached)
        entry_put(o, key, ENTRY_OUTPUT, out->buf + start, out->len - start);
    if (r < 0 && refused && cached) {
        const char *m = pgci_error_last();
        entry_put(o, key, ENTRY_REFUSED, m, strlen(m));
    }
    return r;
}

static void item_fail(normalize_item *it, int code)
{
    it->status = code;
    free(it->error);
    it->error = pgci_strdup(pgci_error_last());
}

/* What the batched check says of each item (each[k]). */
enum {
    ITEM_ACCEPTED = 0, /* no violation left: on to the format */
    ITEM_ALONE = 1,    /* to be redone alone, the per-file way (its error is worded there) */
    ITEM_REFUSED = 2,  /* a violation left, the item's error worded from the batch's report */
};

/* Words the error of the item at files[k] from its part of the batch's report,
 * as its own run would: the per-file way's command and ruff's output, with its
 * directory dir/<k> read as "<tmp>". */
static void word_refusal(const normalize_opts *o, normalize_item *it, const char *file,
                         const char *dir, size_t k, const strbuf *part)
{
    strvec argv = STRVEC_INIT;
    normalize_argv(o, 0, file, &argv);
    strvec_push_owned(&argv, NULL);
    argv.len--;
    char *sub = pgci_asprintf("%s/%zu", dir, k);
    it->status =
        normalize_ruff_failed((const char *const *)argv.items, sub, 1, "", 0, part->buf, part->len);
    it->refused = 1;
    free(it->error);
    it->error = pgci_strdup(pgci_error_last());
    pgci_error_clear();
    free(sub);
    strvec_free(&argv);
}

/* Marks in each[] what the batched check's report says of each file: a file it
 * names is refused, worded from its part of the report when ruff wrote nothing on
 * stderr (which names no file), else left to be redone alone. Returns 0, or -1
 * when the report cannot be read (then every item is redone alone). */
static int mark_reported(const normalize_opts *o, normalize_item *items, const size_t *todo,
                         const strbuf *report, const strbuf *err, const strvec *files,
                         const char *dir, unsigned char *each)
{
    strbuf *parts = pgci_calloc(files->len ? files->len : 1, sizeof(*parts));
    for (size_t k = 0; k < files->len; k++)
        strbuf_init(&parts[k], 0);
    long n = normalize_report_split(report->buf, report->len, dir, files, parts);
    for (size_t k = 0; k < files->len && n > 0; k++) {
        if (!parts[k].len)
            continue;
        each[k] = err->len || (o->verdict_only && !o->words) ? ITEM_ALONE : ITEM_REFUSED;
        if (each[k] == ITEM_REFUSED)
            word_refusal(o, &items[todo[k]], files->items[k], dir, k, &parts[k]);
    }
    for (size_t k = 0; k < files->len; k++)
        strbuf_free(&parts[k]);
    free(parts);
    return n > 0 ? 0 : -1;
}

/* A verdict without words: one lint settles the files whose fixes are certain
 * (normalize_prelint.c), the fix loop the others; each[k] refused or accepted. */
static int verdicts(const normalize_opts *o, const normalize_item *items, const size_t *todo,
                    const strvec *files, unsigned char *each)
{
    size_t m = files->len, r = 0;
    unsigned char *sure = pgci_calloc(m ? m : 1, 1), *refused = pgci_calloc(m ? m : 1, 1);
    size_t *at = pgci_calloc(m ? m : 1, sizeof(*at));
    strvec rest = STRVEC_INIT;
    if (normalize_prelint(o, files, items, todo, sure) < 0)
        pgci_error_clear(); /* the fix loop decides them all */
    for (size_t k = 0; k < m; k++)
        if (!sure[k]) {
            at[r++] = k;
            strvec_push(&rest, files->items[k]);
        }
    int rc = normalize_fix_verdicts(o, &rest, refused);
    for (size_t i = 0; i < r && rc == 0; i++)
        each[at[i]] = refused[i] ? ITEM_REFUSED : ITEM_ACCEPTED;
    strvec_free(&rest);
    free(at);
    free(refused);
    free(sure);
    return rc;
}

/* Writes the items listed in todo[0..m) under dir/<k>/, runs both ruffs, reads
 * them back. An item ruff's check leaves a violation in is marked in each[]
 * (refused, or to be redone alone); the others go on to the format. Returns 0, or
 * negative when the batch as a whole failed. */
static int run_batch(const normalize_opts *o, normalize_item *items, const size_t *todo, size_t m,
                     const char *dir, unsigned char *each)
{
    strvec files = STRVEC_INIT, ok = STRVEC_INIT;
    strbuf report = STRBUF_INIT, err = STRBUF_INIT;
    int r = 0;
    for (size_t k = 0; k < m && r == 0; k++) {
        const normalize_item *it = &items[todo[k]];
        strbuf sub = STRBUF_INIT, f = STRBUF_INIT;
        strbuf_addf(&sub, "%s/%zu", dir, k);
        fs_join(&f, sub.buf, it->file_name && it->file_name[0] ? it->file_name : "x.py");
        r = fs_mkdirs(sub.buf);
        if (r == 0)
            r = fs_write_scratch(f.buf, it->src, it->len);
        strvec_push_owned(&files, strbuf_detach(&f, NULL));
        strbuf_free(&sub);
    }
    if (r == 0 && o->verdict_only && !o->words) {
        r = verdicts(o, items, todo, &files, each);
        goto out;
    }
    if (r == 0)
        r = normalize_run_many(o, 0, &files, &report, &err);
    if (r == 1)
        r = mark_reported(o, items, todo, &report, &err, &files, dir, each);
    if (o->verdict_only) /* the check's verdict is all that is asked */
        goto out;
    for (size_t k = 0; k < m && r == 0; k++)
        if (each[k] == ITEM_ACCEPTED)
            strvec_push(&ok, files.items[k]);
    if (r == 0)
        r = normalize_run_many(o, 1, &ok, NULL, NULL);
    for (size_t k = 0; k < m && r == 0; k++) {
        normalize_item *it = &items[todo[k]];
        strbuf_reset(&it->out);
        if (each[k] == ITEM_ACCEPTED)
            r = fs_read_file(&it->out, files.items[k], 0);
    }
out:
    strvec_free(&files);
    strvec_free(&ok);
    strbuf_free(&report);
    strbuf_free(&err);
    return r;
}

/* The misses marked in each[] one by one, the per-file way (its messages are
 * the errors): each item is a ruff process of its own, so o->jobs of them run at
 * once (a bump that breaks half the configs leaves half the items to redo). */
typedef struct each_job {
    const normalize_opts *o;
    normalize_item *items;
    const size_t *which; /* indexes into items */
} each_job;

static void run_one(void *arg, size_t worker, size_t k)
{
    (void)worker;
    each_job *j = arg;
    normalize_item *it = &j->items[j->which[k]];
    normalize_opts one = *j->o;
    one.file_name = it->file_name;
    one.cache = NULL;
    strbuf_reset(&it->out);
    int r = normalize_ruff_uncached(&one, it->src, it->len, &it->out, &it->refused);
    if (r < 0)
        item_fail(it, r);
    pgci_error_clear();
}

static void run_each(const normalize_opts *o, normalize_item *items, const size_t *todo, size_t m,
                     const unsigned char *each)
{
    size_t *which = pgci_calloc(m ? m : 1, sizeof(*which)), n = 0;
    for (size_t k = 0; k < m; k++)
        if (each[k] == ITEM_ALONE)
            which[n++] = todo[k];
    each_job j = {o, items, which};
    par_for(n, o->jobs > 1 ? o->jobs : 1, run_one, &j);
    free(which);
}

/* The verdict only: the items the batched check refused fail, unworded. */
static void refuse_each(normalize_item *items, const size_t *todo, size_t m,
                        const unsigned char *each)
{
    for (size_t k = 0; k < m; k++)
        if (each[k])
            refuse(&items[todo[k]]);
}

int normalize_ruff_batch(const normalize_opts *o, normalize_item *items, size_t n)
{
    uint8_t settings[SHA256_DIGEST_LEN];
    int cached = use_cache(o, settings);
    uint8_t(*keys)[SHA256_DIGEST_LEN] = pgci_calloc(n ? n : 1, SHA256_DIGEST_LEN);
    size_t *todo = pgci_calloc(n ? n : 1, sizeof(*todo));
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        items[i].status = 0;
        items[i].cached = 0;
        items[i].refused = 0;
        if (cached) {
            item_key(settings, items[i].file_name, items[i].src, items[i].len, keys[i]);
            strbuf_reset(&items[i].out);
            char *why = NULL;
            if (entry_get(o, keys[i], &items[i].out, &why)) {
                items[i].cached = 1;
                if (why) {
                    items[i].status = PGCI_EIO;
                    items[i].refused = 1;
                    free(items[i].error);
                    items[i].error = why;
                }
                continue;
            }
            if (o->verdict_only && verdict_get(o, keys[i], &items[i])) {
                items[i].cached = 1;
                continue;
            }
        }
        todo[m++] = i;
    }
    strbuf dir = STRBUF_INIT;
    unsigned char *each = pgci_calloc(m ? m : 1, 1);
    int batched = 0;
    if (m > 1 && fs_mkdtemp(&dir, "pgci-ruff") == 0) {
        batched = run_batch(o, items, todo, m, dir.buf, each) == 0;
        fs_remove_tree(dir.buf);
    }
    pgci_error_clear();
    if (!batched)
        memset(each, ITEM_ALONE, m ? m : 1);
    if (batched && o->verdict_only && !o->words)
        refuse_each(items, todo, m, each);
    else
        run_each(o, items, todo, m, each);
    free(each);
    int rc = 0;
    for (size_t k = 0; k < m && cached && o->verdict_only; k++) {
        const normalize_item *it = &items[todo[k]];
        if (it->status == 0 || it->refused) {
            char v = it->status == 0 ? VERDICT_ACCEPTED : VERDICT_REFUSED;
            uint8_t vkey[SHA256_DIGEST_LEN];
            verdict_key(keys[todo[k]], vkey);
            rcache_put(o->cache, "ruff-verdict", vkey, &v, 1);
        }
    }
    for (size_t k = 0; k < m && (!o->verdict_only || o->words); k++) {
        normalize_item *it = &items[todo[k]];
        if (it->status == 0 && cached && !o->verdict_only)
            entry_put(o, keys[todo[k]], ENTRY_OUTPUT, it->out.buf, it->out.len);
        if (it->status < 0 && it->refused && cached && it->error)
            entry_put(o, keys[todo[k]], ENTRY_REFUSED, it->error, strlen(it->error));
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        if (items[i].status < 0) {
            rc = items[i].status;
            pgci_error_set(rc, "%s", items[i].error ? items[i].error : "ruff failed");
        }
    strbuf_free(&dir);
    free(keys);
    free(todo);
    return rc;
}
