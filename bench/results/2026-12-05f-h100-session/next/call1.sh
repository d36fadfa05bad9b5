#!/usr/bin/env bash
# Prepared in session 2026-12-05 (thirteenth) for the next device session, not run: the fp8
# experts' variants written without a GPU. (a) The fp8 probe harness, the kernels alone at four
# shapes: the block-scaled expert against `fp8b_streamk` (stream-K over the last partial wave,
# at least 8 full waves: 8192^3 only among these), `fp8b_streamk_min4` (4 waves: also 4096^3),
# `fp8b_stages4` (a ring of 4 stages: the stage index and phase without the multiply by 1/5) and
# both together (`fp8b_streamk_stages4`); the per-tensor expert against `fp8_stages4`. (b) `ptxbench eval` of the experts and the five
# variants, interleaved, two rounds (correctness first: the stream-K pieces and reduce_tail have
# never run), within what is left of the call.
# Usage (repository root of the GPU machine): call1.sh BIN OUT   (about 8-9 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=fp8b_streamk,fp8b_streamk_min4,fp8b_stages4,fp8b_streamk_stages4,fp8_stages4
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_block" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/fp8b_*.cu > "$out/probe_block.log" 2>&1
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe_tensor" \
  "tensor:4096,4096,4096 tensor:8192,8192,8192 tensor:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_e4m3.cu /tmp/vf/src/fp8_stages4.cu > "$out/probe_tensor.log" 2>&1
rm -rf "$out"/probe_*/*.so "$out"/probe_*/{gemm,fp8,grouped}_probe
tar -C "$out" -czf "$out/probes.tar.gz" probe_block probe_tensor && rm -rf "$out"/probe_block "$out"/probe_tensor
cat "$out/probe_block.log" "$out/probe_tensor.log"
echo "(a) done after $((SECONDS - start)) s"
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 40)) bench/gemm_dev/variants.sh "$bin" /tmp/vf 2 "$variants" \
  > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
tail -12 "$out/variants.log"
echo "(b) done after $((SECONDS - start)) s"
