#!/usr/bin/env bash
# Each GEMM source built as a shared object (the judge's flags, -lineinfo) and run by the probe
# harness (gemm_probe.cu: kernel and cuBLASLt side by side, C compared) on each shape; with
# PTXB_PROBE_NCU=1 also one Nsight Compute report per source on the first shape (--set full, the
# kernel's 4th launch, the library not run; kernels named by PTXB_PROBE_KERNEL, default
# regex:tma_ws, the TMA experts' GEMM kernels), kept as OUT/NAME.ncu-rep with its text details in
# OUT/NAME.ncu.txt and every raw metric (warp stall reasons among them) in OUT/NAME.raw.csv, to
# read where ncu is not installed. Prints one line per (source, shape) last.
# Usage (GPU machine, repository root): bench/gemm_dev/probe.sh OUT "M,N,K M,N,K ..." FILE.cu...
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
for src in "$@"; do
  name="$(basename "$src" .cu)"
  "$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo "${arch[@]}" -I include -Xptxas -v \
    "$src" -o "$out/$name.so" > "$out/$name.build.txt" 2>&1 || { echo "$name: build failed"; continue; }
done
summary="$out/summary.txt"; : > "$summary"
for src in "$@"; do
  name="$(basename "$src" .cu)"
  [[ -f "$out/$name.so" ]] || continue
  for shape in $shapes; do
    IFS=, read -r m n k <<< "$shape"
    echo "$name $("$out/gemm_probe" "$out/$name.so" "$m" "$n" "$k" 2>&1 | tail -1)" >> "$summary"
  done
  if [[ "${PTXB_PROBE_NCU:-0}" == 1 ]]; then
    IFS=, read -r m n k <<< "${shapes%% *}"
    PROBE_NO_LIBRARY=1 "$ncu" --set full --launch-skip 3 --launch-count 1 \
      -k "${PTXB_PROBE_KERNEL:-regex:tma_ws}" -f -o "$out/$name" \
      "$out/gemm_probe" "$out/$name.so" "$m" "$n" "$k" 4 > "$out/$name.ncu.log" 2>&1
    "$ncu" --import "$out/$name.ncu-rep" --page details > "$out/$name.ncu.txt" 2>&1
    "$ncu" --import "$out/$name.ncu-rep" --page raw --csv > "$out/$name.raw.csv" 2>&1
  fi
done
cat "$summary"
