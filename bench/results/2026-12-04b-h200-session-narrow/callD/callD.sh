#!/usr/bin/env bash
# Call D: narrow whole-K tiles in the fp8 per-tensor expert (gemm_fp8_narrow): the probe harness
# (kernel alone) on few-row shapes, then `ptxbench eval` beside the expert without them (two
# rounds). Run from the repository root: callD.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callD; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/v" 1 fp8_nonarrow
s="$work/v/src"
timeout 120 bench/gemm_dev/probe.sh "$work/probe" "tensor:128,8192,8192 tensor:100,8000,4112 tensor:128,7168,5120" \
  "$s/expert_fp8_e4m3.cu" "$s/fp8_nonarrow.cu" > "$work/probe.log" 2>&1
PTXB_BUDGET_S=300 timeout 330 bench/gemm_dev/variants.sh "$bin" "$work/eval" 2 fp8_nonarrow \
  > "$work/eval.log" 2>&1
rm -rf "$work"/eval/cache "$work/probe"/*.so "$work/probe"/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/callD.tar.gz" .
echo "== probe"; cat "$work/probe/summary.txt"; echo "== eval"; tail -4 "$work/eval.log"
