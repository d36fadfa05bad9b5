#!/usr/bin/env bash
# Prepared in session 2026-12-07e for a later device call on an H200 (issue 22: the backward's
# non-causal D 128 shapes at 0.937-0.949 of cuDNN there, 0.953-0.958 on an H100): what cuDNN's
# attention backward and the expert's kernels take on the H200, kernel by kernel
# (bench/attention_dev/bwd_census.sh; the H100's census is bench/results/2026-12-06g-session).
# Builds the dev harness on the GPU machine, then the census; the reports' raw pages, the census
# table and the logs come back packed in OUT/census.tar.xz (no .ncu-rep files).
# Usage (repository root of the GPU machine): call3.sh BIN OUT
#   BIN: as for call1.sh, with ptxbench-library-profile in the tar as well.
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
BWD_DEV_BUILD_ONLY=1 timeout 240 bash bench/attention_dev/bwd_dev.sh /tmp/bwd > "$out/build.txt" 2>&1 ||
  { tail -20 "$out/build.txt"; exit 1; }
timeout 300 bash bench/attention_dev/bwd_census.sh "$bin" /tmp/bwd/bwd_dev /tmp/census \
  > "$out/census_run.txt" 2>&1
tail -30 "$out/census_run.txt"
tar -cJf "$out/census.tar.xz" --exclude='*.ncu-rep' -C /tmp census
