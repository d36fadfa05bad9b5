#!/usr/bin/env bash
# Session 2026-12-07g (thirty-fourth), call 1 (an H200 if lent):
# 1. bench/probes/sass_metrics_probe.sh with the toolkit's CUPTI (13.0) and the PyPI wheels'
#    13.2.86 and 13.5.25: does a later CUPTI report every patched function in one process (the
#    in-process route to the evidence run's per-opcode counts, issues 17, 19 and 26)?
# 2. bench/probes/cudnn_plan_cache_probe.sh (built on the development machine, PROBE_BIN): do
#    serialized cuDNN SDPA plans load in a fresh process without NVRTC and run as the built ones?
# 3. The TMA GEMM expert (kBalancedWaves on) judged three times (issue 18's median of 3).
# Usage (repository root of the GPU machine): call1.sh BIN CUPTI_DIR PROBE_BIN OUT [probes]
#   (a fifth argument `probes`, or a GPU other than an H200: steps 1 and 2 only)
#   BIN: the release binaries (.carry/lc.tar.xz unpacked); CUPTI_DIR: one folder per CUPTI
#   release (.carry/cupti.tar.xz unpacked); PROBE_BIN: cudnn_plan_cache_probe built here.
set -uo pipefail
bin="$(cd "$1" && pwd)" cupti="$(cd "$2" && pwd)" probe="$3" out="$4"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
timeout 200 bash bench/probes/sass_metrics_probe.sh "$out/sass" "$cupti"/13.2.86 \
  "$cupti"/13.5.25 > "$out/sass.txt" 2>&1
grep -E "^(###|==|exit|CUPTI|on:|ctx|once|range|eager|module|  _Z|  ptx|.*failed)" "$out/sass.txt" | cut -c1-150
PROBE_BIN="$probe" timeout 150 bash bench/probes/cudnn_plan_cache_probe.sh "$out/plan_cache" |
  tail -20
[[ "${5:-}" == probes ]] && exit 0
grep -q H200 "$out/gpu.txt" || { echo "not an H200: the TMA expert's evaluations skipped"; exit 0; }
PAIRS="sm90/gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma:3" \
  timeout 200 bash bench/results/2026-12-06j-session/next/callA.sh "$bin" "$out/A" 150 | tail -6
