#!/usr/bin/env bash
# Prepared in session 2026-12-07e for the next session's first device call (an H200 for the
# acceptance numbers; elsewhere indicative):
# 1. three `ptxbench eval` of the TMA GEMM expert with the balanced persistent grid (issue 18's
#    median of 3 on one machine; kBalancedWaves went on after 2026-12-07e's call 2, judged there
#    only as the variant `tma_balanced`);
# 2. the attention backward's two nearest variants beside the expert (issue 22: the non-causal
#    D 128 shapes 0.937-0.949 of cuDNN on the H200, the bar 0.95): `bwd_fused_all_lengths` (the
#    fused dQ form at S 4096 too; H100: 0.974 of the expert there) and `bwd_diagloop` (H100,
#    before kStatsEarly: 1.012 / 1.000 / 1.009 / 1.005 / 1.005 / 1.006 of the expert), two rounds,
#    the evidence in the first only, none started after LIMIT_S less 60 s.
# Usage (repository root of the GPU machine): call1.sh BIN OUT [LIMIT_S=560]
#   BIN: ptxbench, ptxbench-worker of main at or after this commit (scripts/build.sh, then
#   `tar -cJf .carry/lc.tar.xz -C build/release ptxbench ptxbench-worker ptxbench_gpu_tests
#   ptxbench-range-probe`, carried and unpacked as in 2026-12-07e's README).
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
PAIRS="sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3" \
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" 120 | tail -4
PTXB_BUDGET_S=$((limit - 60 - SECONDS)) PTXB_EVIDENCE_ROUNDS=1 \
  bash bench/gemm_dev/variants.sh "$bin" /tmp/var 2 bwd_fused_all_lengths,bwd_diagloop \
  > "$out/variants.txt" 2>&1
tail -14 "$out/variants.txt"
tar -czf "$out/variants.tar.gz" --exclude=cache --exclude=src -C /tmp var 2>/dev/null
