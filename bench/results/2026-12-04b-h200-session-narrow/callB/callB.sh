#!/usr/bin/env bash
# Call B: the narrow tiles as taken (one CTA, 8 stages, gated by plan_narrow) in the probe
# harness beside their knobs on the shapes the gate sends to them, then `ptxbench eval` of the TMA
# expert beside itself without them (3 rounds) and of the llm expert (its correctness shapes take
# them at M 128). Run from the repository root: callB.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callB; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/v" 1 \
  tma_nonarrow,tma_narrow_c2,tma_narrow_a_evict_last,tma_narrow_stages9
s="$work/v/src"
shapes="128,8192,8192 256,4096,8192 128,7168,5120 96,8192,4096 100,8192,4096 128,8100,4104"
timeout 170 bench/gemm_dev/probe.sh "$work/probe" "$shapes" "$s/expert_bf16_wgmma_tma.cu" \
  "$s/tma_nonarrow.cu" "$s/tma_narrow_c2.cu" "$s/tma_narrow_a_evict_last.cu" \
  "$s/tma_narrow_stages9.cu" > "$work/probe.log" 2>&1
PTXB_BUDGET_S=230 timeout 260 bench/gemm_dev/variants.sh "$bin" "$work/eval" 3 tma_nonarrow \
  > "$work/eval.log" 2>&1
PTXB_BUDGET_S=100 timeout 140 bench/gemm_dev/variants.sh "$bin" "$work/eval_llm" 1 llm_nonarrow \
  > "$work/eval_llm.log" 2>&1
rm -rf "$work"/eval*/cache "$work/probe"/*.so "$work/probe"/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/callB.tar.gz" .
echo "== probe"; cat "$work/probe/summary.txt"; echo "== eval"; tail -6 "$work/eval.log"; tail -2 "$work/eval_llm.log"
