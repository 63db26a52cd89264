/*
 * keyword_calls.h - where a submodule's `forward`, or a class's own method, is
 * called with a given keyword: the evidence that an argument is passed by name,
 * read from source text.
 *
 * A class D of an upstream module whose `__init__` assigns `self.<attr> =
 * Cls(...)` calls Cls.forward as `self.<attr>(...)` from its methods; so does a
 * config's override of a method of D. When upstream renames a parameter of
 * Cls.forward behind `@deprecate_kwarg("old", new_name="new")` and an override of
 * Cls.forward keeps `old` (patchgen keeps upstream's decorators on it, the shim
 * included), a call passing `old=` or `new=` by name reaches the override as
 * `new=`, which it does not take: a TypeError. These are such calls; and the
 * calls `f(new=...)` of a module-level function f that the config replaces with
 * one taking only `old` (a replacement carries its own decorators, not the shim).
 */
#ifndef PGCI_CHECKS_KEYWORD_CALLS_H
#define PGCI_CHECKS_KEYWORD_CALLS_H

#include <stddef.h>

#include "core/vec.h"
#include "index/index.h"

/* A text to search besides the module: a config's override of `owner.<method>`,
 * whose `self.<attr>(...)` calls run on an instance of owner (owner NULL: a body
 * of the config searched for calls of a module-level function only). */
typedef struct keyword_calls_text {
    const char *owner; /* the class the text's method belongs to */
    const char *what;  /* how a message names it: "the config's `D.forward`" */
    const char *text;
    size_t len;
} keyword_calls_text;

/* What to look for and where besides the module. */
typedef struct keyword_calls_ctx {
    const char *const *kws; /* the keywords */
    size_t n_kws;
    const keyword_calls_text *texts;
    size_t n_texts;
    const strvec *overridden; /* "D.m" the config overrides, "D" it replaces: upstream's
                               * code there no longer runs */
    /* when set, a call passing more than max_positional arguments by position
     * (`self.<attr>(...)`'s self not counted; none unpacked with `*`) counts too:
     * "passes 2 arguments by position" */
    int check_positional;
    size_t max_positional;
} keyword_calls_ctx;

/* The first call of `cls.<method>` that passes one of k's keywords by name, in
 * module m (source src[0..len)) or in k's texts: for `forward`, a call of an
 * instance a class's `__init__` makes (`self.<attr>(...)`), for another method the
 * class's own `self.<method>(...)`. "`D.forward` passes `new=` (line 12)" for the
 * module, "the config's `D.forward` passes `old=`" for a text; malloc'ed, with
 * *call the call as written ("self.linear_attn()", malloc'ed). NULL when none is
 * found (the calls pass it by position, or through `**kwargs`, or nothing calls
 * it so), *call NULL then. */
char *keyword_calls_find(const index_module *m, const char *src, size_t len, const char *cls,
                         const char *method, const keyword_calls_ctx *k, char **call);

/* The first call `fn(...)` of the module-level function fn that passes one of k's
 * keywords by name: in module m (source src[0..len)) where the code still runs
 * (not in fn itself, nor in a function or class the config replaces, nor a method
 * it overrides; "`D.m` passes `new=` (line 12)", "the module passes ..." for a
 * statement at its top level), or in any of k's texts ("the config's `D.m`
 * passes ..."). Strings, comments and `obj.fn(...)` are not calls of fn. As
 * keyword_calls_find otherwise. Calls in an f-string's fields are not looked at. */
char *keyword_calls_find_function(const index_module *m, const char *src, size_t len,
                                  const char *fn, const keyword_calls_ctx *k, char **call);

/* How many arguments the call whose argument list opens at s[0] == '(' passes by
 * position at its top level; -1 when it unpacks `*args` or `**kwargs` (how many
 * it passes, the text does not say) or does not close. */
long keyword_calls_positional(const char *s, size_t n);

/* Whether the call whose argument list opens at s[0] == '(' (within s[0..n))
 * passes keyword kw at its top level (`kw=`, not `kw==`, not inside a nested call
 * or a string). */
int keyword_calls_passes(const char *s, size_t n, const char *kw);

#endif
