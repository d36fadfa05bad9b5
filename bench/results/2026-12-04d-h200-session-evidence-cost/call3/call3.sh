#!/usr/bin/env bash
# Call 3: the sustained regime's rounds at length: the TMA GEMM expert (and its slowed variant)
# judged 3 times with up to 40 sustained rounds and 2 s of timed batches a shape, so estimators
# over prefixes of the raw rounds (median of per-round ratios, order-balanced pairs, ratio of
# sums) can be compared offline.
# Usage (repository root, GPU machine): call3/call3.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
PTXBENCH_SUSTAINED_ROUNDS=40 PTXBENCH_SUSTAINED_MIN_MS=2000 timeout -k 5 400 \
  bench/judging_speed.sh "$bin" "$out/sustained" 3 tma > "$out/sustained.log" 2>&1
echo "sustained exit $?"
rm -rf "$out/sustained/cache"
tar -C "$out" -czf "$out/call3.tar.gz" --exclude=call3.tar.gz .
cat "$out/sustained/table.md"
