#!/usr/bin/env bash
# Prepared in session 2026-12-05 (twelfth) for the next device session, not run: issue 19's
# staged scales with boxes that start on 16-byte boundaries. (a) bench/probes/tma_1d_probe.cu:
# which 1-D TMA loads the hardware takes (box size against start); (b) the fp8 probe harness on
# the block-scaled expert and both staged variants (the kernels alone, 4 shapes); (c) the varlen
# forward expert once through `ptxbench eval` (its persistent kernels' scheduler warp was
# refactored in the twelfth session: same work, SASS reordered, not yet run); (d) if neither fp8
# variant crashed in (b), `ptxbench eval` of the expert and the variants, interleaved, 2 rounds.
# Usage (repository root of the GPU machine): call1.sh BIN OUT   (about 5-8 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels bench/probes/tma_1d_probe.cu \
  -o /tmp/tma_1d_probe && timeout 200 /tmp/tma_1d_probe 64 > "$out/tma_1d_probe.txt" 2>&1
cat "$out/tma_1d_probe.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vf 1 fp8b_staged,fp8b_staged_cluster2 \
  > "$out/sources.log" 2>&1 || { cat "$out/sources.log"; exit 1; }
PTXB_PROBE_TIMEOUT_S=30 bench/gemm_dev/probe.sh "$out/probe" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  kernels/reference/sm90_gemm_fp8_blockwise.cu /tmp/vf/src/fp8b_staged.cu \
  /tmp/vf/src/fp8b_staged_cluster2.cu > "$out/probe.log" 2>&1
cat "$out/probe/summary.txt"
echo "(a, b) done after $((SECONDS - start)) s"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/vf-cache \
  "$bin/ptxbench" eval kernels/reference/sm90_attention_fwd_varlen.cu --task sm90/attention/fwd-varlen \
  --json-out "$out/varlen.json" > "$out/varlen.txt" 2>&1
echo "(c) varlen expert: $(grep -m1 -E '^(outcome|verdict)' "$out/varlen.txt") after $((SECONDS - start)) s"
grep -E "speedup" "$out/varlen.txt" | head -8
if grep -qiE "error|fail|timed out" "$out/probe/summary.txt"; then
  echo "a variant failed in the probe: no evaluation"; exit 0
fi
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 50)) bench/gemm_dev/variants.sh "$bin" /tmp/vf 2 fp8b_staged,fp8b_staged_cluster2 \
  > "$out/variants.log" 2>&1
tar -C /tmp/vf --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
tail -8 "$out/variants.log"
