/*
 * One message slot per thread. Messages are built with vsnprintf into a fixed
 * buffer: an error path must not itself fail on allocation.
 */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ERROR_MAX 4096

static _Thread_local char error_msg[ERROR_MAX];
static _Thread_local int error_code;

int pgci_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
    va_end(ap);
    error_code = code;
    return code;
}

int pgci_error_wrap(int code, const char *fmt, ...)
{
    char prefix[ERROR_MAX];
    char old[ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, error_msg, sizeof(old));
    /* prefix, then ": " and the old message, truncated to the slot */
    size_t n = strlen(prefix);
    memcpy(error_msg, prefix, n + 1);
    if (old[0] && n + 2 < ERROR_MAX) {
        memcpy(error_msg + n, ": ", 2);
        size_t m = strlen(old);
        if (m > ERROR_MAX - n - 3)
            m = ERROR_MAX - n - 3;
        memcpy(error_msg + n + 2, old, m);
        error_msg[n + 2 + m] = '\0';
    }
    error_code = code;
    return code;
}

const char *pgci_error_last(void)
{
    return error_msg;
}

int pgci_error_code(void)
{
    return error_code;
}

void pgci_error_clear(void)
{
    error_msg[0] = '\0';
    error_code = 0;
}
