#!/usr/bin/env bash
# Prepared in session 2026-12-07e for the next session's second device call (any GPU):
# 1. bench/serve_session.py with a budget that reaches its quick part (issue 26: the quick tier
#    through `serve`, submit to result; 2026-12-07e timed it only as `ptxbench eval --quick`,
#    6.6-7.1 s on the H200) and its crowd;
# 2. the hostile submissions of tests/adversarial/*.cu on this code, in the time left.
# Usage (repository root of the GPU machine): call2.sh BIN OUT [LIMIT_S=560]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
(timeout 330 python3 bench/serve_session.py "$bin" /tmp/ss --budget 320 > "$out/serve.txt" 2>&1)
cp /tmp/ss/serve_session.json "$out/" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('quick', d.get('quick')); \
print('service', {k: d.get('service', {}).get(k) for k in ('evals_per_hour_service', \
'evals_per_hour_sequential_same_mix')}); print('crowd', d.get('crowd', {}).get('done'))" \
  "$out/serve_session.json"
left=$((limit - SECONDS - 10))
mkdir -p /tmp/adv
[ "$left" -gt 60 ] && (timeout "$left" bash tests/adversarial/run.sh "$bin" /tmp/adv > "$out/adversarial.txt" 2>&1)
echo "adversarial rc $?"; tail -3 "$out/adversarial.txt" 2>/dev/null
[ -f /tmp/adv/summary.tsv ] && cp /tmp/adv/summary.tsv "$out/adversarial_summary.tsv"
awk -F'\t' 'NR>1 && $6!="yes"{print "UNEXPECTED", $1, $5}' "$out/adversarial_summary.tsv" 2>/dev/null
