#!/usr/bin/env bash
# Call H: where the block-scaled fp8 expert waits, per SASS instruction: Nsight Compute (--set
# full, source counters) on one 4096^3 launch of it and of the per-tensor expert, through the
# probe harness (PTXB_PROBE_NCU=1), reports kept with their source-page exports.
# Run from the repository root: callH.sh OUT
set -uo pipefail
out="$1"; work=/tmp/callH; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
PTXB_PROBE_NCU=1 timeout 150 bench/gemm_dev/probe.sh "$work/block" "block:4096,4096,4096" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu > "$work/block.log" 2>&1
PTXB_PROBE_NCU=1 timeout 150 bench/gemm_dev/probe.sh "$work/tensor" "tensor:4096,4096,4096" \
  kernels/reference/sm90_gemm_fp8_e4m3.cu > "$work/tensor.log" 2>&1
rm -f "$work"/*/*.so "$work"/*/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/callH.tar.gz" .
ls -la "$work"/block "$work"/tensor | grep -v build; head -c 600 "$work/block/sm90_gemm_fp8_blockwise.source.csv"; echo; cat "$work"/*/summary.txt
