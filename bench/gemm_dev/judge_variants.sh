#!/usr/bin/env bash
# `ptxbench eval` of the named variants of bench/gemm_dev/variants.sh and their experts,
# interleaved, three rounds with the instruction evidence in the first only (PTXB_EVIDENCE_ROUNDS=R:
# in the first R; written in session 2026-12-05 under its results' next/, which keeps a link),
# within LIMIT_S seconds (the device's 600 s a call, less what the caller spent); the verdicts
# packed into OUT/variants.tar.gz, the summary printed (each variant's speedups over its expert's
# in the same round last).
# Usage (repository root of the GPU machine): judge_variants.sh BIN OUT VARIANTS [LIMIT_S=570]
set -uo pipefail
bin="$1" out="$2" variants="$3" limit="${4:-570}"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_BUDGET_S=$((limit - 40)) PTXB_EVIDENCE_ROUNDS="${PTXB_EVIDENCE_ROUNDS:-1}" \
  bench/gemm_dev/variants.sh "$bin" /tmp/vf 3 "$variants" > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
grep -E "json|round\(s\)|^variant /" "$out/variants.log"
