#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-sixth). On an H200: the acceptance evaluations of
# callH200.sh (bench/results/2026-12-05g-h100-session/next) through h200_first.sh. On another GPU,
# in one call of at most 600 s: every case of the dev harness for `convert` and `clf` (never run
# before; their dQ is converted inside k1), one round of the seven timed D 128 cases for the six
# forms of call3.sh (2026-12-06h-session/next), then `ptxbench eval` of the fused form with
# kConvertInK1 and kLongestFirst (`bwd_fused_convert_longest_first` and its GQA form) beside the
# expert, interleaved rounds in what is left of the call.
# Usage (repository root of the GPU machine): call1.sh BIN OUT
#   BIN/{expert,rsts,diag,convert,lf,clf}/bwd_dev (.carry/c5.tar.xz); BIN/ptxbench* (z.tar.xz)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
source bench/results/2026-12-06h-session/next/h200_first.sh
FULL="convert clf" bash bench/results/2026-12-06h-session/next/call3.sh "$bin" "$out/c3" 1 |
  tail -20
left=$((585 - SECONDS))
echo "== judge, $left s left"
[ "$left" -gt 200 ] && bash bench/gemm_dev/judge_variants.sh "$bin" "$out/J" \
  bwd_fused_convert_longest_first,bwd_gqa_fused_convert_longest_first "$left"
