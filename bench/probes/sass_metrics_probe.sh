#!/usr/bin/env bash
# Builds and runs bench/probes/sass_metrics_probe.cu (CUPTI SASS metrics inside the process, no
# Nsight Compute) and keeps its SASS listing beside the output, so that PC offsets can be matched
# to opcodes. Usage (GPU machine): bench/probes/sass_metrics_probe.sh OUT
set -uo pipefail
out="$1"; mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o "$out/sass_metrics_probe" \
  "$here/sass_metrics_probe.cu" -L"$cuda/extras/CUPTI/lib64" -lcupti -lcuda || exit 1
cuobjdump -sass "$out/sass_metrics_probe" > "$out/sass_metrics_probe.sass" 2>&1
LD_LIBRARY_PATH="$cuda/extras/CUPTI/lib64:$cuda/lib64:${LD_LIBRARY_PATH:-}" \
  "$out/sass_metrics_probe" > "$out/sass_metrics_probe.txt" 2> "$out/sass_metrics_probe.log"
echo "exit $?" >> "$out/sass_metrics_probe.log"
# A fresh process: several launches, one flush at the end.
LD_LIBRARY_PATH="$cuda/extras/CUPTI/lib64:$cuda/lib64:${LD_LIBRARY_PATH:-}" \
  "$out/sass_metrics_probe" once > /dev/null 2>> "$out/sass_metrics_probe.log"
echo "exit $?" >> "$out/sass_metrics_probe.log"
LD_LIBRARY_PATH="$cuda/extras/CUPTI/lib64:$cuda/lib64:${LD_LIBRARY_PATH:-}" \
  "$out/sass_metrics_probe" once eager > /dev/null 2>> "$out/sass_metrics_probe.log"
echo "exit $?" >> "$out/sass_metrics_probe.log"
cat "$out/sass_metrics_probe.log"; grep -E "^(record|expected)" "$out/sass_metrics_probe.txt"
