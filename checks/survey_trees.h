/*
 * survey_trees.h - the syntax trees the survey's checks read (patch bodies, slices
 * of an upstream module), taken from the run's parse set: a text is parsed once a
 * run however many checks, configs and tags read it (each config is compared with
 * B and, for its standing facts, with A in B's place: the same bodies twice).
 *
 * Without a parse set (p->parses NULL: a check called on its own) each request
 * parses, as before.
 */
#ifndef PGCI_CHECKS_SURVEY_TREES_H
#define PGCI_CHECKS_SURVEY_TREES_H

#include "checks/body_uses.h"
#include "checks/signatures.h"
#include "py/py.h"

/* The tree of src[0..len) in *t; release it with survey_tree_release(p, t). */
int survey_tree_get(const survey_pair *p, py_tree *t, const char *src, size_t len,
                    const char *path);
void survey_tree_release(const survey_pair *p, py_tree *t);

/* body_uses_read() of text through the run's tree of it. */
int survey_body_uses(const survey_pair *p, body_uses *out, const char *text, size_t len);

#endif
