#!/usr/bin/env bash
# Builds every GPU dev harness a device session runs (bench/gemm_dev/probe.sh's GEMM, grouped and
# fp8 probes; the attention forward, backward and varlen harnesses, each in its script's
# build-only mode; bench/probes/tma_1d_probe.cu, wgmma_rate_probe.cu and
# sass_metrics_gemm_probe.cu), so that a harness that no longer compiles fails here (a CTest
# test) and not on the GPU machine.
# Usage (any directory): bench/build_dev_harnesses.sh OUT   (exit 1 on a failure)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"; out="$(cd "$1" && pwd)"
cd "$root" || exit 2
failed=0
build() {  # NAME COMMAND...: runs COMMAND with its output in OUT/NAME.log
  local name="$1"; shift
  if "$@" > "$out/$name.log" 2>&1; then
    echo "built $name"
  else
    echo "FAILED $name (exit $?):"; tail -n 20 "$out/$name.log"; failed=1
  fi
}
build gemm_probes env PTXB_PROBE_BUILD_ONLY=1 bench/gemm_dev/probe.sh "$out/gemm_probes" ""
build fwd_dev env FWD_DEV_BUILD_ONLY=1 bench/attention_dev/fwd_dev.sh "$out/fwd_dev" \
  "$out/fwd_dev_build"
build bwd_dev env BWD_DEV_BUILD_ONLY=1 bench/attention_dev/bwd_dev.sh "$out/bwd_dev"
build varlen_dev env VARLEN_DEV_BUILD_ONLY=1 bench/attention_dev/varlen_dev.sh "$out/varlen_dev" \
  "$out/varlen_dev_build"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
build tma_1d_probe "$nvcc" -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels \
  bench/probes/tma_1d_probe.cu -o "$out/tma_1d_probe"
build wgmma_rate_probe "$nvcc" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels \
  bench/probes/wgmma_rate_probe.cu -o "$out/wgmma_rate_probe"
cuda="$(dirname "$(dirname "$nvcc")")"
build sass_metrics_gemm_probe "$nvcc" -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
  -I include bench/probes/sass_metrics_gemm_probe.cu -o "$out/sass_metrics_gemm_probe" \
  -L"$cuda/extras/CUPTI/lib64" -L"$cuda/lib64" -lcupti -lcuda -ldl
exit "$failed"
