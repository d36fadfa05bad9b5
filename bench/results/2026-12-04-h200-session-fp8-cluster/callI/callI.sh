#!/usr/bin/env bash
# Call I: tests/adversarial/fp8/lazy_promotion.cu (the per-tensor expert promoting every 512
# values of k instead of 128) against the fp8-e4m3 tolerances: its tau* on every case
# (ptxbench-baseline-error) and its verdict through tests/adversarial/run.sh.
# Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/e
work=/tmp/callI; mkdir -p "$work"
{ date -u; cat .carry/e/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
tests/adversarial/make_cheats.sh /tmp/cheats > /dev/null
nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
  /tmp/cheats/fp8_lazy_promotion.cu -o /tmp/lazy.so > "$work/lazy.build.txt" 2>&1
timeout 60 "$bin/ptxbench-baseline-error" sm90/gemm/fp8-e4m3 /tmp/lazy.so > "$work/lazy_error.json" \
  2> "$work/lazy_error.log"
timeout 150 tests/adversarial/run.sh "$bin" "$work/adversarial" /tmp/cheats/fp8_lazy_promotion.cu \
  > "$work/adversarial.log" 2>&1
echo "adversarial exit $?" >> "$work/adversarial.log"
rm -rf "$work/adversarial/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
grep -E "largest|FAILS" "$work/lazy_error.log" | head -12; tail -6 "$work/adversarial.log"
