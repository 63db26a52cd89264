/*
 * The signal-time cleanup of temporary paths (see tempfile.h).
 *
 * Why fixed buffers and a lock: worker threads register and unregister while
 * others do the same, and a signal may arrive on any thread at any time. The
 * threads take a mutex among themselves (a slot's path is never compared while
 * another thread rewrites it), with the signals blocked while they hold it. The
 * handler takes no lock and frees nothing: it reads only slots marked live, whose
 * path is static storage written before the mark was set, so it can never read
 * freed memory.
 *
 * Why tempfile_begin/end: a handler that removed what was registered while
 * another thread went on creating directories left the new ones behind (a ruff
 * batch's temporary tree, under load). The handler first says the process is
 * ending (`dying`), then waits for the threads between creating a path and
 * registering it (`inflight`); a thread that comes to create a path afterwards
 * never does. Both counters are sequentially consistent atomics, so either the
 * handler sees a thread in flight or that thread sees `dying`.
 */
#include "core/tempfile.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TEMPFILE_SLOTS 256

static char paths[TEMPFILE_SLOTS][PATH_MAX];
static atomic_int live[TEMPFILE_SLOTS];
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static atomic_int dying;    /* 0, or the signal whose handler is removing */
static atomic_int inflight; /* threads between creating a path and registering it */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A directory entry as getdents64(2) returns it. */
struct dirent64_raw {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* rm -r within a fixed buffer, with async-signal-safe calls only: open(2) and
 * getdents64(2) instead of opendir(3), which allocates. */
static void remove_path(char *path, size_t len, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        _Alignas(8) char buf[2048];
        long got;
        while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
            for (long at = 0; at < got;) {
                const struct dirent64_raw *de = (const struct dirent64_raw *)(buf + at);
                at += de->reclen;
                size_t n = strlen(de->name);
                if (!strcmp(de->name, ".") || !strcmp(de->name, "..") || len + n + 2 > cap)
                    continue;
                path[len] = '/';
                memcpy(path + len + 1, de->name, n + 1);
                remove_path(path, len + 1 + n, cap);
                path[len] = '\0';
            }
        }
        close(fd);
    }
    rmdir(path);
}

/* How long the handler waits for threads in flight (they take microseconds; a
 * thread stopped in a debugger must not hang the exit forever). */
#define INFLIGHT_WAIT_MS 5000
/* Passes over the registered paths at most (see on_signal). */
#define REMOVE_PASSES 200
/* How long a thread that came to create a path after the signal waits for the
 * handler to end the process: well past the handler's own waits. */
#define DYING_WAIT_MS 30000

static void pause_ms(long ms)
{
    struct timespec d = {0, ms * 1000000L};
    nanosleep(&d, NULL);
}

/* One pass over the registered paths; 1 when one of them was still there. */
static int remove_registered(void)
{
    char buf[PATH_MAX];
    struct stat st;
    int found = 0;
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        if (!atomic_load(&live[i]))
            continue;
        size_t n = strnlen(paths[i], sizeof(buf) - 1);
        memcpy(buf, paths[i], n);
        buf[n] = '\0';
        if (n && lstat(buf, &st) == 0) {
            found = 1;
            remove_path(buf, n, sizeof(buf));
        }
    }
    return found;
}

/* Ends the process by sig's default action, whatever this thread's mask. A
 * handler that only restored the default and raised relied on returning to a mask
 * that lets sig through: ThreadSanitizer runs a handler late, at the thread's next
 * intercepted call, and one run inside pthread_sigmask(SIG_BLOCK) returns to a
 * mask that blocks sig. The raise then stayed pending on that thread while every
 * thread waited in tempfile_begin: the process never ended (a test_core that hung
 * CI under make tsan, most likely so). _exit is the last resort, in case the
 * raised signal is held back all the same. */
static void die_by(int sig)
{
    sigset_t only;
    signal(sig, SIG_DFL);
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
    _exit(128 + sig);
}

static void on_signal(int sig)
{
    atomic_store(&dying, sig);
    for (int ms = 0; ms < INFLIGHT_WAIT_MS && atomic_load(&inflight) > 0; ms++)
        pause_ms(1);
    /* the other threads run on until they next come to create a path: one may
     * still write or rename into a directory being removed, so passes repeat
     * until one finds nothing left */
    for (int pass = 0; pass < REMOVE_PASSES && remove_registered(); pass++)
        pause_ms(1);
    die_by(sig);
}

static void install_handlers(void)
{
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

/* The handlers are in place before any thread goes on to create a path. A flag
 * that the first caller set before installing let a second thread create a
 * directory while the first was still between the flag and sigaction(): a
 * SIGTERM then took its default course and left the directory (test_core under
 * ASan, a few runs in a hundred on a loaded machine). */
static void install(void)
{
    pthread_once(&installed, install_handlers);
}

/* The signals the handler catches blocked on this thread (the old mask in *saved):
 * a handler that ran on a thread holding `lock` would wait for a thread in flight
 * that waits for `lock` (it gave up after INFLIGHT_WAIT_MS and left that thread's
 * new directory behind, unregistered). */
static void block_signals(sigset_t *saved)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, saved);
}

void tempfile_register(const char *path)
{
    install();
    size_t n = strlen(path);
    if (!n || n >= PATH_MAX)
        return;
    sigset_t saved;
    block_signals(&saved);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        if (atomic_load(&live[i]))
            continue;
        memcpy(paths[i], path, n + 1);
        atomic_store(&live[i], 1);
        break;
    }
    pthread_mutex_unlock(&lock);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void tempfile_unregister(const char *path)
{
    sigset_t saved;
    block_signals(&saved);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < TEMPFILE_SLOTS; i++) {
        if (atomic_load(&live[i]) && !strcmp(paths[i], path)) {
            atomic_store(&live[i], 0);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void tempfile_begin(sigset_t *saved)
{
    install();
    block_signals(saved);
    atomic_fetch_add(&inflight, 1);
    int sig = atomic_load(&dying);
    if (sig) {
        /* the handler is removing what was registered: create nothing more and
         * wait, signals blocked, for the process to end; should it not end (the
         * handler's thread stopped), end it here rather than wait forever */
        atomic_fetch_sub(&inflight, 1);
        for (int ms = 0; ms < DYING_WAIT_MS; ms += 10)
            pause_ms(10);
        die_by(sig);
    }
}

void tempfile_end(const sigset_t *saved)
{
    atomic_fetch_sub(&inflight, 1);
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}
