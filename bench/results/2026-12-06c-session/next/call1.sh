#!/usr/bin/env bash
# Session 2026-12-06 (twentieth), first device call. On an H200 the acceptance evaluations
# (callH200.sh of 2026-12-05g: issues 18, 19, 20, 24), on another GPU the wgmma rate probe
# (bench/probes) and the attention backward's overlapped steps (callNext.sh of 2026-12-06b).
# Output: OUT/H.tar.gz, or OUT/probe.txt and OUT/N.tar.gz.
# Usage (repository root of the GPU machine): call1.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  bench/results/2026-12-05g-h100-session/next/callH200.sh "$bin" /tmp/H | tail -40
  tar -C /tmp -czf "$out/H.tar.gz" H
else
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels \
    bench/probes/wgmma_rate_probe.cu -o /tmp/wgmma_rate_probe && /tmp/wgmma_rate_probe 2000 | tee "$out/probe.txt"
  bench/results/2026-12-06b-session/next/callNext.sh "$bin" "$out" $((575 - (SECONDS - start)))
fi
echo "call1 done after $((SECONDS - start)) s"
