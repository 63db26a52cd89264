/*
 * external_bases.h - whether a method that left a model's module is still there
 * through a base class defined outside it.
 *
 * A patch body calls `self.get_window_index()`; at B the patched class and its
 * bases in the model's module no longer define it. Every model class reaches
 * PreTrainedModel (transformers.modeling_utils), whose own bases come from other
 * modules (PushToHubMixin from transformers.utils, which re-exports it from
 * transformers.utils.hub; PeftAdapterMixin from transformers.integrations, whose
 * `__init__` imports it from .peft under `if TYPE_CHECKING:`; DistributedMixin).
 * Until those are read, "an external base class may provide it now" is all the
 * comparison can say: a warning. The survey then reads them at B, a round of
 * fetches at a time (a package's re-export is one more round), and settles each
 * such finding:
 *
 *  - a base read at B defines the method: the call binds, an info
 *    (kind callee-inherited) naming the class and its module;
 *  - every base reached is read and none defines it: an error (an
 *    AttributeError at run time), the bases read listed in the detail;
 *  - a base that cannot be read (not a transformers module, a module that does
 *    not parse, a name imported from nowhere): it stays the warning.
 *
 * torch.nn.Module is the one base outside transformers every model has; a method
 * of its own (below) stays the warning too: the call binds to torch's.
 */
#ifndef PGCI_CHECKS_EXTERNAL_BASES_H
#define PGCI_CHECKS_EXTERNAL_BASES_H

#include "checks/finding.h"
#include "core/vec.h"
#include "index/index.h"

/* 1 when name is a method torch.nn.Module defines (torch 2.x). */
int external_bases_torch_method(const char *name);

/* For the comparison, when cls (a class of m at B) no longer has `method` in m:
 * the bases its chain reaches outside m, each as the module it is imported from
 * and its name, into data["external"] ({"class", "method", "bases": [[module,
 * name], ...]}), walking through base_mod (transformers.modeling_utils at B, may be
 * NULL) where m's classes reach it. Nothing is set (0 returned) when a base is not
 * imported from a transformers module or `method` is torch.nn.Module's: those
 * cannot be settled. Returns 1 when set. */
int external_bases_ask(json_t *data, const index_module *m, const index_module *base_mod,
                       const char *cls, const char *method);

/* The modules read at B for the questions, by the name they were asked by. */
typedef struct xbases xbases;

xbases *xbases_new(void);
void xbases_free(xbases *x);

/* module's index at B (borrowed; it must outlive x), or NULL when it could not be
 * read. A package's `__init__` is added under the package's name, indexed under
 * "<package>.__init__" so that its relative imports resolve. */
void xbases_add(xbases *x, const char *module, const index_module *ix);

/* The modules the open questions of fs still need that x has not been given, into
 * need (unique, in order of first need). */
void xbases_needed(const xbases *x, const findings *fs, strvec *need);

/* Settles every question of fs as the header says, with what x holds (a module
 * still missing counts as unreadable), and removes the questions from the data.
 * tag_b names B in the messages. */
void xbases_settle(const xbases *x, findings *fs);

#endif
