#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-first), for the device call after callNextC.sh (never
# run): `ptxbench eval` of the three backward variants callNextC.sh only times in the dev harness
# (`bwd_stats_prefetch`, `bwd_dq_pingpong`, `bwd_d64_uniformwg`) beside the expert, interleaved
# rounds within the call's time. Drop from the list what the harness showed slower.
# Output: OUT/F.tar.gz.
# Usage (repository root of the GPU machine): callNextD.sh BIN OUT [VARIANTS]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
variants="${3:-bwd_stats_prefetch,bwd_dq_pingpong,bwd_d64_uniformwg}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
bench/gemm_dev/judge_variants.sh "$bin" /tmp/F "$variants" 570 2>&1 | tail -24
tar -C /tmp -czf "$out/F.tar.gz" F
