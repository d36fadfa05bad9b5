#!/usr/bin/env bash
# Builds and runs the attention-backward dev harness (bwd_dev.cu) on a GPU machine with CUDA 13.0.
# Run from the repository root:  bench/attention_dev/bwd_dev.sh OUT_DIR [bwd_dev arguments]
# OUT_DIR receives: kernel.so and kernel_ptxas.txt (the submission built with the harness's exact
# flags), kernel.sass, bwd_dev (the harness) with its build logs, and log.txt (the full run).
# Prints the kernels' registers/spills and the harness's summary table last.
# PTXB_BWD_KERNEL=FILE: a variant of the expert instead (e.g. from bench/gemm_dev/variants.sh with
#   PTXB_SOURCES_ONLY=1), both as kernel.so and in the harness, which #includes what it times
set -uo pipefail

out="${1:?usage: bench/attention_dev/bwd_dev.sh OUT_DIR [--quick] [--no-timing] [--ref-budget S] [--only TEXT]}"
shift
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
arch=(-gencode arch=compute_90a,code=sm_90a)
source "$(dirname "${BASH_SOURCE[0]}")/kernel_choice.sh"
choose_kernel PTXB_BWD_KERNEL kernels/reference/sm90_attention_bwd_bf16.cu PTXB_BWD_SOURCE

# The submission exactly as PTXBench compiles it, plus ptxas -v; the harness objects in parallel.
"$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo "${arch[@]}" -I include -Xptxas -v \
  "$kernel" -o "$out/kernel.so" >"$out/kernel_ptxas.txt" 2>&1 &
so_pid=$!
common=(-O3 -std=c++17 -lineinfo "${arch[@]}" -I src -I include)
"$nvcc" "${common[@]}" "${source_define[@]}" -Xptxas -v -c bench/attention_dev/bwd_dev.cu \
  -o "$out/bwd_dev.o" >"$out/bwd_dev_build.txt" 2>&1 &
dev_pid=$!
"$nvcc" "${common[@]}" -c src/verify/gpu_reference_attention.cu -o "$out/reference.o" \
  >"$out/reference_build.txt" 2>&1 &
ref_pid=$!
"$nvcc" "${common[@]}" -c src/core/error.cpp -o "$out/error.o" >"$out/error_build.txt" 2>&1 &
err_pid=$!
# the fp64 reference's matrix products (cuBLASLt) and buffers
"$nvcc" "${common[@]}" -c src/verify/fp64_buffers.cu src/cuda/fp64_gemm.cpp src/cuda/device.cpp \
  src/core/dtype.cpp -odir "$out" >"$out/fp64_build.txt" 2>&1 &
fp64_pid=$!

failed=0
for job in "so_pid:kernel_ptxas" "dev_pid:bwd_dev_build" "ref_pid:reference_build" \
  "err_pid:error_build" "fp64_pid:fp64_build"; do
  pid_var="${job%%:*}"
  if ! wait "${!pid_var}"; then
    echo "BUILD FAILED: see $out/${job#*:}.txt" >&2
    tail -n 30 "$out/${job#*:}.txt" >&2
    failed=1
  fi
done
[ "$failed" = 0 ] || exit 1
"$nvcc" "${arch[@]}" "$out/bwd_dev.o" "$out/reference.o" "$out/error.o" "$out/fp64_buffers.o" \
  "$out/fp64_gemm.o" "$out/device.o" "$out/dtype.o" -lcublasLt -lcuda -o "$out/bwd_dev" \
  >"$out/link.txt" 2>&1 || { cat "$out/link.txt" >&2; exit 1; }
# BWD_DEV_BUILD_ONLY=1: stop here (build on a machine without a GPU, run OUT_DIR/bwd_dev later).
[ "${BWD_DEV_BUILD_ONLY:-0}" = 1 ] && exit 0
cuobjdump="$(command -v cuobjdump || echo "$(dirname "$nvcc")/cuobjdump")"
[ -x "$cuobjdump" ] && "$cuobjdump" -sass "$out/kernel.so" >"$out/kernel.sass" 2>&1

timeout 300 "$out/bwd_dev" "$@" >"$out/log.txt" 2>&1
rc=$?
[ "$rc" = 124 ] && echo "bwd_dev: killed by timeout 300" >>"$out/log.txt"

echo "== kernel build (ptxas -v with the harness's flags; SASS: highest register used)"
awk '/Compiling entry function/ {
       n = $0; sub(/.*_cu_[0-9a-f]+[0-9]+/, "", n); sub(/ILi/, "<", n); sub(/EE.*/, ">", n); name = n }
     /spill stores/ { spill = $5 " B spill stores, " $9 " B spill loads" }
     /Used [0-9]+ registers/ { print "  " name ": launch " $5 " registers, " spill }
     /warning/ { print "  " $0 }' "$out/kernel_ptxas.txt"
if [ -f "$out/kernel.sass" ]; then
  # NOTE: after setmaxnreg the consumer warpgroups may use more than the launch count (240 max).
  awk '/Function :/ { n = $3; sub(/.*_cu_[0-9a-f]+[0-9]+/, "", n); sub(/ILi/, "<", n);
                      sub(/EE.*/, ">", n); f = n; order[++k] = f; hi[f] = 0 }
       { line = $0
         while (match(line, /[^U]R[0-9]+/)) {
           r = substr(line, RSTART + 2, RLENGTH - 2) + 0; if (r > hi[f]) hi[f] = r
           line = substr(line, RSTART + RLENGTH) } }
       END { for (i = 1; i <= k; ++i) printf "  %s: highest register R%d\n", order[i], hi[order[i]] }' \
    "$out/kernel.sass"
  echo "  HGMMA in SASS: $(grep -c HGMMA "$out/kernel.sass"), UTMALDG: $(grep -c UTMALDG "$out/kernel.sass"), TRYWAIT: $(grep -c TRYWAIT "$out/kernel.sass")"
fi
echo "== run (exit $rc; full log $out/log.txt)"
sed -n '/==== SUMMARY/,$p' "$out/log.txt"
grep -q "==== SUMMARY" "$out/log.txt" || tail -n 40 "$out/log.txt"
exit "$rc"
