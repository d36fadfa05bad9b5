#!/usr/bin/env bash
# Prepared in session 2026-12-06 (nineteenth), for an H200 after callH200.sh
# (bench/results/2026-12-05g-h100-session/next): the cp.async expert and the forward expert beside
# their forms before this session's change (variants `wgmma_checked_threadwg`, `fwd_threadwg`,
# `fwd_d256_threadwg`: the producer's bound on every copy and the thread-derived warpgroup index),
# three interleaved rounds, the evidence in the first. Issue 18 asks >= 0.75 of cuBLASLt on every
# timed shape of the cp.async task; the H200 read 0.70-0.73 at 8192^3 before. Exits at once on
# another GPU. Output: OUT/H2.tar.gz.
# Usage (repository root of the GPU machine): callH200b.sh BIN OUT [LIMIT_S=570]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}"; mkdir -p "$out/H2"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/H2/gpu.txt"
grep -q H200 "$out/H2/gpu.txt" || { echo "not an H200:"; cat "$out/H2/gpu.txt"; exit 3; }
bench/gemm_dev/judge_variants.sh "$bin" "$out/H2/jv" \
  wgmma_checked_threadwg,fwd_threadwg,fwd_d256_threadwg "$limit" 2>&1 | tail -30
tar -C "$out" -czf "$out/H2.tar.gz" H2 && rm -rf "$out/H2"
