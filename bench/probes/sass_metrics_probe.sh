#!/usr/bin/env bash
# Builds and runs bench/probes/sass_metrics_probe.cu (CUPTI SASS metrics inside the process, no
# Nsight Compute) and keeps its SASS listing beside the output, so that PC offsets can be matched
# to opcodes. Every mode runs once with the toolkit's CUPTI, then once with each CUPTI_DIR given
# (a folder holding another release's libcupti.so.13 and libnvperf_*.so, e.g. from the
# nvidia-cuda-cupti wheel of PyPI): does a later CUPTI report every patched function?
# Usage (GPU machine): bench/probes/sass_metrics_probe.sh OUT [CUPTI_DIR...]
# Writes OUT/<release>/sass_metrics_probe.{txt,log} and prints each log.
set -uo pipefail
out="$1"; shift; mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o "$out/sass_metrics_probe" \
  "$here/sass_metrics_probe.cu" -L"$cuda/extras/CUPTI/lib64" -lcupti -lcuda || exit 1
cuobjdump -sass "$out/sass_metrics_probe" > "$out/sass_metrics_probe.sass" 2>&1
for dir in "$cuda/extras/CUPTI/lib64" "$@"; do
  release="$(basename "$dir")"; [[ "$dir" == "$cuda/extras/CUPTI/lib64" ]] && release=toolkit
  mkdir -p "$out/$release"; log="$out/$release/sass_metrics_probe.log"
  export LD_LIBRARY_PATH="$dir:$cuda/extras/CUPTI/lib64:$cuda/lib64"
  # The default sequence, then fresh processes: several launches with one flush at the end
  # (lazily, then every function patched at enable), the sample's own-context order, two
  # contexts, two modules.
  for mode in "" "once" "once eager" "ctx" "ctx2" "module"; do
    echo "== mode '${mode}' (CUPTI from $dir)" >> "$log"
    # shellcheck disable=SC2086  # the mode is one or two words
    timeout 60 "$out/sass_metrics_probe" $mode >> "$out/$release/sass_metrics_probe.txt" 2>> "$log"
    echo "exit $?" >> "$log"
  done
  echo "### $release"; cat "$log"
done
