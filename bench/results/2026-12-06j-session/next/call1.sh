#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-seventh) for the next device call. On an H200: the
# acceptance evaluations (callA.sh beside this, into OUT/A: gpu.txt, evals.tar.gz, summary.txt),
# the attention backward expert among them with its persistent k1 (kPersistentK1, on since this
# session). Elsewhere: `ptxbench eval` of the expert against `bwd_k1_per_unit` (and its GQA and D 96
# forms: the persistent k1 turned off), interleaved rounds within LIMIT_S, into OUT/J (4 files).
# Usage (repository root of the GPU machine): call1.sh BIN OUT [LIMIT_S=570]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}"; mkdir -p "$out"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 45))
  exit
fi
nvidia-smi --query-gpu=name --format=csv,noheader
bash bench/gemm_dev/judge_variants.sh "$bin" "$out/J" \
  "${VARIANTS:-bwd_k1_per_unit,bwd_gqa_k1_per_unit,bwd_d96_k1_per_unit}" "$limit"
