#!/usr/bin/env bash
# Prepared in session 2026-12-07 for the next session's first device call. On an H200 (unless
# PART=dev): the acceptance evaluations (2026-12-06j's callA.sh) of PAIRS (default below: the
# backward and TMA GEMM experts three times, the fp8 ones twice, the others once), within
# LIMIT_S less 45 s, into OUT/A (gpu.txt, evals.tar.gz, summary.txt). Elsewhere
# (bench/attention_dev/bwd_dev_call.sh, into OUT/dev.tar.gz), within LIMIT_S (as changed in
# session 2026-12-07b, which made the spill-free fused D 64 form the expert):
#   1. every case of the dev harness for `expert` (never run in full since) and `ov`
#      (bwd_fused_d64_overlap: the judged form, 8 bytes spilled), 60 s each at most;
#   2. interleaved rounds of the D 64 cases and two D 128 ones for `t3` (bwd_three_kernels_d64:
#      the three kernels at D 64, the expert before), `expert` and `ov`;
#   3. `ptxbench eval` of VARIANTS (default bwd_three_kernels_d64, bwd_fused_d64_overlap,
#      bwd_gqa_three_kernels_d64) beside their experts, interleaved rounds, the evidence in the
#      first, in what is left.
# Usage (repository root of the GPU machine): call4.sh BIN OUT [LIMIT_S=570]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker) and .carry/c9.tar.xz
#   (BIN/{expert,t3,ov}/bwd_dev, built at the last kernel commit:
#   bench/results/2026-12-07b-session/README.md)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}"
if [ "${PART:-}" != dev ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  PAIRS="${PAIRS:-sm90/gemm/bf16-llm:sm90_gemm_bf16_llm:1
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3 sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:2
sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:2 sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/attention/fwd-varlen:sm90_attention_fwd_varlen:1
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:1
sm90/gemm/bf16-wgmma:sm90_gemm_bf16_wgmma:1}" \
    bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 45))
  exit
fi
bash bench/attention_dev/bwd_dev_call.sh "$bin" "$out" "$limit" expert:60,ov:60 t3,expert,ov \
  "${VARIANTS:-bwd_three_kernels_d64,bwd_fused_d64_overlap,bwd_gqa_three_kernels_d64}"
