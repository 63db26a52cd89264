/*
 * Why a poll loop: a child that writes a lot to stderr while we block writing its
 * stdin (or reading its stdout) would deadlock with naive sequential I/O. We poll
 * all three pipes, non-blocking, until the child closes both outputs, then reap it.
 * The child is put in its own process group so a timeout kills what it spawned too,
 * and so does the child's exit: what it leaves running holding our pipes (a daemon,
 * a test suite's stray worker) would otherwise keep us waiting until the timeout.
 */
#include "core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/error.h"

extern char **environ;

void proc_argv_string(strbuf *out, const char *const *argv)
{
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            strbuf_addc(out, ' ');
        strbuf_adds(out, argv[i]);
    }
}

static int name_error(int code, const proc_opts *opts, const char *why)
{
    strbuf cmd = STRBUF_INIT;
    proc_argv_string(&cmd, opts->argv);
    pgci_error_set(code, "command '%s' %s", cmd.buf, why);
    strbuf_free(&cmd);
    return code;
}

static int drain(int fd, strbuf *sb, size_t cap)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            size_t keep = (size_t)n;
            if (sb->len + keep > cap)
                keep = sb->len < cap ? cap - sb->len : 0;
            strbuf_add(sb, buf, keep);
            continue;
        }
        if (n == 0)
            return 1; /* EOF */
        if (errno == EINTR)
            continue;
        return 0; /* EAGAIN */
    }
}

/* The child's environment: ours, with every NAME in extra replaced by extra's
 * entry, then the entries of extra that were not in ours. Borrows the strings. */
static char **child_environ(const char *const *extra)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (extra[k])
        k++;
    char **env = pgci_calloc(n + k + 1, sizeof(*env));
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(environ[i], "=");
        int overridden = 0;
        for (size_t j = 0; j < k && !overridden; j++)
            overridden = !strncmp(extra[j], environ[i], len) && extra[j][len] == '=';
        if (!overridden)
            env[w++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[w++] = (char *)extra[j];
    return env;
}

/* Starts opts->argv in a process group of its own, stdin from in_r (or /dev/null
 * when opts has no stdin), stdout and stderr into out_w and err_w, SIGPIPE at its
 * default, in opts->env's environment. Returns posix_spawnp's result. */
static int spawn_child(const proc_opts *opts, int in_r, int out_w, int err_w, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    if (opts->stdin_data)
        posix_spawn_file_actions_adddup2(&fa, in_r, 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    posix_spawn_file_actions_adddup2(&fa, err_w, 2);
    if (opts->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);

    char **env = opts->env ? child_environ(opts->env) : environ;
    int rc = posix_spawnp(pid, opts->argv[0], &fa, &attr, (char *const *)opts->argv, env);
    if (env != environ)
        free(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    (void)all;
    return rc;
}

/* Reads the child's stdout and stderr into res (at most cap bytes each) and writes
 * opts->stdin_data to *in_w (closed, and set to -1, once written) until both
 * outputs close, the deadline (0: none) sets res->timed_out, or the child exits
 * (*reaped = 1, its status in *st). */
static void pump(const proc_opts *opts, proc_result *res, pid_t pid, int out_r, int err_r,
                 int *in_w, long deadline, size_t cap, int *reaped, int *st)
{
    size_t in_off = 0;
    int out_open = 1, err_open = 1;
    while (out_open || err_open) {
        struct pollfd p[3];
        int np = 0;
        int io = -1, ie = -1, ii = -1;
        if (out_open) {
            io = np;
            p[np++] = (struct pollfd){out_r, POLLIN, 0};
        }
        if (err_open) {
            ie = np;
            p[np++] = (struct pollfd){err_r, POLLIN, 0};
        }
        if (*in_w >= 0) {
            ii = np;
            p[np++] = (struct pollfd){*in_w, POLLOUT, 0};
        }
        int wait = -1;
        if (deadline) {
            long left = deadline - (long)now_ms();
            if (left <= 0) {
                res->timed_out = 1;
                break;
            }
            wait = (int)left;
        }
        if (wait < 0 || wait > 100)
            wait = 100; /* to notice a child that exits while its own children hold the pipes */
        int n = poll(p, (nfds_t)np, wait);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (io >= 0 && p[io].revents && drain(out_r, &res->out, cap))
            out_open = 0;
        if (ie >= 0 && p[ie].revents && drain(err_r, &res->err, cap))
            err_open = 0;
        if (ii >= 0 && p[ii].revents) {
            ssize_t w = write(*in_w, opts->stdin_data + in_off, opts->stdin_len - in_off);
            if (w > 0)
                in_off += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off >= opts->stdin_len) {
                close(*in_w);
                *in_w = -1;
            }
        }
        /* exited while something it started still holds the pipes open (a daemon,
         * a test's leftover worker): keep what it wrote, and end the group below */
        if (waitpid(pid, st, WNOHANG) == pid) {
            *reaped = 1;
            if (out_open)
                drain(out_r, &res->out, cap);
            if (err_open)
                drain(err_r, &res->err, cap);
            break;
        }
    }
}

int proc_run(const proc_opts *opts, proc_result *res)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    memset(res, 0, sizeof(*res));
    strbuf_init(&res->out, 0);
    strbuf_init(&res->err, 0);
    size_t cap = opts->max_output ? opts->max_output : (size_t)256 << 20;

    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
        (opts->stdin_data && pipe2(in, O_CLOEXEC) < 0)) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0)
                close(in[i]);
            if (out[i] >= 0)
                close(out[i]);
            if (err[i] >= 0)
                close(err[i]);
        }
        return name_error(PGCI_EIO, opts, strerror(e));
    }

    pid_t pid;
    int rc = spawn_child(opts, in[0], out[1], err[1], &pid);
    close(out[1]);
    close(err[1]);
    if (in[0] >= 0)
        close(in[0]);
    if (rc != 0) {
        close(out[0]);
        close(err[0]);
        if (in[1] >= 0)
            close(in[1]);
        return name_error(rc == ENOENT ? PGCI_ENOTFOUND : PGCI_EIO, opts,
                          rc == ENOENT ? "not found (is it installed and on PATH?)" : strerror(rc));
    }

    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    if (in[1] >= 0)
        fcntl(in[1], F_SETFL, O_NONBLOCK);
    int reaped = 0, st = 0;
    long deadline = opts->timeout_ms > 0 ? (long)now_ms() + opts->timeout_ms : 0;
    if (in[1] >= 0 && opts->stdin_len == 0) {
        close(in[1]);
        in[1] = -1;
    }

    /* SIGPIPE from a child that exits before reading all of stdin must not kill us. */
    struct sigaction ign = {0}, old_pipe;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);

    pump(opts, res, pid, out[0], err[0], &in[1], deadline, cap, &reaped, &st);
    if (in[1] >= 0)
        close(in[1]);
    close(out[0]);
    close(err[0]);
    if (res->timed_out || reaped)
        kill(-pid, SIGKILL);

    while (!reaped && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGPIPE, &old_pipe, NULL);

    if (res->timed_out) {
        char why[64];
        snprintf(why, sizeof(why), "timed out after %d ms and was killed", opts->timeout_ms);
        return name_error(PGCI_ELIMIT, opts, why);
    }
    if (WIFSIGNALED(st)) {
        res->signal = WTERMSIG(st);
        char why[64];
        snprintf(why, sizeof(why), "was killed by signal %d (%s)", res->signal,
                 strsignal(res->signal));
        return name_error(PGCI_EIO, opts, why);
    }
    res->status = WEXITSTATUS(st);
    return 0;
}

