#!/usr/bin/env bash
# Compiles the named variants of bench/gemm_dev/variants.sh (and their experts) on this machine,
# no GPU needed, with the judge's architecture flags, and prints each kernel's registers and
# spills: a variant prepared for a GPU session is checked to build before device time is spent.
# Usage (repository root): bench/gemm_dev/compile_variants.sh OUT VARIANTS   (comma-separated)
set -uo pipefail
out="$1" names="$2"
mkdir -p "$out"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh . "$out" 1 "$names" || exit 1
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
bad=0
for f in "$out"/src/*.cu; do
  name="$(basename "$f" .cu)"
  if "$nvcc" -O3 -std=c++17 -cubin -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I include \
    "$f" -o "$out/$name.cubin" > "$out/$name.log" 2>&1; then
    regs="$(grep -o 'Used [0-9]* registers' "$out/$name.log" | awk '{print $2}' | sort -n | tr '\n' ' ')"
    spills="$(grep -o '[0-9]* bytes spill stores' "$out/$name.log" | awk '{s += $1} END {print s + 0}')"
    echo "$name: ok (registers per kernel: $regs; spill stores $spills B)"
  else
    echo "$name: COMPILE ERROR ($out/$name.log)"; bad=1
  fi
done
exit "$bad"
