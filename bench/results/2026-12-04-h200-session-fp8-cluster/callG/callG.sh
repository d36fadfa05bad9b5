#!/usr/bin/env bash
# Call G: where the fp8 experts' time goes. Each expert in the fp8 probe harness
# (bench/gemm_dev/fp8_probe.cu) on the four timed shapes, and one Nsight Compute report
# (--set full) of each on 8192^3. Everything packed into $OUT/all.tar.gz.
set -uo pipefail
work=/tmp/callG; mkdir -p "$work"
{ date -u; cat .carry/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
export PTXB_PROBE_NCU=1 PTXB_PROBE_KERNEL=regex:gemm_fp8
for e in tensor:e4m3 block:blockwise; do
  kind="${e%%:*}" name="${e#*:}"
  shapes="$kind:8192,8192,8192 $kind:4096,4096,4096 $kind:128,8192,8192 $kind:4000,3000,2048"
  timeout 240 bench/gemm_dev/probe.sh "$work/$name" "$shapes" \
    "kernels/reference/sm90_gemm_fp8_$name.cu" > "$work/$name.log" 2>&1
  rm -f "$work/$name"/*.so "$work/$name"/*_probe "$work/$name"/*.ncu-rep
done
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work"/*/summary.txt
for n in e4m3 blockwise; do
  echo "== $n"
  grep -E "^    (Duration|DRAM Throughput|Compute \(SM\) Throughput|Registers Per Thread|Issue Slots Busy|Executed Ipc Active)" \
    "$work/$n/sm90_gemm_fp8_$n.ncu.txt" | head -8
done
