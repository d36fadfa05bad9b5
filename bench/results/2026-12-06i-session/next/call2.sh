#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-sixth), not yet run (no device time was left). On an
# H200: the acceptance evaluations (h200_first.sh of 2026-12-06h-session/next; BIN/ptxbench* from
# .carry/z.tar.xz). Elsewhere, the persistent k1 (`kPersistentK1`) in the dev harness: every case
# of `pers` (bwd_persistent: the three kernels, k1 persistent) and `fpers` (bwd_fused_persistent:
# the fused form with the reducer thread, shared-address stores, kLongestFirst and a persistent
# k1), then interleaved rounds of the seven timed D 128 cases of call3.sh (2026-12-06h-session/
# next) for `expert0` (the expert before this session's changes, built at c3322af: the persistent
# k1's rewrite reordered the expert's k1 SASS), `expert`, `lf` (bwd_fused_longest_first) and the
# two, while fewer than LIMIT_S (default 280) seconds have passed. Summaries in OUT (gpu.txt,
# full.txt, timing.txt, table.txt), the logs packed in OUT/logs.tar.gz.
# Usage (repository root of the GPU machine): call2.sh BIN OUT [LIMIT_S]
#   BIN/{expert0,expert,lf,pers,fpers}/bwd_dev (.carry/c6.tar.xz, built at the commit of this
#   script but expert0)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-280}" logs=/tmp/c6; mkdir -p "$out" "$logs"
source bench/results/2026-12-06h-session/next/h200_first.sh  # on an H200: the acceptance runs
for h in pers fpers; do
  timeout 100 "$bin/$h/bwd_dev" > "$logs/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$logs/$h.full.log") PASS lines)" |
    tee -a "$out/full.txt"
  sed -n '/==== SUMMARY/,$p' "$logs/$h.full.log" | grep -v PASS | cut -c1-220 | tee -a "$out/full.txt"
done
for r in 1 2 3; do
  [ "$SECONDS" -gt $((limit - 60)) ] && break  # a round: about 40-60 s (1-2 s a case)
  for h in expert0 expert lf pers fpers; do
    for c in "B4 H16 S4096 D128" "S16384" "H8 S1000 D128 full" "H64 S512 D128" \
      "HKV8 S4096 D128" "HKV4 S4096 D128 causal" "HKV2 S1000 D128"; do
      f="$logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 40 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      grep "TIME total" "$f" | sed "s|^ *TIME|$(basename "$f" .log)|" | cut -c1-150 >> "$out/timing.txt"
    done
  done
done
python3 bench/attention_dev/timing_table.py "$out/timing.txt" \
  expert0 expert lf pers fpers | tee "$out/table.txt"
tar -C "$logs" -czf "$out/logs.tar.gz" .
