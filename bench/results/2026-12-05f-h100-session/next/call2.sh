#!/usr/bin/env bash
# Prepared in session 2026-12-05 (thirteenth), not run: where the block-scaled fp8 expert's 11%
# against the per-tensor one at 4096^3 goes (H100, call 4: 127.2 against 114.4 us, both at
# 1980 MHz). Nsight Compute's per-instruction view (PTXB_PROBE_NCU=1) of one 4096^3 launch of
# each, on the same machine start; the reports' source pages come back in one archive
# (bench/gemm_dev/summarize_source_stalls.py reads them).
# Usage (repository root of the GPU machine): call2.sh OUT   (about 1-2 minutes)
set -uo pipefail
out="$1"; work=/tmp/ncu2; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$work/gpu.txt"
PTXB_PROBE_NCU=1 timeout 150 bench/gemm_dev/probe.sh "$work/tensor" "tensor:4096,4096,4096" \
  kernels/reference/sm90_gemm_fp8_e4m3.cu > "$work/tensor.log" 2>&1
PTXB_PROBE_NCU=1 timeout 150 bench/gemm_dev/probe.sh "$work/block" "block:4096,4096,4096" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu > "$work/block.log" 2>&1
rm -f "$work"/*/*.so "$work"/*/*.ncu-rep "$work"/*/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/ncu.tar.gz" .
cat "$work"/*/summary.txt
