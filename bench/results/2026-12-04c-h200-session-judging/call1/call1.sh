#!/usr/bin/env bash
# Call 1: can the evidence run share the GPU with the other worker's start and correctness
# (bench/probes/concurrent_evidence_probe.sh); where the judge's time goes, with the round parts
# (bench/judging_speed.sh, one evaluation each); the block-scaled fp8 expert with its scales loaded
# two k-blocks ahead (branch blockwise-two-ahead) against main's, kernels alone (probe.sh).
# Usage (repository root, GPU machine): callX/call1.sh BIN_DIR OUT
set -uo pipefail
bin="$1" out="$2"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
timeout -k 5 150 bench/probes/concurrent_evidence_probe.sh "$bin" "$out/probe" > "$out/probe.log" 2>&1
echo "probe exit $?"
timeout -k 5 230 bench/judging_speed.sh "$bin" "$out/speed" 1 tma,fwd > "$out/speed.log" 2>&1
echo "speed exit $?"
timeout -k 5 120 bench/gemm_dev/probe.sh "$out/fp8b" \
  "block:4096,4096,4096 block:8192,8192,8192 block:128,8192,8192 block:4000,3000,2048" \
  .carry/fp8b/main_one_ahead.cu .carry/fp8b/branch_two_ahead.cu > "$out/fp8b.log" 2>&1
echo "fp8b exit $?"
rm -rf "$out"/speed/cache "$out"/probe/cache "$out"/fp8b/*_probe "$out"/fp8b/*.so
tar -C "$out" -czf "$out/call1.tar.gz" --exclude=call1.tar.gz . 2>/dev/null
tail -12 "$out/probe.log"; tail -14 "$out/speed.log"; tail -10 "$out/fp8b.log"
