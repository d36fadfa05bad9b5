#!/usr/bin/env bash
# Session 2026-12-06 (nineteenth), call A, after call Z (the monitor rules confirmed): on an H200,
# the acceptance numbers no H100 can give (bench/results/2026-12-05g-h100-session/next/callH200.sh:
# issues 18, 19, 20, 24); on any other GPU, the cp.async expert's unmeasured knobs (issue 18's
# >= 0.75): `wgmma_unchecked` (producer copies without bounds on interior tiles),
# `wgmma_uniformwg` (the warpgroup index made warp-uniform) and both, beside the expert, three
# rounds (judge_variants.sh), and the grouped GEMM with the uniform index. Output: OUT/A.tar.gz.
# NOTE: as run at 63bd7c5; the cp.async variants it names became the expert after it, and
# bench/gemm_dev/variants.sh now holds their inverses (README).
# Usage (repository root of the GPU machine): callA.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out/A"
a="$(cd "$out/A" && pwd)"
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$a/gpu.txt"
cat "$a/gpu.txt"
if grep -q H200 "$a/gpu.txt"; then
  timeout $((limit - 20)) bench/results/2026-12-05g-h100-session/next/callH200.sh "$bin" "$a/H" 2>&1 | tail -40
else
  bench/results/2026-12-05g-h100-session/next/judge_variants.sh "$bin" "$a/jv" \
    wgmma_unchecked,wgmma_uniformwg,wgmma_unchecked_uniformwg,grouped_uniformwg $((limit - 20)) 2>&1 | tail -30
fi
tar -C "$out" -czf "$out/A.tar.gz" A && rm -rf "$out/A"
echo "done after $((SECONDS - start)) s"
