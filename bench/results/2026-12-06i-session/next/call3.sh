#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-sixth), not yet run: everything the next device call
# should do, in one machine start. On an H200: the acceptance evaluations (call2.sh's first
# branch). Elsewhere: call2.sh within 170 s (every case of the persistent forms, then rounds of
# expert0 / expert / lf / pers / fpers on the seven timed cases, 1-2 s a case), then `ptxbench
# eval` of the expert with a persistent k1 (`bwd_persistent`, `bwd_gqa_persistent`) beside the
# expert, interleaved rounds in what is left of 585 s (VARIANTS overrides the list).
# Usage (repository root of the GPU machine): call3.sh BIN OUT
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker) and .carry/c6.tar.xz (the harnesses)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
bash bench/results/2026-12-06i-session/next/call2.sh "$bin" "$out/c2" 170 | tail -12
grep -q H200 "$out/c2/gpu.txt" && exit 0
left=$((585 - SECONDS))
echo "== judge, $left s left"
[ "$left" -gt 200 ] && bash bench/gemm_dev/judge_variants.sh "$bin" "$out/J" \
  "${VARIANTS:-bwd_persistent,bwd_gqa_persistent}" "$left"
