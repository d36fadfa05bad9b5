#!/usr/bin/env bash
# Call D: the grouped expert with CTAs looping over tiles up to K 4096 (kPersistentMaxK) beside
# the one-tile-per-CTA grid of call C (grouped_single), two rounds of bench/gemm_dev/variants.sh
# and the probe on the hidden Qwen3 down shape; the block-scaled fp8 expert once (its SASS is
# main's); the fp8 and grouped hostile submissions (tests/adversarial/make_cheats.sh, run.sh)
# on the new experts; one Nsight Compute report of the grouped expert on the hidden shape.
# Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callD; mkdir -p "$work"
{ date -u; cat .carry/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/vsrc" 1 grouped_single > /dev/null 2>&1
timeout 60 bench/gemm_dev/probe.sh "$work/probe" "128,16384,2048,768" "$work"/vsrc/src/*.cu \
  > "$work/probe.log" 2>&1
PTXB_BUDGET_S=150 bench/gemm_dev/variants.sh "$bin" "$work/var" 2 grouped_single > "$work/var.log" 2>&1
PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$work/bw-cache" \
  timeout 60 "$bin/ptxbench" eval kernels/reference/sm90_gemm_fp8_blockwise.cu \
  --task sm90/gemm/fp8-blockwise --json-out "$work/blockwise.json" > "$work/blockwise.txt" 2>&1
tests/adversarial/make_cheats.sh /tmp/cheats > /dev/null
timeout 200 tests/adversarial/run.sh "$bin" "$work/adversarial" /tmp/cheats/fp8_*.cu \
  /tmp/cheats/grouped_*.cu > "$work/adversarial.log" 2>&1
echo "adversarial exit $?" >> "$work/adversarial.log"
PTXB_PROBE_NCU=1 PTXB_PROBE_KERNEL=regex:grouped_gemm timeout 90 bench/gemm_dev/probe.sh \
  "$work/ncu" "128,16384,2048,768" "$work/vsrc/src/expert_bf16_grouped.cu" > "$work/ncu.log" 2>&1
rm -rf "$work/var/cache" "$work/vsrc/cache" "$work/bw-cache" "$work/adversarial/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/probe/summary.txt"; tail -4 "$work/var.log"
python3 -c "import json;v=json.load(open('$work/blockwise.json'));print('blockwise',v['outcome'],[round(t['speedup']['median'],3) for t in v.get('timing',[])])"
tail -12 "$work/adversarial.log"
grep -E "^    (Duration|DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput)" "$work/ncu/expert_bf16_grouped.ncu.txt" | head -6
