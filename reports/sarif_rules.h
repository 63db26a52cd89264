/*
 * sarif_rules.h - descriptions and help of pgci's rules for SARIF (code scanning).
 */
#ifndef PGCI_REPORTS_SARIF_RULES_H
#define PGCI_REPORTS_SARIF_RULES_H

/* One line saying what the check catches; NULL when pgci has none for id. */
const char *sarif_rule_summary(const char *id);

/* What the finding means and what to do; NULL when pgci has none for id. */
const char *sarif_rule_help(const char *id);

#endif
