#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth) for the next device session, not run: the attention
# backward expert's instruction overhead. `kStepDescriptors` (off; 4-8% fewer instructions in its
# dK/dV and dQ kernels, SASS counted here) alone and with the warpgroup index made warp-uniform
# (5-11% fewer again): `ptxbench eval` of the expert on the dense and GQA backward tasks against
# `bwd_stepdesc`, `bwd_stepdesc_uniformwg` and `bwd_gqa_stepdesc_uniformwg`, interleaved, three
# rounds (the evidence in the first only) within the call (the last may be cut short).
# Usage (repository root of the GPU machine): callB.sh BIN OUT   (about 9 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=bwd_stepdesc,bwd_stepdesc_uniformwg,bwd_gqa_stepdesc_uniformwg
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
