#!/usr/bin/env bash
# Builds and runs module_load_probe.cpp (see its header) with the default (lazy) and eager module
# loading; the stand-in candidate is built with the judge's flags, the module it loads itself is
# tests/adversarial/llm/runtime_loaded_reads.ptx assembled by ptxas.
# Usage (GPU machine, repository root): bench/probes/module_load/module_load_probe.sh OUT
set -uo pipefail
out="$1"; mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" root="$(cd "$here/../../.." && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc="${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}"
ptxas="${PTXAS:-$(command -v ptxas || echo "$cuda/bin/ptxas")}"
cupti_inc="$cuda/extras/CUPTI/include" cupti_lib="$cuda/extras/CUPTI/lib64"
[[ -d "$cupti_inc" ]] || cupti_inc="$cuda/include"
[[ -d "$cupti_lib" ]] || cupti_lib="$cuda/lib64"
"$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a \
  "$here/probe_kernel.cu" -o "$out/probe_kernel.so" || exit 1
"$ptxas" -arch=sm_90a "$root/tests/adversarial/llm/runtime_loaded_reads.ptx" \
  -o "$out/runtime_reads.cubin" || exit 1
"$nvcc" -O2 -std=c++17 "$here/module_load_probe.cpp" -I "$cupti_inc" -L "$cupti_lib" \
  -lcupti -lcuda -ldl -o "$out/module_load_probe" || exit 1
[[ "${MODULE_LOAD_PROBE_BUILD_ONLY:-0}" == 1 ]] && exit 0
export LD_LIBRARY_PATH="$cupti_lib:$cuda/lib64:${LD_LIBRARY_PATH:-}"
for mode in default EAGER; do
  echo "== CUDA_MODULE_LOADING=$mode"
  if [[ "$mode" == default ]]; then
    timeout 120 "$out/module_load_probe" "$out/probe_kernel.so" "$out/runtime_reads.cubin"
  else
    CUDA_MODULE_LOADING=EAGER timeout 120 "$out/module_load_probe" "$out/probe_kernel.so" \
      "$out/runtime_reads.cubin"
  fi
  echo "exit $?"
done 2>&1 | tee "$out/module_load_probe.txt"
