#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth) for the next device session, not run: instruction
# overhead in the GEMM experts' consumers. (a) The fp8 probe harness, kernels alone: each fp8
# expert (descriptors stepped since calls 7-8 of this folder, one round) against its variant with
# them formed per k-slice again (`fp8b_slicedesc`, `fp8_slicedesc`) and with the warpgroup index
# made warp-uniform (`fp8b_uniformwg`, `fp8_uniformwg`: 89 -> 76 instructions besides the FFMAs
# in two k-blocks of the block-scaled loop). (b) `ptxbench eval`, interleaved, three rounds (the
# evidence in the first only): those, and the bf16 experts against `tma_stepdesc`,
# `tma_uniformwg`, `tma_stepdesc_uniformwg`, `wgmma_stepdesc`, within what is left of the call.
# Usage (repository root of the GPU machine): callA.sh BIN OUT   (about 9 minutes; the last round
# may be cut short)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=fp8b_slicedesc,fp8_slicedesc,fp8b_uniformwg,fp8_uniformwg,tma_stepdesc,tma_uniformwg,tma_stepdesc_uniformwg,wgmma_stepdesc
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_block" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/fp8b_*.cu > "$out/probe_block.log" 2>&1
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_tensor" \
  "tensor:4096,4096,4096 tensor:8192,8192,8192 tensor:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_e4m3.cu /tmp/vf/src/fp8_slicedesc.cu /tmp/vf/src/fp8_uniformwg.cu > "$out/probe_tensor.log" 2>&1
rm -rf "$out"/probe_*/*.so "$out"/probe_*/{gemm,fp8,grouped}_probe
tar -C "$out" -czf "$out/probes.tar.gz" probe_block probe_tensor && rm -rf "$out"/probe_block "$out"/probe_tensor
cat "$out/probe_block.log" "$out/probe_tensor.log"
echo "(a) done after $((SECONDS - start)) s"
"$(dirname "${BASH_SOURCE[0]}")/judge_variants.sh" "$bin" "$out" "$variants" $((570 - (SECONDS - start)))
echo "(b) done after $((SECONDS - start)) s"
