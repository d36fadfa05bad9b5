#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-fifth), not yet run. On an H200: the acceptance
# evaluations of callH200.sh (bench/results/2026-12-05g-h100-session/next), its time gate
# H200_GATE seconds (default 500). On another GPU: the fused backward's next forms in the dev
# harness beside the expert and `rsts` (bwd_fused_dq_shared_reducer_sts, the form judged in
# call 2): `diag` (bwd_fused_diagloop: + kMaskByMargin, kDiagonalLoopApart), `convert`
# (bwd_fused_convert: + kConvertInK1, k1 converts dQ), `lf` (bwd_fused_longest_first: rsts +
# kLongestFirst), `clf` (bwd_fused_convert_longest_first). Every case of each new form (FULL),
# then interleaved rounds (ROUNDS, default 3) of the timed D 128 shapes of bwd-bf16 and
# bwd-bf16-gqa (the harness has GQA cases since session 2026-12-06h). Summaries go to OUT as they
# come (full.txt, timing.txt, table.txt), the logs to /tmp/c3, packed at the end.
# Usage (repository root of the GPU machine): call3.sh BIN OUT [ROUNDS]
#   BIN/{expert,rsts,diag,convert,lf,clf}/bwd_dev (.carry/c5.tar.xz); BIN/ptxbench* (z.tar.xz)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-3}" logs=/tmp/c3; mkdir -p "$out" "$logs"
source bench/results/2026-12-06h-session/next/h200_first.sh
for h in ${FULL:-convert clf diag lf}; do
  [ -x "$bin/$h/bwd_dev" ] || continue
  timeout 100 "$bin/$h/bwd_dev" > "$logs/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$logs/$h.full.log") PASS lines)" |
    tee -a "$out/full.txt"
  sed -n '/==== SUMMARY/,$p' "$logs/$h.full.log" | grep -v PASS | cut -c1-220 | tee -a "$out/full.txt"
done
for r in $(seq "$rounds"); do
  for h in expert rsts diag convert lf clf; do
    [ -x "$bin/$h/bwd_dev" ] || continue
    for c in "B4 H16 S4096 D128" "S16384" "H8 S1000 D128 full" "H64 S512 D128" \
      "HKV8 S4096 D128" "HKV4 S4096 D128 causal" "HKV2 S1000 D128"; do
      f="$logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 60 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      grep "TIME total" "$f" | sed "s|^ *TIME|$(basename "$f" .log)|" | cut -c1-150 >> "$out/timing.txt"
    done
  done
done
python3 bench/attention_dev/timing_table.py "$out/timing.txt" \
  expert rsts diag convert lf clf | tee "$out/table.txt"
tar -C "$logs" -czf "$out/logs.tar.gz" . && ls -la "$out"
