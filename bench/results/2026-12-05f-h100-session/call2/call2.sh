#!/usr/bin/env bash
# Call 2 (session 2026-12-05, thirteenth): the block-scaled fp8 expert with its scales staged by
# TMA (kStagedScales on since this session). (a) The fp8 probe harness, the kernels alone at four
# shapes: the expert against `fp8b_unstaged`, `fp8b_groupm8`, `fp8b_cluster2` and
# `fp8b_cluster2_groupm8`; (b) the generated fp8 hostile submissions (tests/adversarial/fp8, one
# of them wraps this expert); (c) Nsight Compute's per-instruction view of one 4096^3 launch of
# the expert (PTXB_PROBE_NCU=1); (d) `ptxbench eval` of the expert and the four variants,
# interleaved, two rounds, within what is left of the call.
# Usage (repository root of the GPU machine): call2.sh BIN OUT   (about 8-9 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
variants=fp8b_unstaged,fp8b_groupm8,fp8b_cluster2,fp8b_cluster2_groupm8
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" \
  > "$out/sources.log" 2>&1 || { cat "$out/sources.log"; exit 1; }
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/fp8b_*.cu > "$out/probe.log" 2>&1
rm -f "$out"/probe/*.so "$out"/probe/{gemm,fp8,grouped}_probe
cat "$out/probe/summary.txt"
echo "(a) done after $((SECONDS - start)) s"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null
PTXB_CONTROL=kernels/reference/sm90_gemm_fp8_blockwise.cu PTXB_CONTROL_TASK=sm90/gemm/fp8-blockwise \
  tests/adversarial/run.sh "$bin" "$out/cheats" /tmp/cheats-src/fp8_*.cu > "$out/cheats.log" 2>&1
tail -9 "$out/cheats.log"
echo "(b) done after $((SECONDS - start)) s"
PTXB_PROBE_NCU=1 timeout 150 bench/gemm_dev/probe.sh "$out/ncu" "block:4096,4096,4096" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu > "$out/ncu.log" 2>&1
rm -f "$out"/ncu/*.so "$out"/ncu/{gemm,fp8,grouped}_probe
echo "(c) done after $((SECONDS - start)) s: $(ls "$out/ncu" | tr '\n' ' ')"
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 40)) bench/gemm_dev/variants.sh "$bin" /tmp/vf 2 "$variants" \
  > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
tail -12 "$out/variants.log"
echo "(d) done after $((SECONDS - start)) s"
