#!/usr/bin/env bash
# Prepared in session 2026-12-07 for the next session's first device call. On an H200 (unless
# PART=dev): the acceptance evaluations (2026-12-06j's callA.sh) of PAIRS (default below: the
# backward and TMA GEMM experts three times, the fp8 ones twice, the others once), within
# LIMIT_S less 45 s, into OUT/A (gpu.txt, evals.tar.gz, summary.txt). Elsewhere, within LIMIT_S:
#   1. every case of the dev harness for `fl` (bwd_fused_d64_long: the fused form at D 64 with
#      kFusedD64DvBeforeDs, spill-free, never run) and `ov` (bwd_fused_d64_overlap: the judged
#      form, 8 bytes spilled), 60 s each at most;
#   2. interleaved rounds of the D 64 cases and two D 128 ones for `expert` (the expert at this
#      session's end: the fused form at D 128 from S 8192), `fl` and `ov`, none started after
#      200 s (TIMING_ROUNDS, default 3);
#   3. `ptxbench eval` of VARIANTS (default bwd_fused_d64_long, bwd_fused_d64_overlap,
#      bwd_gqa_fused_d64_long) beside their experts, interleaved rounds, the evidence in the
#      first, in what is left.
# Everything lands in one archive, OUT/c4.tar.gz, written after each part; summaries printed whole.
# Usage (repository root of the GPU machine): call4.sh BIN OUT [LIMIT_S=570]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker) and .carry/c9.tar.xz
#   (BIN/{expert,fl,ov}/bwd_dev, built at this session's last commit)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}" work=/tmp/c4; mkdir -p "$out" "$work/logs"
if [ "${PART:-}" != dev ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  PAIRS="${PAIRS:-sm90/gemm/bf16-llm:sm90_gemm_bf16_llm:1
sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3 sm90/gemm/fp8-e4m3:sm90_gemm_fp8_e4m3:2
sm90/gemm/fp8-blockwise:sm90_gemm_fp8_blockwise:2 sm90/attention/bwd-bf16:sm90_attention_bwd_bf16:3
sm90/attention/fwd-varlen:sm90_attention_fwd_varlen:1
sm90/attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa:1
sm90/gemm/bf16-wgmma:sm90_gemm_bf16_wgmma:1}" \
    bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 45))
  exit
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$work/gpu.txt"
pack() { tar -C "$work" -czf "$out/c4.tar.gz" .; }
for h in fl ov; do
  timeout 60 "$bin/$h/bwd_dev" > "$work/logs/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$work/logs/$h.full.log") PASS lines)" |
    tee -a "$work/full.txt"
  sed -n '/==== SUMMARY/,$p' "$work/logs/$h.full.log" | grep -v PASS | cut -c1-220 |
    tee -a "$work/full.txt"
  pack
done
for r in $(seq 1 "${TIMING_ROUNDS:-3}"); do
  [ "$SECONDS" -gt 200 ] && break  # a round: about 25 s
  for h in expert fl ov; do
    for c in "H32 S4096 D64" "H32 HKV4 S4096 D64" "B4 H16 S4096 D128" "S16384"; do
      f="$work/logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 40 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      grep "TIME total" "$f" | sed "s|^ *TIME|$(basename "$f" .log)|" | cut -c1-150 >> "$work/timing.txt"
    done
  done
done
python3 bench/results/2026-12-06h-session/next/timing_table.py "$work/timing.txt" expert fl ov |
  tee "$work/table.txt"
pack
left=$((limit - SECONDS))
echo "== judge, $left s left"
[ "$left" -gt 120 ] && bash bench/gemm_dev/judge_variants.sh "$bin" "$work/J" \
  "${VARIANTS:-bwd_fused_d64_long,bwd_fused_d64_overlap,bwd_gqa_fused_d64_long}" "$left"
pack
