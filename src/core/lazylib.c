/*
 * lazylib.c - see lazylib.h. One mutex for all the libraries: each is loaded
 * once, the first time a command needs it, so there is nothing to contend for.
 */
#include "core/lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* dlopen()s and looks up every function; 0, or -1 with l->why set. */
static int open_and_bind(lazylib *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(l->why, sizeof(l->why), "%s", e ? e : "dlopen failed");
        return -1;
    }
    void **slots = l->table;
    for (size_t i = 0; i < l->n; i++) {
        char name[128];
        snprintf(name, sizeof(name), "%s%s", l->prefix, l->names[i]);
        dlerror();
        void *f = dlsym(h, name);
        if (!f) {
            /* an older library than the headers: say which function is missing */
            snprintf(l->why, sizeof(l->why), "it has no %s", name);
            dlclose(h);
            return -1;
        }
        /* the table is n function pointers, and POSIX makes a function's address
         * fit a void * (dlsym returns them so) */
        memcpy(&slots[i], &f, sizeof(f));
    }
    return 0;
}

int lazylib_load(lazylib *l)
{
    pthread_mutex_lock(&g_lock);
    if (l->state == 0) {
        l->state = open_and_bind(l) == 0 ? 1 : PGCI_EIO;
        if (l->state == 1 && l->init)
            l->init(l->table);
    }
    int state = l->state;
    pthread_mutex_unlock(&g_lock);
    if (state == 1)
        return 0;
    return pgci_error_set(state, "cannot load %s (%s): %s", l->soname, l->purpose, l->why);
}
