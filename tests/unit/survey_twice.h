/*
 * survey_twice.h - a unit test's survey of one config, run twice: without a parse
 * set and a bodies memo, then with both (the run's caches must not change what is
 * found). `line` appends what the test reads of a finding (nothing for those it
 * does not look at); the two runs' texts must be equal. Returns the text, malloc'ed.
 */
#ifndef PGCI_TESTS_UNIT_SURVEY_TWICE_H
#define PGCI_TESTS_UNIT_SURVEY_TWICE_H

#include "checks/survey_compare.h"
#include "checks/survey_trees.h"
#include "core/strbuf.h"
#include "py/parse_set.h"

typedef void (*survey_line_fn)(strbuf *out, const finding *f, const void *arg);

static inline char *survey_twice(survey_pair *sp, survey_line_fn line, const void *arg)
{
    strbuf got[2] = {STRBUF_INIT, STRBUF_INIT};
    py_parse_set *set = py_parse_set_new();
    survey_bodies *memo = survey_bodies_new();
    for (int pass = 0; pass < 2; pass++) {
        sp->parses = pass ? set : NULL;
        sp->bodies = pass ? memo : NULL;
        findings fs = FINDINGS_INIT, targets = FINDINGS_INIT;
        survey_compare(&fs, sp, NULL, &targets);
        for (size_t i = 0; i < fs.len; i++)
            line(&got[pass], fs.items[i], arg);
        findings_free(&fs);
        findings_free(&targets);
    }
    assert_string_equal(got[1].buf ? got[1].buf : "", got[0].buf ? got[0].buf : "");
    strbuf_free(&got[1]);
    sp->parses = NULL;
    sp->bodies = NULL;
    py_parse_set_free(set);
    survey_bodies_free(memo);
    return strbuf_detach(&got[0], NULL);
}

#endif
