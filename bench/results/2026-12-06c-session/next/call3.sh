#!/usr/bin/env bash
# Session 2026-12-06 (twentieth), third device call. On an H200 the acceptance evaluations
# (callH200.sh of 2026-12-05g). On another GPU: `ptxbench eval` of the attention backward with its
# step's LSE and Delta read early by ld.shared (kStatsEarly: Nsight Compute in call 2 put 11% of
# k1's stall samples on the generic loads it replaces), the three backward tasks, interleaved
# rounds beside their experts within the call's time.
# Output: OUT/H.tar.gz or OUT/S.tar.gz.
# Usage (repository root of the GPU machine): call3.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  bench/results/2026-12-05g-h100-session/next/callH200.sh "$bin" /tmp/H | tail -40
  tar -C /tmp -czf "$out/H.tar.gz" H
  echo "call3 done after $((SECONDS - start)) s"; exit 0
fi
bench/gemm_dev/judge_variants.sh "$bin" /tmp/S bwd_stats_early,bwd_gqa_stats_early,bwd_d96_stats_early \
  $((580 - (SECONDS - start))) 2>&1 | tail -30
tar -C /tmp -czf "$out/S.tar.gz" S
echo "call3 done after $((SECONDS - start)) s"
