#!/usr/bin/env bash
# Session 2026-12-05 (ninth), call 1 (not run: no machine was lent; kept for the next session):
# the cp.async expert's L2-prefetch variants beside the experts (3 rounds), then Nsight Compute
# (--set full) on the TMA expert's GEMM kernel and on cuBLASLt's at 4096^3 and 8192^3 and on the
# cp.async expert's at 8192^3, then whether L2-side sectors count the other reads
# (bench/probes/other_read_sectors_probe.sh; BIN needs ptxbench-range-probe too).
# Usage (repository root of the GPU machine): call1.sh BIN OUT [PART]
#   PART: a (the variants and the sectors probe, ~380 s), b (the Nsight Compute profiles, ~300 s)
#   or all (default; may pass one call's 600 s)
set -uo pipefail
bin="$1" out="$2" part="${3:-all}"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
if [[ "$part" != b ]]; then
PTXB_BUDGET_S=220 bench/gemm_dev/variants.sh "$bin" /tmp/v 3 wgmma_prefetch2,wgmma_prefetch4 \
  > "$out/variants.log" 2>&1
echo "variants: $((SECONDS - start)) s"
tar -C /tmp/v --exclude=cache -czf "$out/variants.tar.gz" .
timeout 150 bench/probes/other_read_sectors_probe.sh "$bin" /tmp/sectors > "$out/sectors.log" 2>&1
echo "sectors: $((SECONDS - start)) s"
tar -C /tmp/sectors --exclude='*.so' -czf "$out/sectors.tar.gz" .
tail -30 "$out/variants.log"; grep -v '^      ' "$out/sectors.log" | tail -8
fi
[[ "$part" == a ]] && exit 0
tma=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu cpa=kernels/reference/sm90_gemm_bf16_wgmma.cu
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
# The library's kernel names at both shapes (the harness's 7 library calls among them).
mkdir -p /tmp/names && nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include \
  bench/gemm_dev/gemm_probe.cu -o /tmp/names/gemm_probe -lcublasLt -ldl 2>/dev/null
nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
  "$tma" -o /tmp/names/tma.so
[[ -f /tmp/v/src/wgmma_prefetch4.cu ]] ||
  PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/v 1 wgmma_prefetch4 > /dev/null 2>&1
for s in 4096 8192; do
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
cat "$out/p4096.log" "$out/p8192.log" "$out/pcp.log" | tail -20
grep -h -o '  [a-zA-Z_0-9]*nvjet[a-zA-Z_0-9]*\|  [a-zA-Z_0-9]*xmma[a-zA-Z_0-9]*' "$out"/names_*.txt | sort | uniq -c
