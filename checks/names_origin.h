/*
 * names_origin.h - where in the config a line of a generated file came from.
 *
 * An undefined name in a generated file is the config's doing: the patch body
 * that wrote it. The finding belongs on that config line (GitHub annotates the
 * file the PR changed), with the generated file's line in its detail. The
 * generated line is found among the lines of the config's replacement objects
 * (patches and helpers, possibly defined in a sibling config) by its text
 * without indentation; a line no object holds (upstream code) stays where it is.
 */
#ifndef PGCI_CHECKS_NAMES_ORIGIN_H
#define PGCI_CHECKS_NAMES_ORIGIN_H

#include "checks/check.h"

/* Moves the findings out[from..] that point into in's generated file (in->py_path)
 * onto the config line that wrote them, when one does. root: the workspace root
 * (the objects' files are absolute). */
void names_to_config(findings *out, size_t from, const check_input *in, const char *src, size_t len,
                     const char *root);

/* The config object (patch replacement or helper) that line `line` of src (a
 * generated file, or some consecutive lines of one) most likely came from, the
 * line there (*cfg_line) and the column there of the generated line's column col
 * (*cfg_col: the same text, indented as the config writes it; the line's first
 * character when a name_map renamed a name on it; 0 for col 0); NULL when no
 * object holds that line's text with at least min_score - 1 of its neighbours
 * (up to 3 each way) too. A patch's body is read with its name_map applied, as
 * codegen writes it. */
const pg_object *names_origin_find(const pg_config *c, const char *src, size_t len, unsigned line,
                                   unsigned col, int min_score, unsigned *cfg_line,
                                   unsigned *cfg_col);

/* The same among the whole text of each file that defines one of the config's
 * objects (its own file, and those it takes patches from), for a line the config
 * writes from outside its objects: a post-import block, a string it passes. Text
 * found alike in several files is the config's own file's, else that of a file
 * in its directory (the GPU sibling an NPU config extends), else the first's. *in
 * becomes that file (an object spanning it, named NULL) and is returned; NULL
 * when no line there holds the text with min_score - 1 of its neighbours. */
const pg_object *names_origin_find_in_files(const pg_config *c, const char *src, size_t len,
                                            unsigned line, unsigned col, int min_score,
                                            pg_object *in, unsigned *cfg_line, unsigned *cfg_col);

#endif
