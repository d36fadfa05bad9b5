#!/usr/bin/env bash
# Whether the timing worker can skip CUPTI's counter availability image: the range probe's
# "availability" mode, with and without the image, each in a fresh process, alternating, ROUNDS
# times (bench/probes/range_profiler_probe.cpp, availability_mode). Prints create()'s steps in
# seconds and whether the config images are equal; kept in OUT/availability.txt.
# Usage (repository root of the GPU machine): availability_probe.sh BIN OUT [ROUNDS=3]
#   BIN: ptxbench-range-probe (build/release)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-3}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  for r in $(seq 1 "$rounds"); do
    for mode in with without; do
      echo "round $r, $mode: $(timeout 60 "$bin/ptxbench-range-probe" "$PWD/tasks" - availability \
        "$mode" 2>&1 | tr '\n' ' ')"
    done
  done
} | tee "$out/availability.txt"
