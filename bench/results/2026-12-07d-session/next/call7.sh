#!/usr/bin/env bash
# Prepared in session 2026-12-07d for the next session's first device call (any GPU):
# 1. GPU tests of the comparison (GpuCompare.*: the scratch reused, atol_rms applied as reported),
#    the inputs and the evidence controls;
# 2. the six generated cheats call 3 of 2026-12-07d did not reach (timing_persisting_l2,
#    timing_skip_every_other_round, timing_sustained_skip, timing_sync_in_run,
#    varlen_first_length_everywhere, varlen_tile_multiple_lengths), timing shortened as in
#    bench/evidence_session.sh's `cheats`, between the two controls of run.sh;
# 3. `ptxbench eval` of PAIRS (call6.sh's list: on an H200 issue 18, 19, 22 and 24's acceptance
#    evaluations, run first there; elsewhere indicative, and the round checks' cost after the
#    comparison scratch: bench/summarize_check_cost.py against 2026-12-07d call 1's table), none
#    started after LIMIT_S less 40 s (less 140 s on an H200, where 1 and 2 follow).
# Usage (repository root of the GPU machine): call7.sh BIN OUT [LIMIT_S=560]
#   BIN: ptxbench, ptxbench-worker, ptxbench_gpu_tests of main at or after this commit
#   (scripts/build.sh, then `tar -cJf .carry/lc.tar.xz -C build/release ptxbench ptxbench-worker
#   ptxbench_gpu_tests ptxbench-range-probe`).
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-560}"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
tests_and_cheats() {  # GPU tests (90 s at most), then the six cheats (200 s at most, in LIMIT_S)
  (cd /tmp && timeout 90 "$bin/ptxbench_gpu_tests" \
    --gtest_filter='GpuCompare.*:GpuInputs.*:EvidenceControls.*' > "$out/gpu_tests.txt" 2>&1)
  echo "gpu tests: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests.txt" | tr '\n' ' ')"
  local src=/tmp/cheats-src files=() c
  tests/adversarial/make_cheats.sh "$src" > /dev/null
  for c in timing_persisting_l2 timing_skip_every_other_round timing_sustained_skip \
    timing_sync_in_run varlen_first_length_everywhere varlen_tile_multiple_lengths; do
    files+=("$src/$c.cu")
  done
  mkdir -p /tmp/cheats
  local t=$((limit - SECONDS - 20)); [ "$t" -gt 200 ] && t=200
  PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 PTXBENCH_TIMING_WARMUP=2 \
    timeout "$t" bash tests/adversarial/run.sh "$bin" /tmp/cheats "${files[@]}" > "$out/cheats.txt" 2>&1
  echo "cheats rc $?"; cp /tmp/cheats/summary.tsv "$out/cheats_summary.tsv" 2>/dev/null
  awk -F'\t' 'NR>1{print $1, $5, $6}' "$out/cheats_summary.tsv" 2>/dev/null
}
evaluations() {  # PAIRS, none started after $1 seconds from now
  PAIRS="${PAIRS:-sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:3
sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:3
sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:3
sm90/attention/fwd-varlen:sm90_attention_fwd_varlen:2}" \
    bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" "$1"
}
# On an H200 the acceptance evaluations come first (three of each need most of the call); on
# another GPU the tests and cheats first, the evaluations in the time left.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  evaluations $((limit - 140 - SECONDS))
  [ $((limit - SECONDS)) -gt 100 ] && tests_and_cheats
else
  tests_and_cheats
  evaluations $((limit - 40 - SECONDS))
fi
# the round checks' cost per checked call (against 2026-12-07d call 1's table in docs/timing.md)
mkdir -p /tmp/c7v && tar -xzf "$out/A/evals.tar.gz" -C /tmp/c7v 2>/dev/null &&
  python3 bench/summarize_check_cost.py /tmp/c7v/*.json | tee "$out/check_cost.md"
