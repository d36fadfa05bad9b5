#!/usr/bin/env bash
# Session 2026-12-06 (twenty-seventh), call A: the acceptance evaluations on an H200, written
# again after the first H200 in nine sessions ran callH200.sh (call3.sh of 2026-12-06i-session)
# into OUT/c2/H1, a folder three levels deep that the device did not return, and printed only the
# last 12 summary lines. `ptxbench eval` of each task:expert:rounds entry of PAIRS, round by
# round, none started after GATE seconds. The device returns few files and none deep: the
# verdicts (JSON, text, wall) are packed into OUT/evals.tar.gz after every evaluation (so a call
# cut short keeps what it did), the summary (bench/speedup_lines.py) is printed whole and kept in
# OUT/summary.txt, the GPU in OUT/gpu.txt: three files.
# Usage (repository root of the GPU machine): callA.sh BIN OUT [GATE=540]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" gate="${3:-540}" work=/tmp/evals; mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv |
  tee "$out/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/h200cache
default_pairs="sm90/gemm/bf16-llm:sm90_gemm_bf16_llm:1
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3 sm90/gemm/bf16-wgmma:sm90_gemm_bf16_wgmma:3
sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:3 sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:3
sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/attention/fwd-varlen:sm90_attention_fwd_varlen:3
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:3"
for r in 1 2 3; do
  for entry in ${PAIRS:-$default_pairs}; do
    IFS=: read -r task name rounds <<< "$entry"
    [ "$r" -gt "$rounds" ] && continue
    [ "$SECONDS" -gt "$gate" ] && { echo "time up before $name round $r"; break 2; }
    echo "$name round $r: $(bash bench/eval_with_wall.sh "$bin" "kernels/reference/$name.cu" \
      "$task" "$work" "${name}_$r") s"
    tar -C "$work" -czf "$out/evals.tar.gz" .
  done
done
python3 bench/speedup_lines.py "$work" | tee "$out/summary.txt"
