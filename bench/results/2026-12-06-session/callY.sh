#!/usr/bin/env bash
# Session 2026-12-06 (eighteenth), call Y: the module-load rules on the GPU (module, library and
# JIT-link loads called by candidate code are forbidden calls: worker/monitor_rules.hpp; a module
# loaded while candidate code runs must be a byte range of its .nv_fatbin: worker/monitor.hpp), then the
# seventeenth session's call X (bench/results/2026-12-05j-h100-session/next/callX.sh) with the
# binaries that hold the rule as "new":
# (0) ptxbench_gpu_tests' monitor tests, with the runtime's default (lazy) and eager module loading:
#     the runtime's load of the caller's own kernel is no finding, cuModuleLoadData and
#     cudaLibraryLoadData called while armed are, a module of the binary's own device code loaded
#     while armed is not foreign and a JIT-compiled one is;
# then callX: the module-loading probe, the evidence seconds of four experts before (a500d1f) and
# after the other-read selection, the hostile groups llm (runtime_loaded_reads now expected
# rejected_cheat; registered_fatbin_reads, new, expected low_instruction_share through the
# evidence taken again before the own-code rule, now rejected_cheat) and TMA. The experts
# evaluated in (a) and as the hostile groups' controls show that a candidate's own modules pass.
# Usage (repository root of the GPU machine): callY.sh NEW_BIN OLD_BIN OUT LIMIT_S
set -uo pipefail
new="$(cd "$1" && pwd)" old="$(cd "$2" && pwd)" out="$3" limit="$4"
start=$SECONDS
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for mode in LAZY EAGER; do
    echo "== monitor tests, CUDA_MODULE_LOADING=$mode"
    CUDA_MODULE_LOADING=$mode timeout 120 "$new/ptxbench_gpu_tests" \
      --gtest_filter='MonitorGpu.*:MonitorApis.*' 2>&1 | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure|forbidden:|^  |error" | head -60
  done
} > "$out/Y.txt" 2>&1
cat "$out/Y.txt"
bash bench/results/2026-12-05j-h100-session/next/callX.sh "$new" "$old" "$out" \
  $((limit - (SECONDS - start)))
