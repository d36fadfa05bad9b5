#!/usr/bin/env bash
# Prepared in session 2026-12-07f for the next session's first device call (an H200):
# 1. three `ptxbench eval` of the TMA GEMM expert with the balanced persistent grid (issue 18's
#    median of 3 on one machine; kBalancedWaves has only been judged as the variant
#    `tma_balanced`, 2026-12-07e call 2; 8192^3 stays the open shape);
# 2. the serve quick tier through `serve` and its crowd (2026-12-07e's next/call5.sh; issue 26);
# 3. bench/probes/cudnn_plan_cache_probe.sh: whether cuDNN's serialized SDPA plans load in a fresh
#    process without the NVRTC compile and run as the built ones (issues 17 and 26: 2.3-2.7 s of
#    an attention evaluation's worker, 0.87 s of the quick tier's; docs/timing.md).
# Usage (repository root of the GPU machine): call1.sh BIN OUT
#   BIN: ptxbench, ptxbench-worker (and the rest of 2026-12-07e README's tar) of main at or after
#   this commit, carried as .carry/lc.tar.xz and unpacked to BIN.
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
PAIRS="sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3" \
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" 120 | tail -4
bash bench/results/2026-12-07e-session/next/call5.sh "$bin" "$out/serve" | tail -4
timeout 150 bash bench/probes/cudnn_plan_cache_probe.sh "$out/plan_cache" | tail -30
