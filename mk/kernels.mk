# Kernels: the GPU proof. `make gpu-check` (on a machine with an NVIDIA GPU, sm_90)
# builds `pgci logits` with nvcc and runs the fixture and full-size toys, the
# kernel benchmark and the HF parity script, within 8 minutes; see docs/logits.md.
# GPU_CHECK_BUDGET (seconds, default 460) bounds it.
gpu-check:
	@PGCI_BUILD=$(BUILD) bash tests/gpu/gpu_check.sh
