#!/usr/bin/env bash
# Call C: the defaults taken this session (grouped expert: parallel prefix, PDL, whole-half TMA
# stores; fp8-e4m3 expert: CTA pairs along M, raster groups of 8 blocks) beside what they
# replace, with raw outputs: the grouped probe on the hidden Qwen3 down shape (expert, the
# expert before, register stores, persistent) and two rounds of bench/gemm_dev/variants.sh.
# Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callC; mkdir -p "$work"
{ date -u; git log --oneline -1 2>/dev/null; cat .carry/COMMIT 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} > "$work/environment.txt"
grouped=grouped_serial_prefix,grouped_register_store,grouped_persistent
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/vsrc" 1 "$grouped" > /dev/null 2>&1
timeout 100 bench/gemm_dev/probe.sh "$work/probe" "128,16384,2048,768" "$work"/vsrc/src/*.cu \
  > "$work/probe.log" 2>&1
PTXB_BUDGET_S=400 bench/gemm_dev/variants.sh "$bin" "$work/var" 2 "$grouped,fp8_single_cta" \
  > "$work/var.log" 2>&1
rm -rf "$work/var/cache" "$work/vsrc/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/probe/summary.txt"; tail -20 "$work/var.log"
