#include "core/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int level = LOG_NORMAL;
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_shown;

void log_set_level(int l)
{
    level = l;
}

int log_level(void)
{
    return level;
}

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&progress_lock);
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&progress_lock);
}

void log_info(const char *fmt, ...)
{
    if (level < LOG_NORMAL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay("pgci: ", fmt, ap);
    va_end(ap);
}

void log_verbose(const char *fmt, ...)
{
    if (level < LOG_VERBOSE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay("pgci: ", fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    if (level < LOG_NORMAL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay("pgci: warning: ", fmt, ap);
    va_end(ap);
}

void progress_update(const char *stage, unsigned long done, unsigned long total, const char *what)
{
    if (level < LOG_NORMAL || !isatty(2))
        return;
    pthread_mutex_lock(&progress_lock);
    fprintf(stderr, "\r\033[K%s [%lu/%lu] %.60s", stage, done, total, what ? what : "");
    fflush(stderr);
    progress_shown = 1;
    pthread_mutex_unlock(&progress_lock);
}

void progress_done(void)
{
    pthread_mutex_lock(&progress_lock);
    if (progress_shown && isatty(2))
        fputs("\r\033[K", stderr);
    progress_shown = 0;
    pthread_mutex_unlock(&progress_lock);
}

int log_stdout_color(void)
{
    const char *nc = getenv("NO_COLOR");
    return isatty(1) && !(nc && *nc);
}
