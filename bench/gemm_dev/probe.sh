#!/usr/bin/env bash
# Each GEMM source built as a shared object (the judge's flags, -lineinfo) and run by the probe
# harness (gemm_probe.cu: kernel and cuBLASLt side by side, C compared) on each shape; with
# PTXB_PROBE_NCU=1 also one Nsight Compute report per source on the first shape (--set full, the
# kernel's 4th launch, the library not run; kernels named by PTXB_PROBE_KERNEL, default
# regex:tma_ws, the TMA experts' GEMM kernels), kept as OUT/NAME.ncu-rep with its text details in
# OUT/NAME.ncu.txt, every raw metric (warp stall reasons among them) in OUT/NAME.raw.csv and the
# per-instruction SASS view (stall samples per instruction) in OUT/NAME.source.csv, to read where
# ncu is not installed; with PTXB_PROBE_NCU_LIBRARY=1 as well the library's kernel on that shape
# (the 4th launch of a kernel PTXB_PROBE_LIBRARY_KERNEL names, default cuBLASLt's nvjet/xmma
# kernels) as OUT/cublaslt.*. Prints one line per (source, shape) last.
# A shape of four numbers, G,M,N,K, runs the grouped harness instead (grouped_probe.cu: G groups
# over M rows drawn as the grouped task draws them, the kernel alone, no library); tensor:M,N,K
# and block:M,N,K the fp8 one (fp8_probe.cu: an fp8-e4m3 or fp8-blockwise submission alone).
# Usage (GPU machine, repository root): bench/gemm_dev/probe.sh OUT "M,N,K G,M,N,K ..." FILE.cu...
#   PTXB_PROBE_TIMEOUT_S: the limit of one harness run (default 60; a hung kernel costs only that)
#   PTXB_PROBE_BUILD_ONLY=1: build the harnesses and stop (no GPU needed)
#   e.g. PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh BIN /tmp/v 1 tma_cluster2
#        bench/gemm_dev/probe.sh $OUT "4096,4096,4096 8192,8192,8192" /tmp/v/src/*.cu
set -uo pipefail
out="$1" shapes="$2"; shift 2
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
arch=(-gencode arch=compute_90a,code=sm_90a)
"$nvcc" -O3 -std=c++17 "${arch[@]}" -I include bench/gemm_dev/gemm_probe.cu -o "$out/gemm_probe" \
  -lcublasLt -ldl > "$out/gemm_probe_build.txt" 2>&1 || { cat "$out/gemm_probe_build.txt"; exit 1; }
"$nvcc" -O3 -std=c++20 "${arch[@]}" -I include -I src bench/gemm_dev/grouped_probe.cu \
  src/families/structured_values.cpp src/core/error.cpp src/core/shape.cpp -o "$out/grouped_probe" \
  -ldl > "$out/grouped_probe_build.txt" 2>&1 || { cat "$out/grouped_probe_build.txt"; exit 1; }
"$nvcc" -O3 -std=c++17 "${arch[@]}" -I include bench/gemm_dev/fp8_probe.cu -o "$out/fp8_probe" \
  -ldl > "$out/fp8_probe_build.txt" 2>&1 || { cat "$out/fp8_probe_build.txt"; exit 1; }
# PTXB_PROBE_BUILD_ONLY=1: stop here (a machine without a GPU checks that the harnesses build).
[[ "${PTXB_PROBE_BUILD_ONLY:-0}" == 1 ]] && exit 0
# probe SO SHAPE [CALLS]: the harness the shape's prefix or field count names.
limit="${PTXB_PROBE_TIMEOUT_S:-60}"
probe() {
  local fields
  if [[ "$2" == tensor:* || "$2" == block:* ]]; then
    IFS=, read -r -a fields <<< "${2#*:}"
    timeout "$limit" "$out/fp8_probe" "$1" "${2%%:*}" "${fields[@]}" ${3:+"$3"}
    return
  fi
  IFS=, read -r -a fields <<< "$2"
  if (( ${#fields[@]} == 4 )); then
    timeout "$limit" "$out/grouped_probe" "$1" "${fields[@]}" ${3:+"$3"}
  else
    timeout "$limit" "$out/gemm_probe" "$1" "${fields[@]}" ${3:+"$3"}
  fi
}
# ncu_report NAME: the text details, raw metrics and SASS view of OUT/NAME.ncu-rep.
ncu_report() {
  "$ncu" --import "$out/$1.ncu-rep" --page details > "$out/$1.ncu.txt" 2>&1
  "$ncu" --import "$out/$1.ncu-rep" --page raw --csv > "$out/$1.raw.csv" 2>&1
  "$ncu" --import "$out/$1.ncu-rep" --page source --csv --print-source sass \
    > "$out/$1.source.csv" 2>&1
}
for src in "$@"; do  # built side by side, run one after another
  name="$(basename "$src" .cu)"
  "$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo "${arch[@]}" -I include -Xptxas -v \
    "$src" -o "$out/$name.so" > "$out/$name.build.txt" 2>&1 || echo "$name: build failed" &
done
wait
summary="$out/summary.txt"; : > "$summary"
for src in "$@"; do
  name="$(basename "$src" .cu)"
  [[ -f "$out/$name.so" ]] || continue
  for shape in $shapes; do
    probe "$out/$name.so" "$shape" > "$out/run.txt" 2>&1
    status=$?
    line="$(tail -1 "$out/run.txt")"
    (( status == 124 )) && line="$shape timed out after $limit s"
    echo "$name $line" >> "$summary"
  done
  if [[ "${PTXB_PROBE_NCU:-0}" == 1 ]]; then
    PROBE_NO_LIBRARY=1 "$ncu" --set full --launch-skip 3 --launch-count 1 \
      -k "${PTXB_PROBE_KERNEL:-regex:tma_ws}" -f -o "$out/$name" \
      bash -c "$(declare -f probe); out='$out'; limit='$limit'; probe '$out/$name.so' '${shapes%% *}' 4" \
      > "$out/$name.ncu.log" 2>&1
    ncu_report "$name"
  fi
done
if [[ "${PTXB_PROBE_NCU_LIBRARY:-0}" == 1 ]]; then
  first="$(basename "$1" .cu)"  # any built source: its harness also runs the library
  "$ncu" --set full --launch-skip 3 --launch-count 1 \
    -k "${PTXB_PROBE_LIBRARY_KERNEL:-regex:nvjet|xmma}" -f -o "$out/cublaslt" \
    bash -c "$(declare -f probe); out='$out'; limit='$limit'; probe '$out/$first.so' '${shapes%% *}' 4" \
    > "$out/cublaslt.ncu.log" 2>&1
  ncu_report cublaslt
fi
cat "$summary"
