#!/usr/bin/env bash
# What caching the library's plan choices (eval/library_choices.hpp) saves and whether it keeps
# every verdict: first the GPU tests of the baselines' choices, then for each task:expert pair
# four `ptxbench eval` in one fresh cache folder: `cold` (compile, the library's plans timed and
# cached), `cached` (the cached choices taken untimed), `off` (PTXBENCH_LIBRARY_CHOICES=0: timed
# again, compile cached: the like-for-like comparison) and `cached2`. Verdicts, outputs and walls
# are packed into OUT/choices.tar.gz after each evaluation (a call cut short keeps what it did);
# then one line per evaluation (bench/speedup_lines.py) and the set-up phases and plan choices
# per evaluation (bench/summarize_library_choices.py), printed and kept in OUT/summary.txt. No
# evaluation is started after GATE seconds. MODES (environment) picks and orders the modes
# (default "cold cached off cached2"); GPU_TESTS (a gtest filter, default the baselines' tests;
# "none": skipped) picks the GPU tests.
# Usage (repository root of the GPU machine): library_choices_probe.sh BIN OUT [GATE=480] [PAIRS]
#   BIN: ptxbench, ptxbench-worker, ptxbench_gpu_tests; PAIRS: "task:expert ..." (default the
#   per-tensor fp8, TMA GEMM and attention backward experts)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" gate="${3:-480}"
pairs="${4:-sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3 sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma sm90/attention/bwd-bf16:sm90_attention_bwd_bf16}"
work=/tmp/choices_probe; mkdir -p "$out" "$work"; rm -rf /tmp/choicescache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv |
  tee "$work/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/choicescache
filter="${GPU_TESTS:-CublasLtChoices.*:CublasLtFp8.*:CudnnSdpaGpu.*}"
if [ "$filter" != none ]; then
  timeout 240 "$bin/ptxbench_gpu_tests" --gtest_filter="$filter" > "$work/gpu_tests.txt" 2>&1
  echo "gpu tests exit $?: $(grep -E '^\[  (PASSED|FAILED)' "$work/gpu_tests.txt" | tr '\n' ' ')"
fi
for entry in $pairs; do
  task="${entry%%:*}" expert="${entry#*:}"
  for mode in ${MODES:-cold cached off cached2}; do
    [ "$SECONDS" -gt "$gate" ] && { echo "time up before $expert $mode"; break 2; }
    flag=1; [ "$mode" = off ] && flag=0
    echo "$expert $mode: $(PTXBENCH_LIBRARY_CHOICES=$flag bash bench/eval_with_wall.sh "$bin" \
      "kernels/reference/$expert.cu" "$task" "$work" "${expert}-${mode}_1") s"
    tar -C "$work" -czf "$out/choices.tar.gz" .
  done
done
ls /tmp/choicescache/library-choices > "$work/cache_files.txt" 2>&1
tar -C "$work" -czf "$out/choices.tar.gz" .
{ python3 bench/speedup_lines.py "$work"; python3 bench/summarize_library_choices.py "$work"; } |
  tee "$out/summary.txt"
