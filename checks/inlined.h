/*
 * inlined.h - a function's text with its one-use temporaries written in place.
 *
 * Upstream often folds a temporary into the statement after it, or splits one
 * out, and nothing else: transformers 5.24.0 wrote
 *
 *     image_embeds = torch.split(vision_outputs.pooler_output, split_sizes)
 *     vision_outputs.pooler_output = image_embeds
 *
 * as `vision_outputs.pooler_output = torch.split(vision_outputs.pooler_output,
 * split_sizes)`. The survey's "the upstream body changed under the patch" should
 * not fire on that. This rewrites a definition so that two texts which differ
 * only so read the same: each `x = E` whose name is read once in the whole
 * definition, in the statement right after it, becomes that statement with `(E)`
 * where the read was, when Python would evaluate E at the same point either way:
 *
 *  - the next statement is an expression statement or a `return`, and the read
 *    is reached from it only through calls and their arguments, attributes'
 *    objects, subscripts, operators (the left operand of `and`/`or` only),
 *    tuples and lists, parentheses and the value side of an assignment;
 *  - what that statement evaluates before the read is names and constants, and
 *    the callee of a call (a name or a chain of attributes of a name, which E is
 *    taken not to rebind);
 *  - `x = E` and the statement are each alone on their lines, `x` is a plain
 *    name without an annotation, and the definition names `x` nowhere else (not
 *    as a parameter, `global`, a nested function's name or in a nested scope).
 *
 * Chains (`a = E; b = f(a); return g(b)`) fold in rounds, each on a fresh parse.
 */
#ifndef PGCI_CHECKS_INLINED_H
#define PGCI_CHECKS_INLINED_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "py/py.h"

/* The definition def[0..len) (a function, decorated or not, as its module has
 * it from its first byte: a method's body indented as in its class) with its one-use temporaries
 * inlined, into *out (replacing what it held). The number of temporaries inlined (0: out is the
 * text as it was), or negative when the text does not parse as Python. */
int inlined_temporaries(strbuf *out, const char *def, size_t len);

/* The same for the definition (a function, decorated or not) that spans bytes
 * [start, end) of a parsed module t, its first round read from t: no parse when
 * there is nothing to fold. A span that is not such a definition is read as
 * inlined_temporaries() reads its text; one outside t is refused (negative). */
int inlined_temporaries_at(strbuf *out, const py_tree *t, uint32_t start, uint32_t end);

/* 0 when no folding can make the bodies of the definitions a and b read the same,
 * from their tokens alone (no parse): past the `def` line, names, keywords and
 * operators, less what folds add and remove and what the structural comparison
 * reads loosely (strings, numbers, comments, parentheses, commas, `=`), differ
 * only by names, each an even number of times more on one side (a temporary is
 * written twice); 1 when they might. */
int inlined_may_read_same(const char *a, size_t alen, const char *b, size_t blen);

#endif
