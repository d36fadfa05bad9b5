#!/usr/bin/env bash
# Call E: the final gate (one tile row, whole k-blocks) of both narrow kernels: the TMA, llm and
# fp8 per-tensor experts judged once each, then the fp8 and llm hostile submissions generated from
# these experts (tests/adversarial/make_cheats.sh) with the TMA expert as the control.
# Run from the repository root: callE.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; work=/tmp/callE; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$work/gpu.txt"
bench/device_call.sh "$bin" "$work" experts 330 experts tma,fp8,llm 1 > "$work/experts.log" 2>&1
tests/adversarial/make_cheats.sh "$work/cheats-src" > /dev/null
timeout 230 tests/adversarial/run.sh "$bin" "$work/cheats" "$work"/cheats-src/fp8_*.cu \
  "$work"/cheats-src/llm_*.cu > "$work/cheats.log" 2>&1
echo "cheats exit $?" >> "$work/cheats.log"
rm -rf "$work/cheats-src"
tar -C "$work" --exclude=cache -czf "$out/callE.tar.gz" .
tail -8 "$work/experts.log"; cut -f1,4,5,6 "$work/cheats/summary.tsv"; tail -2 "$work/cheats.log"
