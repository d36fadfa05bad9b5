#!/usr/bin/env bash
# Where the attention backward's dK/dV kernel (k1) and dQ kernel (k2) wait: Nsight Compute
# (--set full, source counters, clocks left alone) on one launch of each in the dev harness's
# case CASE (a `bwd_dev --only` substring, e.g. "S4096 D64 full"), then the stall reasons per
# SASS instruction. Profiles the expert, or the file PTXB_BWD_KERNEL names (bwd_dev.sh's
# variable, e.g. a variant from bench/gemm_dev/variants.sh with PTXB_SOURCES_ONLY=1).
# OUT/: k12.ncu-rep, k12.details.txt, k1.source.csv and k2.source.csv (the per-instruction
# pages), stalls.txt (summarize_source_stalls.py on each, consumers only: instructions run by
# two or more threads, not the producer's single thread), ncu.log, the harness's build logs.
# Prints the kernels' durations, issue-slot use and idle share last.
# Usage (GPU machine, repository root): bench/attention_dev/bwd_profile.sh OUT CASE
set -uo pipefail
out="${1:?usage: bench/attention_dev/bwd_profile.sh OUT CASE}"
case_="${2:?usage: bench/attention_dev/bwd_profile.sh OUT CASE}"
here="$(dirname "${BASH_SOURCE[0]}")"
mkdir -p "$out"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
BWD_DEV_BUILD_ONLY=1 "$here/bwd_dev.sh" "$out/dev" > "$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log"; exit 1; }
"$ncu" --clock-control none --set full --import-source yes -k 'regex:dkdv_kernel|dq_kernel' \
  --launch-count 2 -f -o "$out/k12" "$out/dev/bwd_dev" --only "$case_" --no-timing \
  > "$out/ncu.log" 2>&1
tail -3 "$out/ncu.log"
"$ncu" --import "$out/k12.ncu-rep" --page details > "$out/k12.details.txt" 2>&1
for k in dkdv_kernel:k1 dq_kernel:k2; do
  "$ncu" --import "$out/k12.ncu-rep" --page source --csv --print-source sass -k "regex:${k%%:*}" \
    > "$out/${k#*:}.source.csv" 2>&1
  echo "== ${k#*:}"
  for r in stall_long_sb stall_wait stall_barrier stall_math stall_mio stall_short_sb; do
    python3 "$here/../gemm_dev/summarize_source_stalls.py" "$out/${k#*:}.source.csv" "$r" --top 5 \
      --min-threads 2 2>&1
  done
done > "$out/stalls.txt"
rm -rf "$out/dev/bwd_dev" "$out"/dev/*.o "$out"/dev/*.so
grep -E "Duration|Issue Slots Busy|No Eligible" "$out/k12.details.txt"
