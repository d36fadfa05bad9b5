#!/usr/bin/env bash
# Call F: ptxbench-baseline-error as refactored at 246e747 (the worker's check_against_reference)
# on every case of sm90/gemm/fp8-e4m3: cuBLASLt, then the per-tensor expert with its narrow
# few-row kernel (built as a shared object here). Run from the repository root: callF.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callF; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
  kernels/reference/sm90_gemm_fp8_e4m3.cu -o /tmp/e4m3_expert.so > "$work/build.txt" 2>&1
measure() {  # NAME [SO]
  timeout 150 "$bin/ptxbench-baseline-error" sm90/gemm/fp8-e4m3 ${2:+"$2"} > "$work/$1.json" 2> "$work/$1.log"
  echo "$1 exit $?" >> "$work/exits.txt"
}
measure e4m3_library
measure e4m3_expert /tmp/e4m3_expert.so
tar -C "$work" -czf "$out/callF.tar.gz" .
cat "$work/exits.txt"
for f in "$work"/*.log; do echo "== $(basename "$f")"; grep -E "^[a-z_]+: largest|FAILS|unavailable|returned" "$f" | head -8; done
