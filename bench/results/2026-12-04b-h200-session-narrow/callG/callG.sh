#!/usr/bin/env bash
# Call G: the block-scaled expert's scales staged with each stage (kScaleSlots: a warp of the
# producer warpgroup copies them into a slot per stage with cp.async; 5 stages) beside the expert
# without (global loads, 6 stages) and without at 5 stages: the fp8 probe harness (kernel alone)
# on the timed shapes, `ptxbench eval` side by side (two rounds), and the block-scaled cheat.
# Run from the repository root: callG.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callG; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/v" 1 fp8b_noslots,fp8b_noslots_stages5
s="$work/v/src"
timeout 150 bench/gemm_dev/probe.sh "$work/probe" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048 block:1537,2056,784" \
  "$s/expert_fp8_blockwise.cu" "$s/fp8b_noslots.cu" "$s/fp8b_noslots_stages5.cu" > "$work/probe.log" 2>&1
PTXB_BUDGET_S=200 timeout 230 bench/gemm_dev/variants.sh "$bin" "$work/eval" 2 fp8b_noslots \
  > "$work/eval.log" 2>&1
tests/adversarial/make_cheats.sh "$work/cheats-src" > /dev/null
timeout 90 tests/adversarial/run.sh "$bin" "$work/cheats" "$work/cheats-src/fp8_blockwise_one_scale.cu" \
  > "$work/cheats.log" 2>&1
rm -rf "$work"/eval/cache "$work/cheats-src" "$work/probe"/*.so "$work/probe"/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/callG.tar.gz" .
echo "== probe"; cat "$work/probe/summary.txt"; echo "== eval"; tail -4 "$work/eval.log"; tail -3 "$work/cheats.log"
