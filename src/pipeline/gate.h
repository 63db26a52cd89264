/*
 * gate.h - the PR gate as a library call: regenerate the workspace's configs,
 * read the checked-in files, run the gate's checks, and record everything in a
 * run document. `pgci check` and `pgci run` are thin commands over this.
 */
#ifndef PGCI_PIPELINE_GATE_H
#define PGCI_PIPELINE_GATE_H

#include "cache/result_cache.h"
#include "checks/finding.h"
#include "core/vec.h"
#include "pipeline/run_doc.h"
#include "workspace/workspace.h"

typedef struct gate_opts {
    const char *tag;      /* upstream tag; NULL: "v" + the workspace pin */
    const char *source;   /* upstream source spec; NULL: [tool.pgci] upstream or default */
    const char *ruff;     /* ruff command; NULL: [tool.pgci] ruff, else "ruff" */
    int no_ruff;          /* 1: structural mode, no byte comparison */
    int ruff_timeout_ms;  /* per ruff run; 0: 120 s */
    const char *var_name; /* -c NAME */
    const strvec *only;   /* configs to check (module, path or stem); empty: all */
    int shard_k, shard_n; /* --shard K/N over the selected configs; 0/0: all */
    int jobs;
    int fix;               /* rewrite drifted .py/.diff atomically */
    int no_diff;           /* the workspace checks in no .diff files: compare .py only */
    const char *cache_dir; /* pgci's cache (upstream files; results/ under it); NULL: default */
    int no_cache;          /* neither read nor write the result cache nor the upstream files' */
    int timestamp;
    const char *base; /* --base REV for the change-set checks; NULL: none */
    int exits_after;  /* the process exits after the run: its trees are left to the exit */
} gate_opts;

typedef struct gate_result {
    findings fs;
    run_doc doc;
    size_t n_configs;      /* configs checked */
    size_t n_failed;       /* that could not be regenerated */
    size_t n_drift;        /* with a drift finding */
    strvec fixed;          /* paths --fix wrote */
    strvec fix_refused;    /* "module: not rewritten: why" of drifted configs --fix left alone */
    strvec not_run;        /* "id: reason" of checks that did not run */
    strvec not_configured; /* "id: reason" of checks the workspace did not set up */
    char *ruff_version;    /* NULL without ruff */
    char *ruff_cmd;        /* the ruff command used */
    char *tag;
    int cache_used;     /* 1 when the result cache was open */
    rcache_stats cache; /* its counters for this run */
} gate_result;

/* Runs the gate. Returns 0 when the gate ran (findings or not), negative on an
 * environment error (bad tag, missing ruff, no upstream source): message set. */
int gate_run(const workspace *ws, const gate_opts *o, gate_result *out);

void gate_result_free(gate_result *r);

#endif
