#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-fifth), not yet run. On an H200: the acceptance
# evaluations of callH200.sh (bench/results/2026-12-05g-h100-session/next), its time gate
# H200_GATE seconds (default 500). On another GPU: `ptxbench eval` of the fused backward with its
# causal k1 CTAs longest first (`kLongestFirst`) and of the three-kernel expert with the same
# order, beside the expert, interleaved rounds within LIMIT_S (default 560) seconds, the evidence
# in round 1 only: `bwd_fused_longest_first`, `bwd_gqa_fused_longest_first`, `bwd_longest_first`,
# `bwd_gqa_longest_first` (VARIANTS overrides the list).
# Usage (repository root of the GPU machine): call2.sh BIN OUT [LIMIT_S]
#   BIN: ptxbench, ptxbench-worker (.carry/z.tar.xz)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}"; mkdir -p "$out"
source bench/results/2026-12-06h-session/next/h200_first.sh
variants="${VARIANTS:-bwd_fused_longest_first,bwd_gqa_fused_longest_first,bwd_longest_first,bwd_gqa_longest_first}"
bash bench/gemm_dev/judge_variants.sh "$bin" "$out/L" "$variants" "$limit"
