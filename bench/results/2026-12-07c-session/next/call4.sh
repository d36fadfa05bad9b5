#!/usr/bin/env bash
# Session 2026-12-07c, call 4. On an H200: the acceptance evaluations (2026-12-06j's callA.sh)
# of PAIRS (default: the two fp8 experts three times each, for issue 19's judge time with the
# compile and the library's choices cached; the TMA GEMM and attention backward experts three
# times; the GQA backward once), within LIMIT_S less 40 s, into OUT/A. Elsewhere: the hostile
# submissions (tests/adversarial/run.sh, every tests/adversarial/*.cu and the control twice)
# with this session's binaries, whose worker now plans the library before the candidate loads;
# verdicts and logs packed into OUT/adv.tar.gz, the summary printed.
# Usage (repository root of the GPU machine): call4.sh BIN OUT [LIMIT_S=400]
#   BIN: .carry/lc.tar.xz (ptxbench, ptxbench-worker, ptxbench_gpu_tests)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-400}"
mkdir -p "$out"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  PAIRS="${PAIRS:-sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:3
sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:3
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3 sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:1}" \
    bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 40))
  exit
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv |
  tee "$out/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/advcache
mkdir -p /tmp/adv
timeout $((limit - 20)) bash tests/adversarial/run.sh "$bin" /tmp/adv > /tmp/adv/run.txt 2>&1
echo "run.sh exit $?"
tar -C /tmp/adv -czf "$out/adv.tar.gz" .
tail -60 /tmp/adv/run.txt
