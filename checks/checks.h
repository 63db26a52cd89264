/*
 * checks.h - the check definitions (one file each in checks/) and what they share.
 */
#ifndef PGCI_CHECKS_CHECKS_H
#define PGCI_CHECKS_CHECKS_H

#include "checks/check.h"

extern const check_def check_drift;
extern const check_def check_diff_consistency;
extern const check_def check_ruff_equivalence;
extern const check_def check_targets;
extern const check_def check_names;
/* the protocol checks (checks/protocol_*.c, docs/protocol.md) */
extern const check_def check_protocol_registration;
extern const check_def check_protocol_retired;
extern const check_def check_protocol_comments;
extern const check_def check_protocol_siblings;
extern const check_def check_protocol_tests;
extern const check_def check_protocol_import;

#endif
