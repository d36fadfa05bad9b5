#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-third), never run (no H200 came), for a call on an
# H200 after callH200.sh (bench/results/2026-12-05g-h100-session/next): issue 22's and 24's
# backward numbers (callLast.sh of 2026-12-06e, 300 s: up to three rounds of bwd-bf16 and
# bwd-bf16-gqa), then issue 26's service run (bench/serve_session.py, 230 s budget: throughput,
# quick-tier latency, 500 jobs with a SIGKILL). Exits at once on another GPU.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200"; exit 3; }
bench/results/2026-12-06e-session/next/callLast.sh "$bin" "$out" 300
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
PTXB_COMMIT="${PTXB_COMMIT:-unknown}" \
  timeout 260 python3 bench/serve_session.py "$bin" /tmp/ss --budget 230 | tail -30
tar -C /tmp -czf "$out/serve.tar.gz" ss
