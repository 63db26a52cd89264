/*
 * config_dump.h - an evaluated PatchConfig as JSON: what `pgci` thinks a config
 * registers, in the same shape tests/oracle/config_dump.py gets from the real
 * patchgen, so the two can be compared field by field.
 */
#ifndef PGCI_PATCHGEN_CONFIG_DUMP_H
#define PGCI_PATCHGEN_CONFIG_DUMP_H

#include "core/strbuf.h"
#include "patchgen/patch_spec.h"

/* Appends the config as one line of JSON (keys sorted, no trailing newline). Object
 * files are written relative to `root` when under it (NULL: absolute). The shape:
 *   {source_module, target_file, description, transformers_version,
 *    patches: [{type, target, replacement: OBJ|null, replacement_source, source_module,
 *               description, name_map: [[from, to]...]|null}],
 *    additional_imports: [{module, names, alias, is_from_import}],
 *    post_import_blocks: [str], helpers: [OBJ],
 *    positioned_helpers: [{target, placement, helper: OBJ}],
 *    drop_imported_names: [sorted str], exclude: [str]}
 *   OBJ = {name, module, file, first_line, last_line, is_class} */
int config_dump_json(strbuf *out, const pg_config *c, const char *root);

#endif
