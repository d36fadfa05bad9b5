#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth), for the first call that lands on an H200 (never
# run): the acceptance numbers the H100 sessions could not give. Three `ptxbench eval` of each
# expert whose issue names H200 numbers, one after the other on one machine start (issue 19: both
# fp8 experts; issue 24: the varlen forward with dynamic slots and the GQA backward; issue 18: the
# TMA and cp.async GEMM experts; issue 20: the production-shape expert, once), then a summary:
# outcome, cold and sustained speedups per timed shape, stage seconds (the budget rule of issue
# 17). Exits at once on another GPU (the numbers would not count).
# Usage (repository root of the GPU machine): callH200.sh BIN OUT   (about 6-9 minutes)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
grep -q H200 "$out/gpu.txt" || { echo "not an H200:"; cat "$out/gpu.txt"; exit 3; }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/h200cache
start=$SECONDS
# Issue 20 asks for one passed evaluation of the production-shape expert (added in session 17).
"$bin/ptxbench" eval kernels/reference/sm90_gemm_bf16_llm.cu --task sm90/gemm/bf16-llm \
  --json-out "$out/sm90_gemm_bf16_llm_1.json" > "$out/sm90_gemm_bf16_llm_1.txt" 2>&1
for r in 1 2 3; do
  for pair in sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3 sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise \
    sm90/attention/fwd-varlen:sm90_attention_fwd_varlen \
    sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa \
    sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma sm90/gemm/bf16-wgmma:sm90_gemm_bf16_wgmma; do
    task="${pair%%:*}" name="${pair#*:}"
    [[ $((SECONDS - start)) -gt 540 ]] && { echo "time up before $name round $r"; break 2; }
    t0=$(date +%s.%N)
    "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
      --json-out "$out/${name}_$r.json" > "$out/${name}_$r.txt" 2>&1
    python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" \
      "$(date +%s.%N)" "$t0" > "$out/${name}_$r.wall"
  done
done
python3 bench/speedup_lines.py "$out"
tar -C "$out" -czf "$out/verdicts.tar.gz" --exclude=verdicts.tar.gz --exclude=gpu.txt . 2>/dev/null
find "$out" -maxdepth 1 -type f ! -name verdicts.tar.gz ! -name gpu.txt -delete
