#!/usr/bin/env bash
# Session 2026-12-05 (ninth), call 1: the cp.async expert's L2-prefetch variants beside the
# experts (3 rounds), then Nsight Compute (--set full) on the TMA expert's GEMM kernel and on
# cuBLASLt's at 4096^3 and 8192^3 and on the cp.async expert's at 8192^3.
# Usage (repository root of the GPU machine): call1.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
PTXB_BUDGET_S=250 bench/gemm_dev/variants.sh "$bin" /tmp/v 3 wgmma_prefetch2,wgmma_prefetch4 \
  > "$out/variants.log" 2>&1
echo "variants: $((SECONDS - start)) s"
tar -C /tmp/v --exclude=cache -czf "$out/variants.tar.gz" .
tma=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu cpa=kernels/reference/sm90_gemm_bf16_wgmma.cu
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
# The library's kernel names at both shapes (the harness's 7 library calls among them).
for s in 4096 8192; do
  mkdir -p /tmp/names && nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include \
    bench/gemm_dev/gemm_probe.cu -o /tmp/names/gemm_probe -lcublasLt -ldl 2>/dev/null
  nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
    "$tma" -o /tmp/names/tma.so
  timeout 120 "$ncu" --metrics gpu__time_duration.sum --launch-count 30 \
    /tmp/names/gemm_probe /tmp/names/tma.so $s $s $s 4 > "$out/names_$s.txt" 2>&1
done
echo "names: $((SECONDS - start)) s"
PTXB_PROBE_NCU=1 PTXB_PROBE_NCU_LIBRARY=1 timeout 200 bench/gemm_dev/probe.sh /tmp/p4096 \
  "4096,4096,4096 8192,8192,8192" "$tma" > "$out/p4096.log" 2>&1
echo "p4096: $((SECONDS - start)) s"
PTXB_PROBE_NCU=1 PTXB_PROBE_NCU_LIBRARY=1 timeout 200 bench/gemm_dev/probe.sh /tmp/p8192 \
  "8192,8192,8192" "$tma" > "$out/p8192.log" 2>&1
echo "p8192: $((SECONDS - start)) s"
PTXB_PROBE_NCU=1 PTXB_PROBE_KERNEL=regex:cp_async_ws timeout 150 bench/gemm_dev/probe.sh \
  /tmp/pcp "8192,8192,8192 4096,4096,4096" "$cpa" /tmp/v/src/wgmma_prefetch4.cu > "$out/pcp.log" 2>&1
echo "pcp: $((SECONDS - start)) s"
for d in p4096 p8192 pcp; do
  tar -C /tmp/$d --exclude='*.so' --exclude='*_probe' -czf "$out/$d.tar.gz" .
done
tail -30 "$out/variants.log"; cat "$out/p4096.log" "$out/p8192.log" "$out/pcp.log" | tail -20
grep -h -o '  [a-zA-Z_0-9]*nvjet[a-zA-Z_0-9]*\|  [a-zA-Z_0-9]*xmma[a-zA-Z_0-9]*' "$out"/names_*.txt | sort | uniq -c
