#!/usr/bin/env bash
# Prepared in session 2026-12-07c for the next session's first device call: `ptxbench eval` of
# PAIRS (2026-12-06j's callA.sh, round by round, none started after LIMIT_S less 40 s) with the
# compile and the library's plan choices cached after each expert's first evaluation. On an H200
# these are acceptance evaluations: issue 19's judge time (the rule: 5 s + 1.5 s a timed shape =
# 11 s for the fp8 tasks, median of the cached evaluations) and speedups, issue 18's TMA GEMM,
# issue 22's backward expert (the fused D 64 form since 2026-12-07b), issue 24's GQA backward and
# variable-length forward. Elsewhere the same evaluations, indicative only. First (15 s), when BIN
# has ptxbench-range-probe: bench/probes/availability_probe.sh into OUT/av.
# Usage (repository root of the GPU machine): call6.sh BIN OUT [LIMIT_S=570]
#   BIN: .carry/lc.tar.xz (ptxbench, ptxbench-worker) of main at or after 1525c06; a fresh
#   checkout builds it with scripts/build.sh, then
#   `tar -cJf .carry/lc.tar.xz -C build/release ptxbench ptxbench-worker ptxbench_gpu_tests
#   ptxbench-range-probe`.
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}"
[ -x "$bin/ptxbench-range-probe" ] && bash bench/probes/availability_probe.sh "$bin" "$out/av" 3
PAIRS="${PAIRS:-sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:3
sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:3
sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:3
sm90/attention/fwd-varlen:sm90_attention_fwd_varlen:2}" \
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 40 - SECONDS))
