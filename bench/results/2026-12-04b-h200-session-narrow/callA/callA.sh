#!/usr/bin/env bash
# Call A: the narrow few-row tiles (kernels/gemm/sm90_gemm_bf16_narrow.cuh) in the probe harness
# (kernel and cuBLASLt side by side, C compared) on few-row and edge shapes, then judged by
# `ptxbench eval` beside the same experts without them (one round). Run from the repository root
# with the judging binaries in BIN: callA.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callA; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/v" 1 \
  tma_nonarrow,tma_narrow_c1,tma_narrow_nohint,tma_narrow_stages6,llm_nonarrow
s="$work/v/src"
shapes="128,8192,8192 16,4096,14336 64,5120,17408 1,4096,4096 200,3000,4096 77,1001,2056 33,937,2056 4000,3000,2000"
timeout 200 bench/gemm_dev/probe.sh "$work/probe" "$shapes" "$s/expert_bf16_wgmma_tma.cu" \
  "$s/tma_nonarrow.cu" "$s/tma_narrow_c1.cu" "$s/tma_narrow_nohint.cu" "$s/tma_narrow_stages6.cu" \
  > "$work/probe.log" 2>&1
PTXB_BUDGET_S=300 timeout 330 bench/gemm_dev/variants.sh "$bin" "$work/eval" 1 tma_nonarrow,llm_nonarrow \
  > "$work/eval.log" 2>&1
rm -rf "$work/eval/cache" "$work/v/cache"
tar -C "$work" -czf "$out/callA.tar.gz" .
echo "== probe"; cat "$work/probe/summary.txt"; echo "== eval"; tail -8 "$work/eval.log"
