#!/usr/bin/env bash
# Session 2026-12-07e, call 3: the quick tier's latency with the compile and the library's plan
# choices cached (issue 26: `ptxbench eval --quick`, the TMA GEMM and attention forward experts,
# one warming evaluation then two timed), then three full evaluations of the TMA GEMM expert on
# one machine (issue 18's median of 3). Usage: call3.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" work=/tmp/q; mkdir -p "$out" "$work"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/h200cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee "$out/gpu.txt"
quick() {  # TASK NAME TAG
  local t0; t0=$(date +%s.%N)
  "$bin/ptxbench" eval "kernels/reference/$2.cu" --task "$1" --quick --json-out "$work/$2_quick_$3.json" > "$work/$2_quick_$3.txt" 2>&1
  python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" "$(date +%s.%N)" "$t0" > "$work/$2_quick_$3.wall"
  echo "quick $2 $3: $(cat "$work/$2_quick_$3.wall") s $(python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(v['outcome'], v.get('tier'), v['compile']['cached'], {k: round(x, 2) for k, x in v['stage_seconds'].items() if isinstance(x, float)})" "$work/$2_quick_$3.json")"
}
for tag in warm 1 2; do quick sm90/gemm/bf16-wgmma-tma sm90_gemm_bf16_wgmma_tma $tag; done
for tag in warm 1 2; do quick sm90/attention/fwd-bf16 sm90_attention_fwd_bf16 $tag; done
for r in 1 2 3; do
  echo "tma full $r: $(bash bench/eval_with_wall.sh "$bin" kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma "$work" "sm90_gemm_bf16_wgmma_tma_$r") s"
done
tar -C "$work" -czf "$out/evals.tar.gz" .
python3 bench/speedup_lines.py "$work" | tee "$out/summary.txt"
