# Kernels: the GPU proof. `make gpu-check` (on a machine with an NVIDIA GPU, sm_90)
# builds `pgci logits` with nvcc and runs the fixture and full-size toys, the
# kernel benchmark and the HF parity script, within 8 minutes; see docs/logits.md.
# GPU_CHECK_BUDGET (seconds, default 460) bounds it.
gpu-check:
	@PGCI_BUILD=$(BUILD) bash tests/gpu/gpu_check.sh

# gpu-bundle: scripts/gpu-bundle.sh into $(GPU_BUNDLE)/bundle.tar.xz: pgci relinked to
# find its libraries beside it, those libraries, ruff, and the headers gpu-check
# builds against, for a GPU machine without this project's Debian packages (carry
# $(GPU_BUNDLE) there; docs/logits.md says how it was used).
GPU_BUNDLE ?= .gpu
gpu-bundle: build
	@PGCI_BUILD=$(BUILD) bash scripts/gpu-bundle.sh $(GPU_BUNDLE)
