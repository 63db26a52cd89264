/*
 * survey_trees.c - the survey's trees through the run's parse set.
 */
#include "checks/survey_trees.h"

#include <string.h>

#include "py/parse_set.h"

int survey_tree_get(const survey_pair *p, py_tree *t, const char *src, size_t len, const char *path)
{
    return p->parses ? py_parse_set_get(p->parses, src, len, path, t) : py_parse(t, src, len, path);
}

void survey_tree_release(const survey_pair *p, py_tree *t)
{
    if (p->parses)
        py_parse_set_release(t);
    else
        py_tree_free(t);
}

int survey_body_uses(const survey_pair *p, body_uses *out, const char *text, size_t len)
{
    py_tree t;
    int r = survey_tree_get(p, &t, text, len, "<patch>");
    if (r < 0) {
        memset(out, 0, sizeof(*out));
        return r;
    }
    body_uses_of_tree(out, &t);
    survey_tree_release(p, &t);
    return 0;
}
