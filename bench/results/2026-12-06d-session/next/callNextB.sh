#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-first), for the next device call on any GPU (never run):
# where the attention backward waits at D 64 after kStatsSharedAtUse and kDqOverlapNextStep
# (0.91 of cuDNN on an H100; issue 22 asks 0.98). Nsight Compute (--set full, source counters,
# clocks left alone) on one launch each of k1 and k2 at B4 H32 S4096 D64 in the dev harness, the
# stall reasons per SASS instruction (call 1 of this session profiled the expert before both);
# then the bwd-bf16 expert evaluated until the call's time is spent.
# Output: OUT/P64b.tar.gz, OUT/E.tar.gz.
# Usage (repository root of the GPU machine): callNextB.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; p=/tmp/P64b; mkdir -p "$p" /tmp/E; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
bench/attention_dev/bwd_profile.sh "$p" "S4096 D64 full"
head -40 "$p/stalls.txt"
tar -C /tmp -czf "$out/P64b.tar.gz" P64b
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/ecache
for r in 1 2 3; do
  [[ $((SECONDS - start)) -gt 480 ]] && break
  "$bin/ptxbench" eval kernels/reference/sm90_attention_bwd_bf16.cu --task sm90/attention/bwd-bf16 \
    --json-out "/tmp/E/expert_attention_bwd_bf16_$r.json" > "/tmp/E/expert_attention_bwd_bf16_$r.txt" 2>&1
done
python3 bench/speedup_lines.py /tmp/E
tar -C /tmp -czf "$out/E.tar.gz" E
