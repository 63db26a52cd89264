/*
 * survey_case.h - the pieces of a unit test's survey of one config, as the tests
 * of the survey's checks build them: a module indexed from its source, a config of
 * a model's module, a patch body as the evaluator records it, and the pair the
 * survey compares. Include after <cmocka.h>: a source that does not index fails
 * the test.
 */
#ifndef PGCI_TESTS_UNIT_SURVEY_CASE_H
#define PGCI_TESTS_UNIT_SURVEY_CASE_H

#include <string.h>

#include "checks/signatures.h"
#include "core/vec.h"
#include "index/index.h"
#include "patchgen/patch_spec.h"

/* How many lines s has (its newlines). */
static inline unsigned count_lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The module `name` indexed from src. */
static inline index_module *index_named(const char *src, const char *name)
{
    index_module *m;
    assert_int_equal(index_module_from_source(&m, src, strlen(src), "m.py", name), 0);
    return m;
}

/* An empty config of source_module, in file as module (either may be NULL). */
static inline void config_of(pg_config *cfg, const char *source_module, const char *file,
                             const char *module)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->source_module = source_module;
    cfg->file = file;
    cfg->module = module;
}

/* The def `name` whose text is the whole of text, from line 1, in module's file:
 * a patch body as the evaluator records it. */
static inline pg_object body_of(const char *name, const char *module, const char *file,
                                const char *text)
{
    return (pg_object){.name = name,
                       .module = module,
                       .file = file,
                       .text = text,
                       .start_line = 1,
                       .end_line = count_lines(text),
                       .text_len = strlen(text)};
}

/* Adds to cfg the override of method target by body (borrowed). */
static inline void override_with(pg_config *cfg, const char *target, pg_object *body)
{
    pg_patch p = {0};
    p.type = PG_METHOD_OVERRIDE;
    p.target = target;
    p.replacement = body;
    VEC_PUSH(&cfg->patches, p);
}

/* The survey of cfg (config "cfg", its file config_path) between the model's module
 * a, indexed from src_a, at v1.0 and b, from src_b, at v2.0; no other module. */
static inline survey_pair pair_of(pg_config *cfg, const char *config_path, index_module *a,
                                  const char *src_a, index_module *b, const char *src_b)
{
    return (survey_pair){.config = "cfg",
                         .config_path = config_path,
                         .cfg = cfg,
                         .a = a,
                         .b = b,
                         .tag_a = "v1.0",
                         .tag_b = "v2.0",
                         .src_a = src_a,
                         .src_a_len = strlen(src_a),
                         .src_b = src_b,
                         .src_b_len = strlen(src_b)};
}

#endif
