#!/usr/bin/env bash
# Session 2026-12-05 (fifteenth), prepared, not run (no machine came): the experts as changed
# after calls 1-2 (warpgroup_index(), stepped descriptors in the bf16 ring and the attention
# backward, st.shared staging stores). (a) One `ptxbench eval` of the experts that no GPU has
# judged in their committed form (both fp8 ones, the production-shape and the grouped one: call 3
# ran them only in the probe harnesses, which for fp8 and grouped do not compare results);
# then their hostile submissions, with a changed expert as the control (one evaluation at the
# start and one at the end of each group): (b) attention/ (control: the GQA backward expert),
# (c) llm/, (d) grouped/, (e) fp8/ (the block-scaled expert); each step skipped when less than
# its estimate is left of LIMIT_S.
# Usage (repository root of the GPU machine): callD.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null || exit 1
left() { echo $((limit - 10 - (SECONDS - start))); }
group() {  # group NAME CONTROL TASK ESTIMATE_S FILES...
  local name="$1" control="$2" task="$3" estimate="$4"; shift 4
  [[ $(left) -lt $estimate ]] && { echo "$name: skipped, $(left) s left"; return; }
  PTXB_CONTROL="$control" PTXB_CONTROL_TASK="$task" timeout "$(left)" \
    tests/adversarial/run.sh "$bin" "$out/cheats_$name" "$@" > "$out/cheats_$name.log" 2>&1
  echo "== $name (after $((SECONDS - start)) s)"; tail -n $(($# + 4)) "$out/cheats_$name.log"
}
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/dcache
for pair in gemm/fp8-blockwise:sm90_gemm_fp8_blockwise gemm/fp8-e4m3:sm90_gemm_fp8_e4m3 \
  gemm/bf16-llm:sm90_gemm_bf16_llm gemm/bf16-grouped:sm90_gemm_bf16_grouped; do
  task="sm90/${pair%%:*}" name="${pair#*:}"
  [[ $(left) -lt 45 ]] && { echo "$name: skipped, $(left) s left"; continue; }
  timeout "$(left)" "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
    --json-out "$out/$name.json" > "$out/$name.txt" 2>&1
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(sys.argv[2], v['outcome'], ' / '.join(f\"{t['speedup']['median']:.3f}\" for t in v.get('timing', [])))" \
    "$out/$name.json" "$name" 2>&1 | tail -1
done
group attention kernels/reference/sm90_attention_bwd_bf16_gqa.cu sm90/attention/bwd-bf16-gqa 120 \
  /tmp/cheats-src/attention_*.cu
group llm kernels/reference/sm90_gemm_bf16_llm.cu sm90/gemm/bf16-llm 100 /tmp/cheats-src/llm_*.cu
group grouped kernels/reference/sm90_gemm_bf16_grouped.cu sm90/gemm/bf16-grouped 100 \
  /tmp/cheats-src/grouped_*.cu
group fp8 kernels/reference/sm90_gemm_fp8_blockwise.cu sm90/gemm/fp8-blockwise 150 \
  /tmp/cheats-src/fp8_*.cu
tar -C "$out" -czf "$out/cheats.tar.gz" $(cd "$out" && ls -d cheats_*/ 2>/dev/null) &&
  rm -rf "$out"/cheats_*/
echo "done after $((SECONDS - start)) s"
