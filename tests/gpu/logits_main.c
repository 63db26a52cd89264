/* A standalone `pgci logits` for the GPU machine: the logits command without the
 * rest of pgci, so tests/gpu/gpu_check.sh can build it from the kernels, the check
 * and the core library alone (libc, jansson, CUDA) - no tree-sitter grammar, no
 * libcurl or libgit2 - on a machine that may have no network. */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
    argv[0] = (char *)"logits";
    return cmd_logits(argc, (const char **)argv);
}
