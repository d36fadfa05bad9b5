#!/usr/bin/env bash
# Prepared in session 2026-12-07d for the next session's second device call (any GPU):
# 1. bench/serve_session.py with a budget that reaches its quick tier (issue 26: seconds from
#    submit to result with the compile and the library's plan choices cached; 2026-12-07d's call 2
#    ran out before it) and its crowd;
# 2. the balanced persistent grid (kBalancedWaves, kernels/gemm/sm90_gemm_bf16_tma_ws_gemm.cuh)
#    beside its experts: bench/gemm_dev/variants.sh `tma_balanced,tma_nostreamk_balanced,
#    tma_cluster2_balanced,llm_balanced` (`tma_nostreamk_balanced`: 8192^3 on 128 CTAs against
#    the stream-K tail; `tma_cluster2_balanced`: the same with CTA pairs sharing B), two rounds,
#    the evidence in the first only (the production-shape expert's evaluations also give issue
#    20's numbers, indicative off an H200);
# 3. every GPU test in the time left.
# Usage (repository root of the GPU machine): call8.sh BIN OUT [LIMIT_S=560]
#   BIN: as for call7.sh
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
(timeout 300 python3 bench/serve_session.py "$bin" /tmp/ss --budget 280 > "$out/serve.txt" 2>&1)
cp /tmp/ss/serve_session.json "$out/" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('quick', d.get('quick')); \
print('service', {k: d.get('service', {}).get(k) for k in ('evals_per_hour_service', \
'evals_per_hour_sequential_same_mix')})" "$out/serve_session.json"
PTXB_BUDGET_S=$((limit - 60 - SECONDS)) PTXB_EVIDENCE_ROUNDS=1 \
  bash bench/gemm_dev/variants.sh "$bin" /tmp/var 2 tma_balanced,tma_nostreamk_balanced,tma_cluster2_balanced,llm_balanced > "$out/variants.txt" 2>&1
tail -25 "$out/variants.txt"
tar -czf "$out/variants.tar.gz" --exclude=cache --exclude=src -C /tmp var 2>/dev/null
left=$((limit - SECONDS - 10))
[ "$left" -gt 60 ] && (cd /tmp && timeout "$left" "$bin/ptxbench_gpu_tests" > "$out/gpu_tests_all.txt" 2>&1)
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]' "$out/gpu_tests_all.txt" 2>/dev/null | head -20
