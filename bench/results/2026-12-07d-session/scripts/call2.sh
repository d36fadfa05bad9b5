#!/usr/bin/env bash
# Session 2026-12-07d, call 2: the range profiler without the counter availability image (e35d897)
# on the GPU: the counter GPU tests, three evaluations of the per-tensor fp8 GEMM expert
# (setup.counters.create.availability should read 0, the evaluations pass), the hostile
# submissions of tests/adversarial/*.cu, then bench/serve_session.py (issue 26's quick tier) in
# the time left. Everything lands in OUT at most two levels deep.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
#   BIN: .carry/lc.tar.xz extracted (ptxbench, ptxbench-worker, ptxbench_gpu_tests)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
(cd /tmp && timeout 60 "$bin/ptxbench_gpu_tests" \
  --gtest_filter='EvidenceControls.*:CublasLtChoices.*' > "$out/gpu_tests.txt" 2>&1)
echo "gpu tests: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests.txt" | tr '\n' ' ')"
PAIRS="sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:3" \
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" 80 | tail -4
mkdir -p /tmp/adv; (timeout 230 bash tests/adversarial/run.sh "$bin" /tmp/adv > "$out/adversarial.txt" 2>&1)
echo "adversarial rc $?"; tail -3 "$out/adversarial.txt"
[ -f /tmp/adv/summary.tsv ] && cp /tmp/adv/summary.tsv "$out/adversarial_summary.tsv"
left=$((560 - SECONDS))
[ "$left" -gt 120 ] && (timeout "$left" python3 bench/serve_session.py "$bin" /tmp/ss \
  --budget $((left - 20)) > "$out/serve.txt" 2>&1)
cp /tmp/ss/serve_session.json "$out/" 2>/dev/null
tail -25 "$out/serve.txt" 2>/dev/null
