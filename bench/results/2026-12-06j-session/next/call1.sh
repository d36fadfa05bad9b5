#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-seventh) for the next device call. On an H200: the
# acceptance evaluations (callA.sh beside this, into OUT/A: gpu.txt, evals.tar.gz, summary.txt),
# the attention backward expert among them with its persistent k1 (kPersistentK1, on since this
# session). Elsewhere, or with PART=dev, within LIMIT_S:
#   1. every case of the dev harness for `fd64` (bwd_fused_d64: the fused form at D 64 too,
#      kFusedDqD64, never run; with the reducer thread, shared-address stores, longest first, the
#      one-unit k1), 100 s at most (a trap there: its shared-memory base was not 1024-aligned);
#   2. every case of `pk2` (bwd_persistent_k2: k2 persistent too, kPersistentK2, never run), 60 s
#      at most;
#   3. interleaved rounds of the timed D 64 cases and two D 128 ones for `expert` (with the
#      persistent k1), `pu` (bwd_k1_per_unit: without it), `pk2`, `fd64` and `lf`
#      (bwd_fused_longest_first), no round started after 200 s;
#   4. `ptxbench eval` of VARIANTS (default bwd_k1_per_unit, bwd_persistent_k2 and
#      bwd_fused_d64; about 45 s an evaluation on an H100) beside their expert, interleaved
#      rounds, in what is left.
# Everything lands in one archive, OUT/c1.tar.gz, written after each part; the summaries are
# printed whole.
# Usage (repository root of the GPU machine): call1.sh BIN OUT [LIMIT_S=570]
#   BIN: .carry/z.tar.xz (ptxbench, ptxbench-worker) and .carry/c7.tar.xz
#   (BIN/{expert,pu,pk2,fd64,lf}/bwd_dev, built at 6db1fe3)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}" work=/tmp/c1; mkdir -p "$out" "$work/logs"
if [ "${PART:-}" != dev ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" $((limit - 45))
  exit
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv | tee "$work/gpu.txt"
pack() { tar -C "$work" -czf "$out/c1.tar.gz" .; }
for h in fd64:100 pk2:60; do
  timeout "${h#*:}" "$bin/${h%:*}/bwd_dev" > "$work/logs/${h%:*}.full.log" 2>&1
  echo "== ${h%:*}, every case: exit $? ($(grep -c PASS "$work/logs/${h%:*}.full.log") PASS lines)" |
    tee -a "$work/full.txt"
  sed -n '/==== SUMMARY/,$p' "$work/logs/${h%:*}.full.log" | grep -v PASS | cut -c1-220 |
    tee -a "$work/full.txt"
  pack
done
for r in 1 2 3; do
  [ "$SECONDS" -gt 200 ] && break  # a round: about 40 s
  for h in expert pu pk2 fd64 lf; do
    for c in "H32 S4096 D64" "H32 HKV4 S4096 D64" "B4 H16 S4096 D128" "S16384"; do
      f="$work/logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 40 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      grep "TIME total" "$f" | sed "s|^ *TIME|$(basename "$f" .log)|" | cut -c1-150 >> "$work/timing.txt"
    done
  done
done
python3 bench/attention_dev/timing_table.py "$work/timing.txt" \
  expert pu pk2 fd64 lf | tee "$work/table.txt"
pack
left=$((limit - SECONDS))
echo "== judge, $left s left"
[ "$left" -gt 150 ] && bash bench/gemm_dev/judge_variants.sh "$bin" "$work/J" \
  "${VARIANTS:-bwd_k1_per_unit,bwd_persistent_k2,bwd_fused_d64}" "$left"
pack
