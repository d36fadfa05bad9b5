#!/usr/bin/env bash
# Session 2026-12-07b (twenty-ninth), first device call. On an H200: the acceptance evaluations of
# 2026-12-07's call4.sh (OUT/A), nothing else. Elsewhere, within LIMIT_S:
#   1. bench/attention_dev/bwd_dev_call.sh within DEV_S (into OUT/dev.tar.gz): every case of the
#      dev harness for `fl` (bwd_fused_d64_long: the fused form at D 64 with kFusedD64DvBeforeDs,
#      spill-free, never run), TIMING_ROUNDS (2) timing rounds of the expert and `fl`, and with
#      more than 120 s of DEV_S left `ptxbench eval` of VARIANTS beside the expert (ran as
#      bwd_fused_d64_long; since that form became the expert, bwd_three_kernels_d64);
#   2. bench/timing_block_probe.sh in what is left (into OUT/block.tar.gz): the per-tensor fp8 and
#      TMA GEMM experts (BLOCK_PAIRS to change) judged with cold rounds of 8, 16 and 32 calls,
#      interleaved.
# Usage (repository root of the GPU machine): call1.sh BIN OUT [LIMIT_S=560] [DEV_S=380]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker) and .carry/c9.tar.xz (BIN/{expert,fl,ov}/bwd_dev)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}" dev="${4:-380}"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash bench/results/2026-12-07-session/next/call4.sh "$bin" "$out" "$limit"
  exit
fi
TIMING_ROUNDS="${TIMING_ROUNDS:-2}" TIMING_GATE_S=200 bash bench/attention_dev/bwd_dev_call.sh \
  "$bin" "$out" "$dev" fl:60 expert,fl "${VARIANTS:-bwd_three_kernels_d64}"
left=$((limit - SECONDS))
echo "== block probe, $left s left"
[ "$left" -gt 90 ] &&
  bash bench/timing_block_probe.sh "$bin" "$out" 2 "8 16 32" $((left - 30)) "${BLOCK_PAIRS:-}"
