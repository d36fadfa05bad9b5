#!/usr/bin/env bash
# Builds bench/probes/sass_metrics_gemm_probe.cu and, for each GEMM submission (a shared object
# built with the judge's flags) and shape, collects one call's per-instruction counts with CUPTI's
# SASS metrics (the libcupti of CUPTI_DIR: 13.2 or later, docs/timing.md) and profiles the same
# call under Nsight Compute with its per-opcode metric and the thread-level arithmetic classes,
# then compares the two by kernel, opcode and class (bench/probes/compare_sass_records.py). Logs
# in OUT/NAME_MxNxK.*; one line per pair last.
# Usage (GPU machine, repository root): sass_metrics_gemm_probe.sh OUT CUPTI_DIR "M,N,K ..." SO...
set -uo pipefail
out="$1" cupti="$(cd "$2" && pwd)" shapes="$3"; shift 3
mkdir -p "$out"; out="$(cd "$out" && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include \
  -o "$out/sass_metrics_gemm_probe" bench/probes/sass_metrics_gemm_probe.cu \
  -L"$cuda/extras/CUPTI/lib64" -lcupti -lcuda -ldl > "$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log"; exit 1; }
summary="$out/summary.txt"; : > "$summary"
# The thread-level arithmetic classes of the non-target FLOP rule (src/controls/flop_classes.hpp),
# compared with the records' thread counts summed by opcode (src/instrument/sass_profile.cpp).
classes=""
for c in ffma fmul fadd hfma hmul hadd dfma dmul dadd; do
  classes+="${classes:+,}smsp__sass_thread_inst_executed_op_${c}_pred_on.sum"
done
for so in "$@"; do
  name="$(basename "$so" .so)"
  cuobjdump -sass "$so" > "$out/$name.sass" 2>&1
  for shape in $shapes; do
    IFS=, read -r m n k <<< "$shape"; tag="${name}_${m}x${n}x${k}"
    LD_LIBRARY_PATH="$cupti:$cuda/extras/CUPTI/lib64:$cuda/lib64" timeout 120 \
      "$out/sass_metrics_gemm_probe" "$so" "$m" "$n" "$k" "$out/$tag.records" 3 \
      > "$out/$tag.cupti.log" 2>&1
    echo "cupti exit $?" >> "$out/$tag.cupti.log"
    timeout 180 ncu --metrics "sass__inst_executed_per_opcode_with_modifier_all,$classes" \
      --print-metric-instances details --csv --log-file "$out/$tag.ncu.csv" \
      "$out/sass_metrics_gemm_probe" "$so" "$m" "$n" "$k" plain 0 > "$out/$tag.ncu.log" 2>&1
    echo "ncu exit $?" >> "$out/$tag.ncu.log"
    {
      echo "== $tag"
      grep -E "collected call|uncollected|configured|exit" "$out/$tag.cupti.log"
      python3 bench/probes/compare_sass_records.py "$out/$name.sass" "$out/$tag.records" \
        "$out/$tag.ncu.csv"
    } >> "$summary" 2>&1
  done
done
cat "$summary"
