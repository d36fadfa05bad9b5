#!/usr/bin/env bash
# Call H: the block-scaled expert's scale loads (kScalesAhead: a k-block ahead; kOpaqueScaleLoads:
# no uniform-register move of sb before the MMAs; kScalePrefetch: an L1 prefetch 2 k-blocks
# ahead), each knob turned off alone and all three off (fp8b_before: main's SASS), two rounds of
# bench/gemm_dev/variants.sh; the expert and fp8b_before in the fp8 probe on 8192^3 and 4096^3,
# and one Nsight Compute report of the expert on 8192^3. Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callH; mkdir -p "$work"
{ date -u; cat .carry/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
list=fp8b_before,fp8b_noahead,fp8b_plainloads,fp8b_noprefetch
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/vsrc" 1 fp8b_before > /dev/null 2>&1
timeout 90 bench/gemm_dev/probe.sh "$work/probe" "block:8192,8192,8192 block:4096,4096,4096" \
  "$work"/vsrc/src/*.cu > "$work/probe.log" 2>&1
PTXB_BUDGET_S=240 bench/gemm_dev/variants.sh "$bin" "$work/var" 2 "$list" > "$work/var.log" 2>&1
PTXB_PROBE_NCU=1 PTXB_PROBE_KERNEL=regex:gemm_fp8 timeout 80 bench/gemm_dev/probe.sh "$work/ncu" \
  "block:8192,8192,8192" "$work/vsrc/src/expert_fp8_blockwise.cu" > "$work/ncu.log" 2>&1
rm -rf "$work/var/cache" "$work/vsrc" "$work/var/src"
find "$work" \( -name '*.so' -o -name '*_probe' -o -name '*.ncu-rep' \) -delete
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/probe/summary.txt"; tail -10 "$work/var.log"
grep -E "^    (Duration|Compute \(SM\) Throughput|Executed Ipc Active)" \
  "$work/ncu/expert_fp8_blockwise.ncu.txt" | head -4
