#!/usr/bin/env bash
# Call B: the grouped expert's tile records and whole-half TMA stores (with the parallel prefix
# and PDL of call A) in the probe harness on the hidden Qwen3 down shape, then two rounds of
# bench/gemm_dev/variants.sh: those grouped variants and the fp8 2-CTA cluster with raster groups
# of 8 and 4 block rows, each beside its expert. Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callB; mkdir -p "$work"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv; } > "$work/environment.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/vsrc" 1 \
  grouped_parprefix_pdl,grouped_records,grouped_halftma,grouped_records_halftma > /dev/null 2>&1
timeout 100 bench/gemm_dev/probe.sh "$work/probe" "128,16384,2048,768" "$work"/vsrc/src/*.cu \
  > "$work/probe.log" 2>&1
PTXB_BUDGET_S=330 bench/gemm_dev/variants.sh "$bin" "$work/var" 2 \
  grouped_parprefix_pdl,grouped_records,grouped_halftma,grouped_records_halftma,fp8_cluster2_groupm8,fp8_cluster2_groupm4 \
  > "$work/var.log" 2>&1
rm -rf "$work/var/cache" "$work/vsrc/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/probe/summary.txt"; tail -30 "$work/var.log"
