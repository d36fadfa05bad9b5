#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twentieth), for the next device call on any GPU (never run):
# where the attention backward waits at D 64, the shape kStatsEarly leaves out (0.85 of cuDNN on
# an H100; GQA's D 64 shape 0.88, issue 24 asks 0.90). Nsight Compute (--set full, source
# counters, clocks left alone) on one launch each of k1 and k2 at B4 H32 S4096 D64 in the dev
# harness, the stall reasons per SASS instruction (as call 2 of this session did at D 128); then
# `ptxbench eval` beside the experts, interleaved rounds within the call's time, of two D 64
# changes never run: the LSE and Delta pairs by ld.shared at their first use (kStatsSharedAtUse)
# and every fourth exponential on the FMA pipe (kFmaExpEvery 4; `bwd_fmaexp3` and
# `bwd_gqa_fmaexp4` next if it helps).
# Output: OUT/P64.tar.gz, OUT/F.tar.gz.
# Usage (repository root of the GPU machine): callNextA.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; p=/tmp/P64; mkdir -p "$p"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
BWD_DEV_BUILD_ONLY=1 bench/attention_dev/bwd_dev.sh "$p/dev" > "$p/build.log" 2>&1
"$ncu" --clock-control none --set full --import-source yes -k 'regex:dkdv_kernel|dq_kernel' \
  --launch-count 2 -f -o "$p/k12" "$p/dev/bwd_dev" --only "S4096 D64 full" --no-timing \
  > "$p/ncu.log" 2>&1
tail -3 "$p/ncu.log"
"$ncu" --import "$p/k12.ncu-rep" --page details > "$p/k12.details.txt" 2>&1
for k in dkdv_kernel:k1 dq_kernel:k2; do
  "$ncu" --import "$p/k12.ncu-rep" --page source --csv --print-source sass -k "regex:${k%%:*}" \
    > "$p/${k#*:}.source.csv" 2>&1
  echo "== ${k#*:}"
  for r in stall_long_sb stall_wait stall_barrier stall_math stall_mio stall_short_sb; do
    python3 bench/gemm_dev/summarize_source_stalls.py "$p/${k#*:}.source.csv" "$r" --top 5 2>&1
  done
done | tee "$p/stalls.txt" | head -80
grep -E "Duration|Issue Slots Busy|No Eligible" "$p/k12.details.txt"
rm -rf "$p/dev/bwd_dev" "$p"/dev/*.o "$p"/dev/*.so
tar -C /tmp -czf "$out/P64.tar.gz" P64
bench/gemm_dev/judge_variants.sh "$bin" /tmp/F bwd_d64_lds,bwd_fmaexp4,bwd_gqa_d64_lds \
  $((575 - (SECONDS - start))) 2>&1 | tail -20
tar -C /tmp -czf "$out/F.tar.gz" F
