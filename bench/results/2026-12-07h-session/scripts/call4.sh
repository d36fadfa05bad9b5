#!/usr/bin/env bash
# Session 2026-12-07h (thirty-fifth), call 4: (1) do CUPTI 13.2.86's SASS metrics, collected in
# the process, count per opcode what Nsight Compute counts, on the GEMM experts' real kernels
# (bench/probes/sass_metrics_gemm_probe.sh; the TMA expert at 4096^3, 8192^3 with its tail
# kernel, the few-row narrow kernel and a split-K shape with its reduction; the cp.async expert
# at 4096^3)? (2) call3.sh: where the TMA expert falls behind cuBLASLt on ragged shapes.
# Usage (repository root of the GPU machine): call4.sh CUPTI_DIR SO_DIR OUT
#   CUPTI_DIR: .carry/cupti.tar.xz unpacked (its 13.2.86 folder is used); SO_DIR: the experts
#   built here as shared objects (.carry/sms)
set -uo pipefail
cupti="$1" sos="$2" out="$3"
mkdir -p "$out"
timeout 280 bash bench/probes/sass_metrics_gemm_probe.sh "$out/sass" "$cupti/13.2.86" \
  "4096,4096,4096 8192,8192,8192 128,8192,8192 256,8192,4096" \
  "$sos/sm90_gemm_bf16_wgmma_tma.so" > "$out/sass_tma.txt" 2>&1
timeout 60 bash bench/probes/sass_metrics_gemm_probe.sh "$out/sass_cp" "$cupti/13.2.86" \
  "4096,4096,4096" "$sos/sm90_gemm_bf16_wgmma.so" > "$out/sass_cp.txt" 2>&1
cat "$out/sass_tma.txt" "$out/sass_cp.txt"
tar -C "$out" -czf "$out/sass_logs.tar.gz" --exclude=sass_metrics_gemm_probe sass sass_cp &&
  rm -rf "$out/sass" "$out/sass_cp"
bash bench/results/2026-12-07h-session/scripts/call3.sh "$out/ragged" | tail -14
