#!/usr/bin/env bash
# Session 2026-12-05 (tenth), call 3 (not run: no machine was lent; for the next session):
# issue 19's block-scaled fp8 expert with its scales loaded by TMA with each stage into shared
# memory (kStagedScales, variant `fp8b_staged`; `fp8b_staged_cluster2` with pairs of CTAs sharing B by
# multicast, kGroupM 8, as the per-tensor expert runs) beside the expert (scales loaded from
# global memory by the consumers): the kernels alone in the fp8 probe harness on the four timed
# shapes, then `ptxbench eval` of all three, interleaved, 3 rounds (every correctness case first,
# so a wrong scale slot shows as `incorrect`).
# Usage (repository root of the GPU machine): call3.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
variants=fp8b_staged,fp8b_staged_cluster2
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/v3 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
timeout 200 bench/gemm_dev/probe.sh /tmp/p3 \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  /tmp/v3/src/expert_fp8_blockwise.cu /tmp/v3/src/fp8b_staged.cu /tmp/v3/src/fp8b_staged_cluster2.cu \
  > "$out/probe.log" 2>&1
echo "probe: exit $? after $((SECONDS - start)) s"
tail -10 "$out/probe.log"
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/v3 3 "$variants" \
  > "$out/variants.log" 2>&1
tar -C /tmp/v3 --exclude=cache -czf "$out/variants.tar.gz" .
tar -C /tmp/p3 --exclude='*.so' --exclude='*_probe' -czf "$out/probe.tar.gz" .
tail -12 "$out/variants.log"
