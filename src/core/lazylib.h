/*
 * lazylib.h - a shared library opened the first time one of its functions is
 * needed, its functions looked up by name into a table.
 *
 * Why not link it: libcurl, libgit2 and libxml2 serve three paths only (fetching
 * from http: and git: sources, verify's git tree and its JUnit XML), yet loading
 * them at startup, with the forty libraries they pull in (OpenSSL, Kerberos,
 * LDAP, mbedTLS, ICU, ...), cost every pgci process about 8 ms: a tenth of a warm
 * gate, as much as `pgci --version` does otherwise (docs/performance.md, eleventh
 * round). git keeps libcurl out of git itself, in git-remote-http, for the same
 * reason. The build names each library by the SONAME of the one whose headers it
 * compiled against (PGCI_SONAME_* in the Makefile), so the library opened is the
 * one the headers describe, and each table's type is made from those headers'
 * declarations (see upstream/curl_api.h).
 */
#ifndef PGCI_CORE_LAZYLIB_H
#define PGCI_CORE_LAZYLIB_H

#include <stddef.h>

typedef struct lazylib {
    const char *soname;       /* as dlopen() takes it: "libcurl.so.4" */
    const char *purpose;      /* for the error: "to fetch over HTTP" */
    const char *prefix;       /* of every function's name: "curl_" */
    const char *const *names; /* the functions' names less the prefix, in table order */
    size_t n;
    void *table;               /* a struct of n function pointers, filled by lazylib_load */
    void (*init)(void *table); /* run once after the table is filled (NULL: none) */
    int state;                 /* 0 not tried, 1 loaded, <0 the error it failed with */
    char why[384];             /* the failure's message */
} lazylib;

/* Opens l->soname, fills l->table and runs l->init, once per process (later
 * calls give the first outcome; thread-safe, and no caller sees the table before
 * init has run): 0, or PGCI_EIO with "cannot load <soname> (<purpose>): <why>"
 * as the error. A loaded library stays loaded. init must not load a library. */
int lazylib_load(lazylib *l);

/* A table's names from its X-macro list: {LIST(LAZYLIB_NAME)}; its length; and
 * the compile-time check that table type T is one function pointer per name. */
#define LAZYLIB_NAME(f) #f,
#define LAZYLIB_LEN(names) (sizeof(names) / sizeof((names)[0]))
#define LAZYLIB_CHECK(T, names)                                                                    \
    _Static_assert(sizeof(T) == LAZYLIB_LEN(names) * sizeof(void *),                               \
                   #T " is one function pointer per name")

#endif
