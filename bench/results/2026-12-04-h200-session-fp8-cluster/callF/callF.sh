#!/usr/bin/env bash
# Call F: the fp8 tasks at their new tolerances (twice cuBLASLt's own error, call E): both fp8
# experts judged by `ptxbench eval`, and the fp8 hostile submissions through
# tests/adversarial/run.sh. Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callF; mkdir -p "$work"
{ date -u; cat .carry/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$work/cache"
for e in e4m3 blockwise; do
  timeout 90 "$bin/ptxbench" eval "kernels/reference/sm90_gemm_fp8_$e.cu" --task "sm90/gemm/fp8-$e" \
    --json-out "$work/expert_$e.json" > "$work/expert_$e.txt" 2>&1
done
tests/adversarial/make_cheats.sh /tmp/cheats > /dev/null
timeout 300 tests/adversarial/run.sh "$bin" "$work/adversarial" /tmp/cheats/fp8_*.cu \
  > "$work/adversarial.log" 2>&1
echo "adversarial exit $?" >> "$work/adversarial.log"
rm -rf "$work/cache" "$work/adversarial/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
for e in e4m3 blockwise; do
  python3 -c "import json;v=json.load(open('$work/expert_$e.json'));print('$e',v['outcome'],[round(t['speedup']['median'],3) for t in v.get('timing',[])])"
done
tail -10 "$work/adversarial.log"
