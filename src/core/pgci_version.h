/*
 * pgci_version.h - pgci's own version, as `pgci --version`, the HTTP user agent
 * and the run record (run.json, SARIF) report it.
 */
#ifndef PGCI_CORE_PGCI_VERSION_H
#define PGCI_CORE_PGCI_VERSION_H

#define PGCI_VERSION "0.1.0"

#endif
