#!/usr/bin/env bash
# Call 3 (commit in BIN_DIR/COMMIT): the GPU tests, the TMA cheat judged with the previous
# commit's four counters (OLD_TASKS: does the hole it closes exist), then every generated cheat
# (bench/evidence_session.sh cheats 1), the new evidence_tma_profiler_aware among them.
# Usage (repository root, GPU machine): call3/call3.sh BIN_DIR OUT OLD_TASKS
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" old_tasks="$(cd "$3" && pwd)"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
timeout -k 5 200 "$bin/ptxbench_gpu_tests" > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/gpu_tests.log" | tr '\n' ' ')"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null
PTXBENCH_HOME="$PWD" PTXBENCH_CACHE_DIR=/tmp/c3-cache PTXBENCH_TASKS_DIR="$old_tasks" \
  PTXBENCH_TIMING_SAMPLES=10 PTXBENCH_TIMING_MIN_MS=0 PTXBENCH_TIMING_WARMUP=2 \
  timeout -k 5 150 "$bin/ptxbench" eval /tmp/cheats-src/evidence_tma_profiler_aware.cu \
  --task sm90/gemm/bf16-wgmma-tma --json-out "$out/tma_profiler_aware_old.json" \
  > "$out/tma_profiler_aware_old.txt" 2>&1
python3 -c "import json;v=json.load(open('$out/tma_profiler_aware_old.json'));print('old catalog:',v['outcome'],'|',v['reason'][:300])"
PTXB_COMMIT="$(cat "$bin/COMMIT")" timeout -k 5 $((575 - SECONDS)) bench/evidence_session.sh \
  "$bin" "$out/s" cheats 1 > "$out/session.log" 2>&1
echo "session exit $?"
rm -rf "$out/s/cache" "$out/s/cheats-src"
tail -45 "$out/s/cheats.log"
tar -C "$out" -czf "/tmp/call3.tar.gz" . && mv /tmp/call3.tar.gz "$out/"
