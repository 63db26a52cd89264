/*
 * py_files.h - the unit tests' walk over a tree of Python files: every *.py under
 * a directory, depth first, read whole. Include after <cmocka.h>: a directory or
 * file that cannot be read fails the test.
 */
#ifndef PGCI_TESTS_UNIT_PY_FILES_H
#define PGCI_TESTS_UNIT_PY_FILES_H

#include <stddef.h>

#include "core/fs.h"
#include "core/strbuf.h"
#include "core/vec.h"

typedef void (*py_file_fn)(const char *path, const char *src, size_t len, void *arg);

/* Calls fn on each *.py file under dir; returns how many. */
static size_t py_files_under(const char *dir, py_file_fn fn, void *arg)
{
    size_t n = 0;
    strvec names = STRVEC_INIT;
    assert_int_equal(fs_list_dir(&names, dir), 0);
    for (size_t i = 0; i < names.len; i++) {
        strbuf p = STRBUF_INIT;
        fs_join(&p, dir, names.items[i]);
        if (fs_is_dir(p.buf)) {
            n += py_files_under(p.buf, fn, arg);
        } else if (pgci_ends_with(p.buf, ".py")) {
            strbuf src = STRBUF_INIT;
            assert_int_equal(fs_read_file(&src, p.buf, 0), 0);
            fn(p.buf, src.buf ? src.buf : "", src.len, arg);
            strbuf_free(&src);
            n++;
        }
        strbuf_free(&p);
    }
    strvec_free(&names);
    return n;
}

#endif
