#!/usr/bin/env bash
# Session 2026-12-07h (thirty-fifth), call 3 (written after call 2, not yet run): why the TMA
# GEMM expert reads 0.61 and 0.53 of cuBLASLt at 8320x8448x1000 and 9000x8200x8200 (call 2's
# probe) while 8192^3 and 16384x4096x2048 read about 1.0. bench/gemm_dev/probe.sh times the
# expert and cuBLASLt call by call on shapes where one of M, N and K at a time leaves the aligned
# 8192^3 (M 9000, N 8200, K 8200 or 8256, K 1000 or 1024), plus 4000x3000x8200 (a ragged K
# without the tail schedule) and 9000x8200x2048; then one Nsight Compute report of the expert at
# the slowest of them (PTXB_PROBE_NCU=1 on the first shape given: 9000,8200,8200).
# Usage (repository root of the GPU machine): call3.sh OUT
set -uo pipefail
out="$1"
mkdir -p "$out" /tmp/call3_src
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
cp kernels/reference/sm90_gemm_bf16_wgmma_tma.cu /tmp/call3_src/expert.cu
PTXB_PROBE_TIMEOUT_S=40 timeout 300 bash bench/gemm_dev/probe.sh /tmp/call3 \
  "9000,8200,8200 9000,8192,8192 8192,8200,8192 8192,8192,8200 8192,8192,8256 8192,8192,1000 8192,8192,1024 4000,3000,8200 9000,8200,2048 8192,8192,8192" \
  /tmp/call3_src/expert.cu | tee "$out/probe.txt"
PTXB_PROBE_NCU=1 PTXB_PROBE_TIMEOUT_S=120 timeout 240 bash bench/gemm_dev/probe.sh /tmp/call3_ncu \
  "9000,8200,8200" /tmp/call3_src/expert.cu > "$out/ncu_probe.txt" 2>&1
cp /tmp/call3_ncu/expert.ncu.txt /tmp/call3_ncu/expert.source.csv "$out/" 2>/dev/null
grep -E "Duration|Throughput|Registers|Waves|Achieved" "$out/expert.ncu.txt" | head -20
