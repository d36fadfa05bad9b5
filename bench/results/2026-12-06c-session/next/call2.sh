#!/usr/bin/env bash
# Session 2026-12-06 (twentieth), second device call. On an H200 the acceptance evaluations
# (callH200.sh of 2026-12-05g). On another GPU: where the attention backward's kernels wait.
# The wgmma rate probe (call 1) ran k1's product schedule without its arithmetic at 984 TFLOP/s
# on two warpgroups while the expert's k1 runs at about 600: Nsight Compute (--set full, source
# counters, clocks left alone) on one launch each of k1 (dkdv_kernel) and k2 (dq_kernel) at
# B4 H16 S4096 D128 (dev harness, no timing), the stall reasons per SASS instruction; then the
# D 96 mask knob owed since 2026-12-05 (`bwd_d96_diagloop`, three interleaved rounds).
# Output: OUT/P.tar.gz (reports, CSV pages, summaries) or OUT/H.tar.gz.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  bench/results/2026-12-05g-h100-session/next/callH200.sh "$bin" /tmp/H | tail -40
  tar -C /tmp -czf "$out/H.tar.gz" H
  echo "call2 done after $((SECONDS - start)) s"; exit 0
fi
p=/tmp/P; mkdir -p "$p"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
BWD_DEV_BUILD_ONLY=1 bench/attention_dev/bwd_dev.sh "$p/dev" > "$p/build.log" 2>&1
"$ncu" --clock-control none --set full --import-source yes -k 'regex:dkdv_kernel|dq_kernel' \
  --launch-count 2 -f -o "$p/k12" "$p/dev/bwd_dev" --only "S4096 D128 full" --no-timing \
  > "$p/ncu.log" 2>&1
tail -5 "$p/ncu.log"
"$ncu" --import "$p/k12.ncu-rep" --page details > "$p/k12.details.txt" 2>&1
"$ncu" --import "$p/k12.ncu-rep" --page raw --csv > "$p/k12.raw.csv" 2>&1
for k in dkdv_kernel:k1 dq_kernel:k2; do  # the source page of each profiled kernel
  "$ncu" --import "$p/k12.ncu-rep" --page source --csv --print-source sass -k "regex:${k%%:*}" \
    > "$p/${k#*:}.source.csv" 2>&1
done
for f in "$p"/k1.source.csv "$p"/k2.source.csv; do
  [[ -s "$f" ]] || continue
  echo "== $f"
  python3 bench/gemm_dev/summarize_source_stalls.py "$f" --top 0 2>&1 | head -2
  for r in stall_long_sb stall_wait stall_barrier stall_math stall_mio_throttle stall_short_sb \
    stall_membar stall_sleeping stall_dispatch; do  # an unknown column costs only its own lines
    python3 bench/gemm_dev/summarize_source_stalls.py "$f" "$r" --top 6 2>&1 | tail -n +2
  done
done > "$p/stalls.txt"
head -150 "$p/stalls.txt"
grep -E "^  [a-z_]+ *\(|Duration|Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Registers Per" \
  "$p/k12.details.txt" | head -40
rm -rf "$p/dev/bwd_dev" "$p"/dev/*.o "$p"/dev/*.so
tar -C /tmp -czf "$out/P.tar.gz" P
bench/gemm_dev/judge_variants.sh "$bin" /tmp/jv bwd_d96_diagloop $((575 - (SECONDS - start))) 2>&1 | tail -12
tar -C /tmp -czf "$out/J.tar.gz" jv
echo "call2 done after $((SECONDS - start)) s"
