#!/usr/bin/env bash
# Session 2026-12-06 (twenty-fifth), call 1. On an H200: the acceptance evaluations of
# callH200.sh (bench/results/2026-12-05g-h100-session/next), its time gate H200_GATE seconds
# (default 500). On another GPU: the fused backward forms in the dev harness beside the expert:
# `shared2s` (variant bwd_fused_dq_shared), `s2sl` (bwd_fused_dq_shared_late), `reducer`
# (bwd_fused_dq_shared_reducer), `sts` (bwd_fused_dq_shared_sts: dS^T by stmatrix, dQ staged by
# st.shared) and `rsts` (bwd_fused_dq_shared_reducer_sts); every case of each harness in FULL
# (default: the four not yet run), then interleaved rounds (ROUNDS, default 3) of the timed D 128
# shapes (S 4096 non-causal and causal, S 16384, the two hidden ones); then Nsight Compute's
# per-instruction stalls of k1 of `shared2s` and `sts` at B4 H16 S4096 D128.
# Summaries go to OUT as they come (full.txt, timing.txt, stalls.txt), the logs to /tmp/c4,
# packed at the end: a call cut short by its limit still returns what ran.
# Usage (repository root of the GPU machine): call1.sh BIN OUT [ROUNDS]
#   BIN: ptxbench, ptxbench-worker (H200 branch); BIN/{expert,shared2s,s2sl,...}/bwd_dev
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-3}" logs=/tmp/c4; mkdir -p "$out" "$logs"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
cat "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  sed "s/-gt 540/-gt ${H200_GATE:-500}/" bench/results/2026-12-05g-h100-session/next/callH200.sh \
    > /tmp/callH200.sh
  timeout 585 bash /tmp/callH200.sh "$bin" "$out/H1"
  exit
fi
for h in ${FULL:-sts rsts s2sl reducer}; do
  [ -x "$bin/$h/bwd_dev" ] || continue
  timeout 120 "$bin/$h/bwd_dev" > "$logs/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$logs/$h.full.log") PASS lines)" |
    tee -a "$out/full.txt"
  sed -n '/==== SUMMARY/,$p' "$logs/$h.full.log" | grep -v PASS | cut -c1-220 | tee -a "$out/full.txt"
done
for r in $(seq "$rounds"); do
  for h in expert shared2s s2sl reducer sts rsts; do
    [ -x "$bin/$h/bwd_dev" ] || continue
    for c in "S4096 D128" "S16384" "H8 S1000 D128 full" "H64 S512 D128"; do
      f="$logs/$h.t$r.$(echo "$c" | tr -d ' ').log"
      timeout 60 "$bin/$h/bwd_dev" --only "$c" > "$f" 2>&1
      grep "TIME total" "$f" | sed "s|^ *TIME|$(basename "$f" .log)|" | cut -c1-150 >> "$out/timing.txt"
    done
  done
done
sort "$out/timing.txt" | tail -80
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
for h in shared2s sts; do
  "$ncu" --clock-control none --set full --import-source yes -k regex:dkdv_kernel --launch-count 1 \
    -f -o "$logs/k1_$h" "$bin/$h/bwd_dev" --only "full B4 H16 S4096 D128 full" --no-timing \
    > "$logs/ncu_$h.log" 2>&1
  "$ncu" --import "$logs/k1_$h.ncu-rep" --page source --csv --print-source sass \
    > "$logs/k1_$h.source.csv" 2>&1
  "$ncu" --import "$logs/k1_$h.ncu-rep" --page details > "$logs/k1_$h.details.txt" 2>&1
  for reason in stall_long_sb stall_barrier stall_wait stall_gmma stall_short_sb stall_mio \
    stall_lg_throttle stall_math_pipe_throttle; do
    echo "== $h $reason"
    python3 bench/gemm_dev/summarize_source_stalls.py "$logs/k1_$h.source.csv" "$reason" --top 6 \
      --min-threads 2 2>&1
  done >> "$out/stalls.txt"
  grep -E "Duration|Issue Slots Busy|Executed Ipc Active|Registers Per|Bank Conflicts" \
    "$logs/k1_$h.details.txt" | sed "s|^|$h: |" >> "$out/stalls.txt"
  rm -f "$logs/k1_$h.ncu-rep"
done
grep -E "^[a-z0-9]+: " "$out/stalls.txt" | cut -c1-160
tar -C "$logs" -czf "$out/logs.tar.gz" . && ls -la "$out"
