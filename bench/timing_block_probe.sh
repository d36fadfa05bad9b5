#!/usr/bin/env bash
# What the cold round's block size (PTXBENCH_TIMING_BLOCK: candidate calls per round, one counter
# range) costs and gives: `ptxbench eval` of each task:expert pair with each block size,
# interleaved round by round (the block sizes alternate their order), the verdicts and walls
# packed into OUT/block.tar.gz after each evaluation (a call cut short keeps what it did), then
# one line per evaluation (bench/speedup_lines.py) and the rounds, samples and the worker's
# round phases per shape and block size (bench/summarize_block_probe.py), printed and kept in
# OUT/summary.txt. None is started after GATE seconds.
# Usage (repository root of the GPU machine):
#   timing_block_probe.sh BIN OUT [ROUNDS=2] [BLOCKS="8 16"] [GATE=400] [PAIRS]
#   BIN: ptxbench, ptxbench-worker; PAIRS: "task:expert ..." (default the per-tensor fp8 and the
#   TMA GEMM experts)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-2}" blocks="${4:-8 16}" gate="${5:-400}"
pairs="${6:-sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3 sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma}"
work=/tmp/block_probe; mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv |
  tee "$work/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/blockcache
for r in $(seq 1 "$rounds"); do
  order="$blocks"
  [ $((r % 2)) = 0 ] && order="$(echo "$blocks" | tr ' ' '\n' | tac | tr '\n' ' ')"
  for entry in $pairs; do
    for b in $order; do
      [ "$SECONDS" -gt "$gate" ] && { echo "time up before $entry block $b round $r"; break 3; }
      task="${entry%%:*}" name="${entry#*:}-b$b"
      echo "$name round $r: $(PTXBENCH_TIMING_BLOCK="$b" bash bench/eval_with_wall.sh "$bin" \
        "kernels/reference/${entry#*:}.cu" "$task" "$work" "${name}_$r") s"
      tar -C "$work" -czf "$out/block.tar.gz" .
    done
  done
done
{ python3 bench/speedup_lines.py "$work"; python3 bench/summarize_block_probe.py "$work"; } |
  tee "$out/summary.txt"
