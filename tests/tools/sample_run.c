/* Writes a sample run.json to stdout: every kind of content the renderers handle
 * (findings of several checks and severities, a unified diff in a detail, a check
 * that did not run, configs of every status), sized by argv[1] findings. Used by
 * tests/e2e/reports.sh to exercise `pgci report` without depending on a workspace. */
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/run_doc.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 6;
    const char *cmd = argc > 2 ? argv[2] : "check";
    run_doc d;
    run_doc_init(&d, cmd, 0);
    run_doc_set_input(&d, "workspace", "fixtures/workspace");
    run_doc_set_input(&d, "tag", "v1.0.0");
    if (argc > 2) {
        run_doc_set_input(&d, "from", "v1.0.0");
        run_doc_set_input(&d, "to", "v1.1.0");
    }
    run_doc_set_input(&d, "ruff_version", "0.13.2");
    run_doc_add_input_file(&d, "pyproject.toml",
                           "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    run_doc_set_config(&d, "demo.models.llama.llama_gpu_patch_gen_config", "demo/models/llama",
                       "drift", NULL);
    run_doc_set_config(&d, "demo.models.qwen3.qwen3_gpu_patch_gen_config", "demo/models/qwen3",
                       "failed", "Qwen3MLP is not in transformers.models.qwen3.modeling_qwen3");
    run_doc_set_config(&d, "demo.models.qwen3_moe.qwen3_moe_gpu_patch_gen_config",
                       "demo/models/qwen3_moe", "ok", NULL);
    run_doc_set_check(&d, "drift", "ran", NULL);
    run_doc_set_check(&d, "names", "ran", NULL);
    run_doc_set_check(&d, "targets", "ran", NULL);
    run_doc_set_check(&d, "logits", "not-run", "no CUDA device on this machine");
    run_doc_add_timing(&d, "regen", 12.5);
    findings fs = FINDINGS_INIT;
    const char *checks[] = {"drift", "names", "targets", "deprecations"};
    for (int i = 0; i < n; i++) {
        const char *c = checks[i % 4];
        json_t *data = json_object();
        if (i % 4 == 3)
            json_object_set_new(data, "removal_version", json_string("1.2.0"));
        finding *f = findings_add(
            &fs, c,
            i % 3 == 0   ? SEV_ERROR
            : i % 3 == 1 ? SEV_WARNING
                         : SEV_INFO,
            i % 2 ? "demo.models.llama.llama_gpu_patch_gen_config"
                  : "demo.models.qwen3.qwen3_gpu_patch_gen_config",
            i % 2 ? "demo/models/llama/generated/patched_modeling_llama_gpu.py"
                  : "demo/models/qwen3/generated/patched_modeling_qwen3_gpu.py",
            (unsigned)(10 + i), 1, data, "%s finding %d: 'Optional' <is> | undefined, 100%%", c, i);
        if (i % 4 == 0)
            finding_set_detail(f, "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-x = Optional[int]\n"
                                  "+x = int | None\n ```\n");
    }
    run_doc_set_findings(&d, &fs);
    strbuf out = STRBUF_INIT;
    run_doc_dump(&d, &out);
    fwrite(out.buf, 1, out.len, stdout);
    strbuf_free(&out);
    findings_free(&fs);
    run_doc_free(&d);
    return 0;
}
