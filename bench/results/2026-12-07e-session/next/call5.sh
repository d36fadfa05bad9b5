#!/usr/bin/env bash
# Prepared in session 2026-12-07e for a later device call (any GPU): bench/serve_session.py with a
# budget that reaches its quick part (issue 26: the quick tier through `serve`, submit to result;
# 2026-12-07e timed it only as `ptxbench eval --quick`, 6.6-7.1 s on the H200) and its crowd.
# Usage (repository root of the GPU machine): call5.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
(timeout 330 python3 bench/serve_session.py "$bin" /tmp/ss --budget 320 > "$out/serve.txt" 2>&1)
cp /tmp/ss/serve_session.json "$out/" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('quick', d.get('quick')); \
print('service', {k: d.get('service', {}).get(k) for k in ('evals_per_hour_service', \
'evals_per_hour_sequential_same_mix')}); print('crowd', d.get('crowd', {}).get('done'))" \
  "$out/serve_session.json"
