#!/usr/bin/env bash
# Call E: the fp8 tasks' tolerances. ptxbench-baseline-error (bench/baseline_error.cpp) on every
# shape, input kind and seed of sm90/gemm/fp8-e4m3 and fp8-blockwise: cuBLASLt's own error
# against the reference (tau*: the smallest tau of the rule |out - ref| <= tau (rms + |ref|)),
# then the same for the experts and the no_promotion cheat built as shared objects.
# Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/e
work=/tmp/callE; mkdir -p "$work"
{ date -u; cat .carry/e/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
tests/adversarial/make_cheats.sh /tmp/cheats > /dev/null
build() {  # SOURCE NAME: a shared object as the judge builds one
  nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
    "$1" -o "/tmp/$2.so" > "$work/$2.build.txt" 2>&1 || echo "$2: build failed"
}
build kernels/reference/sm90_gemm_fp8_e4m3.cu e4m3_expert &
build kernels/reference/sm90_gemm_fp8_blockwise.cu blockwise_expert &
build /tmp/cheats/fp8_no_promotion.cu no_promotion &
wait
measure() {  # TASK NAME [SO]
  timeout 150 "$bin/ptxbench-baseline-error" "sm90/gemm/$1" ${3:+"$3"} > "$work/$2.json" \
    2> "$work/$2.log"
  echo "$2 exit $?" >> "$work/exits.txt"
}
measure fp8-e4m3 e4m3_library
measure fp8-e4m3 e4m3_expert /tmp/e4m3_expert.so
measure fp8-e4m3 e4m3_no_promotion /tmp/no_promotion.so
measure fp8-blockwise blockwise_library
measure fp8-blockwise blockwise_expert /tmp/blockwise_expert.so
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/exits.txt"
for f in "$work"/*.log; do echo "== $(basename "$f")"; grep -E "^[a-z_]+: largest|FAILS|unavailable|returned" "$f" | head -8; done