void proc_result_free(proc_result *res)
{
    strbuf_free(&res->out);
    strbuf_free(&res->err);
}

/* The child's side of proc_call: fn's reason goes up the pipe, nothing else. */
static void call_child(proc_call_fn fn, void *arg, int w)
{
    strbuf why = STRBUF_INIT;
    int r = fn(arg, &why);
    if (r != 0 && why.len == 0)
        strbuf_adds(&why, "failed without a reason");
    for (size_t off = 0; r != 0 && off < why.len;) {
        ssize_t n = write(w, why.buf + off, why.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    _exit(r != 0 ? 1 : 0);
}

/* Reads the child's reason until it closes the pipe or the deadline (0: none)
 * passes; 1 when the pipe closed. */
static int call_wait(int r, long deadline, strbuf *why)
{
    for (;;) {
        int wait = -1;
        if (deadline) {
            long left = deadline - (long)now_ms();
            if (left <= 0)
                return 0;
            wait = (int)left;
        }
        struct pollfd p = {r, POLLIN, 0};
        int n = poll(&p, 1, wait);
        if (n < 0 && errno != EINTR)
            return 0;
        if (n > 0 && drain(r, why, (size_t)1 << 16))
            return 1;
    }
}

int proc_call(proc_call_fn fn, void *arg, long timeout_ms, strbuf *why)
{
    int p[2];
    if (pipe(p) < 0)
        return pgci_error_set(PGCI_EIO, "cannot make a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return pgci_error_set(PGCI_EIO, "cannot fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(p[0]);
        call_child(fn, arg, p[1]);
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    long deadline = timeout_ms > 0 ? (long)now_ms() + timeout_ms : 0;
    int closed = call_wait(p[0], deadline, why);
    close(p[0]);
    if (!closed)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!closed)
        return pgci_error_set(PGCI_ELIMIT, "no answer within %ld ms", timeout_ms);
    if (WIFSIGNALED(st)) {
        strbuf_addf(why, "%sthe child process died of signal %d", why->len ? "; " : "",
                    WTERMSIG(st));
        return pgci_error_set(PGCI_EIO, "%s", why->buf);
    }
    if (WEXITSTATUS(st) != 0)
        return pgci_error_set(PGCI_ERROR, "%s", why->buf);
    return 0;
}
