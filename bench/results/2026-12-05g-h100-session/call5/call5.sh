#!/usr/bin/env bash
# Session 2026-12-05 (fourteenth), call 5: the hostile submissions of the two experts changed this
# session, with them as controls: (a) the fp8 ones (control: the block-scaled expert with
# RingPosition), (b) the varlen ones (control: the varlen expert with dynamic slots); then (c)
# `ptxbench eval` of both experts as committed, once, within what is left.
# Usage (repository root of the GPU machine): call5.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null
PTXB_CONTROL=kernels/reference/sm90_gemm_fp8_blockwise.cu PTXB_CONTROL_TASK=sm90/gemm/fp8-blockwise \
  timeout $((limit - 60)) tests/adversarial/run.sh "$bin" "$out/cheats_fp8" /tmp/cheats-src/fp8_*.cu \
  > "$out/cheats_fp8.log" 2>&1
tail -9 "$out/cheats_fp8.log"
echo "(a) done after $((SECONDS - start)) s"
PTXB_CONTROL=kernels/reference/sm90_attention_fwd_varlen.cu PTXB_CONTROL_TASK=sm90/attention/fwd-varlen \
  timeout $((limit - 60 - (SECONDS - start))) tests/adversarial/run.sh "$bin" "$out/cheats_varlen" \
  /tmp/cheats-src/varlen_*.cu > "$out/cheats_varlen.log" 2>&1
tail -5 "$out/cheats_varlen.log"
echo "(b) done after $((SECONDS - start)) s"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/c5cache
for pair in fp8-blockwise:kernels/reference/sm90_gemm_fp8_blockwise.cu \
  fwd-varlen:kernels/reference/sm90_attention_fwd_varlen.cu; do
  task="${pair%%:*}" src="${pair#*:}"
  left=$((limit - 10 - (SECONDS - start)))
  [[ $left -lt 60 ]] && { echo "no time left for $task"; continue; }
  full="sm90/gemm/$task"; [[ $task == fwd-varlen ]] && full="sm90/attention/$task"
  timeout "$left" "$bin/ptxbench" eval "$src" --task "$full" --json-out "$out/eval_$task.json" \
    > "$out/eval_$task.txt" 2>&1
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(sys.argv[2], v['outcome'], ' / '.join(f\"{t['speedup']['median']:.3f}\" for t in v.get('timing', [])), v['stage_seconds'].get('worker'))" \
    "$out/eval_$task.json" "$task" 2>&1 | tail -1
done
tar -C "$out" -czf "$out/cheats.tar.gz" cheats_fp8 cheats_varlen && rm -rf "$out"/cheats_fp8 "$out"/cheats_varlen
echo "(c) done after $((SECONDS - start)) s"
