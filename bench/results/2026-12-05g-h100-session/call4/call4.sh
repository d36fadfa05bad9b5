#!/usr/bin/env bash
# Session 2026-12-05 (fourteenth), call 4: the fp8 experts' ring position advanced one k-block at
# a time (RingPosition: stage and phase, no `% kStages` / `/ kStages` of a running count; kStages is
# 5 for the block-scaled expert, 6 for the per-tensor one) against the experts of 3ef087e (`old/`,
# written from git before the call). (a) The probe harness, kernels alone; (b) `ptxbench eval`,
# the new experts, the old ones and the 4-stage variants (now on RingPosition too), interleaved,
# two rounds.
# Usage (repository root of the GPU machine, old/ holding 3ef087e's two fp8 experts):
#   call4.sh BIN OUT   (about 5-6 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=fp8b_stages4,fp8_stages4
PTXB_SOURCES_ONLY=1 PTXB_OLD_EXPERTS=old bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" \
  > "$out/sources.log" 2>&1 || { cat "$out/sources.log"; exit 1; }
cp old/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/old_block.cu
cp old/sm90_gemm_fp8_e4m3.cu /tmp/vf/src/old_tensor.cu
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_block" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/old_block.cu \
  /tmp/vf/src/fp8b_stages4.cu > "$out/probe_block.log" 2>&1
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_tensor" \
  "tensor:4096,4096,4096 tensor:8192,8192,8192 tensor:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_e4m3.cu /tmp/vf/src/old_tensor.cu > "$out/probe_tensor.log" 2>&1
rm -rf "$out"/probe_*/*.so "$out"/probe_*/{gemm,fp8,grouped}_probe
tar -C "$out" -czf "$out/probes.tar.gz" probe_block probe_tensor && rm -rf "$out"/probe_block "$out"/probe_tensor
cat "$out/probe_block.log" "$out/probe_tensor.log"
echo "(a) done after $((SECONDS - start)) s"
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 40)) PTXB_OLD_EXPERTS=old bench/gemm_dev/variants.sh "$bin" /tmp/vf 2 \
  "$variants" > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
grep json "$out/variants.log"
echo "(b) done after $((SECONDS - start)) s"
