/*
 * The signal-time cleanup of temporary paths (see tempfile.h). The handler only
 * reads the table and calls unlink/rmdir/opendir: it takes no lock and frees
 * nothing, and each slot's string stays valid until it is swapped out.
 */
#include "core/tempfile.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"

#define TEMPFILE_SLOTS 256

static _Atomic(char *) slots[TEMPFILE_SLOTS];
static atomic_int installed;

/* rm -r within a fixed buffer: no allocation in a signal handler. */
static void remove_path(char *path, size_t len, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || len + n + 2 > cap)
                continue;
            path[len] = '/';
            memcpy(path + len + 1, de->d_name, n + 1);
            remove_path(path, len + 1 + n, cap);
            path[len] = '\0';
        }
        closedir(d);
    }
    rmdir(path);
}

static void on_signal(int sig)
{
    char buf[PATH_MAX];
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        const char *p = atomic_load(&slots[i]);
        size_t n = p ? strlen(p) : 0;
        if (!n || n >= sizeof(buf))
            continue;
        memcpy(buf, p, n + 1);
        remove_path(buf, n, sizeof(buf));
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1))
        return;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal the parent chose to ignore stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void tempfile_register(const char *path)
{
    install();
    char *copy = pgci_strdup(path);
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        char *expected = NULL;
        if (atomic_compare_exchange_strong(&slots[i], &expected, copy))
            return;
    }
    free(copy);
}

void tempfile_unregister(const char *path)
{
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        char *p = atomic_load(&slots[i]);
        if (p && !strcmp(p, path) && atomic_compare_exchange_strong(&slots[i], &p, NULL)) {
            free(p);
            return;
        }
    }
}
