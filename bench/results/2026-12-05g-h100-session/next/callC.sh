#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth) for the next device session, not run: the D 96
# backward task with stepped descriptors (`bwd_d96_stepdesc`) and the attention forward expert with
# the warpgroup index made warp-uniform (`fwd_uniformwg`, `fwd_d256_uniformwg` on the D 256 task:
# 1.4-6.1% fewer instructions in its kernels, D 256 the most), against their experts,
# interleaved, three rounds (the evidence in the first only) within the call.
# Usage (repository root of the GPU machine): callC.sh BIN OUT   (about 9 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=bwd_d96_stepdesc,fwd_uniformwg,fwd_d256_uniformwg
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
echo "(a) done after $((SECONDS - start)) s"
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 40)) PTXB_EVIDENCE_ROUNDS=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 3 \
  "$variants" \
  > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
grep -E "json|round\(s\)|^variant /" "$out/variants.log"
echo "(b) done after $((SECONDS - start)) s"
