#!/usr/bin/env bash
# Session 2026-12-06 (twenty-fourth), the first call. On an H200: callH200.sh of
# bench/results/2026-12-05g-h100-session/next (the acceptance evaluations of issues 18, 19, 20 and
# 24; its time gate at 500 s so that the summary and the tar fit the call). On another GPU:
# bench/attention_dev/bwd_census.sh (cuDNN's backward kernels beside the expert's, Nsight
# Compute), for issue 22's next design step.
# Usage (repository root of the GPU machine): call1.sh BIN OUT
#   BIN: ptxbench, ptxbench-worker, ptxbench-library-profile and bwd_dev (the dev harness)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv \
  > "$out/gpu.txt"
cat "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  sed 's/-gt 540/-gt 500/' bench/results/2026-12-05g-h100-session/next/callH200.sh > /tmp/callH200.sh
  timeout 585 bash /tmp/callH200.sh "$bin" "$out/H1"
  exit
fi
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
timeout 560 bench/attention_dev/bwd_census.sh "$bin" "$bin/bwd_dev" /tmp/census
tar -C /tmp -czf "$out/census.tar.gz" --exclude='*.ncu-rep' census
tar -C /tmp -czf /tmp/reps.tar.gz --exclude='*.csv' --exclude='*.log' --exclude='*.txt' census
split -b 15M -d /tmp/reps.tar.gz "$out/reps.tar.gz."
ls -la "$out"
