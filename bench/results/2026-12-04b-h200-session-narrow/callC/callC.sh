#!/usr/bin/env bash
# Call C: regression of the working tree (GPU tests, every committed hostile submission), then
# the narrow tiles' B eviction hint where tile rows share B (two tile rows) in the probe harness.
# Run from the repository root: callC.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callC; mkdir -p "$work"
bench/device_call.sh "$bin" "$work" reg 330 gputests adversarial > "$work/reg.log" 2>&1
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/v" 1 tma_nonarrow,tma_narrow_nohint
s="$work/v/src"
timeout 150 bench/gemm_dev/probe.sh "$work/probe" "256,4096,8192 256,3584,8192 128,8100,4104 128,8192,8192" \
  "$s/expert_bf16_wgmma_tma.cu" "$s/tma_nonarrow.cu" "$s/tma_narrow_nohint.cu" > "$work/probe.log" 2>&1
rm -rf "$work/probe"/*.so "$work/probe"/{gemm,fp8,grouped}_probe
tar -C "$work" -czf "$out/callC.tar.gz" .
tail -4 "$work/reg.log"; echo "== probe"; cat "$work/probe/summary.txt"
