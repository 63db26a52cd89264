/*
 * tmp_pkg.h - a unit test's workspace on disk: a fresh directory under /tmp whose
 * package `pkg/` holds the files the test puts there (a workspace module the survey
 * reads: veomni's model outputs, a parallel plan). tmp_pkg_rm removes it all.
 * tmp_put writes a file anywhere under a test's directory.
 */
#ifndef PGCI_TESTS_UNIT_TMP_PKG_H
#define PGCI_TESTS_UNIT_TMP_PKG_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"

/* A new directory /tmp/<prefix>XXXXXX with an empty pkg/ in it: its path, malloc'ed. */
static inline char *tmp_pkg_new(const char *prefix)
{
    char *tmpl = pgci_asprintf("/tmp/%sXXXXXX", prefix);
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    char *pkg = pgci_asprintf("%s/pkg", d);
    assert_int_equal(mkdir(pkg, 0755), 0);
    free(pkg);
    return d;
}

/* Writes pkg/<name> of root with text. */
static inline void tmp_pkg_put(const char *root, const char *name, const char *text)
{
    char *f = pgci_asprintf("%s/pkg/%s", root, name);
    assert_int_equal(fs_write_atomic(f, text, strlen(text)), 0);
    free(f);
}

/* Writes rel under root (any path in it), making the directories it needs. */
static inline void tmp_put(const char *root, const char *rel, const char *content)
{
    strbuf p = STRBUF_INIT;
    fs_join(&p, root, rel);
    char *dir = fs_dirname(p.buf);
    assert_int_equal(fs_mkdirs(dir), 0);
    free(dir);
    assert_int_equal(fs_write_atomic(p.buf, content, strlen(content)), 0);
    strbuf_free(&p);
}

/* Removes root, pkg/ and every file in it; frees root. */
static inline void tmp_pkg_rm(char *root)
{
    char *pkg = pgci_asprintf("%s/pkg", root);
    DIR *dir = opendir(pkg);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *f = pgci_asprintf("%s/%s", pkg, e->d_name);
        unlink(f);
        free(f);
    }
    if (dir)
        closedir(dir);
    rmdir(pkg);
    rmdir(root);
    free(pkg);
    free(root);
}

#endif
