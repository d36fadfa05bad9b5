#!/usr/bin/env bash
# Call A: the grouped expert and its prefix variants in the probe harness (hidden Qwen3 down,
# DeepSeek-V3 gate/up, G = 8; ncu --set full of the expert and the parallel-prefix + PDL variant
# on the first shape), then one round of bench/gemm_dev/variants.sh over the fp8 cluster variants
# and the grouped prefix variants, each beside its expert. Everything packed into $OUT/all.tar.gz.
set -uo pipefail
bin=.carry/bin
work=/tmp/callA; mkdir -p "$work"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv; } > "$work/environment.txt"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" "$work/vsrc" 1 \
  grouped_parprefix,grouped_parprefix_pdl,grouped_parprefix_pdl_persistent > /dev/null 2>&1
timeout 200 bench/gemm_dev/probe.sh "$work/probe" "128,16384,2048,768 256,32768,4096,7168 8,32768,4096,7168" \
  "$work"/vsrc/src/expert_bf16_grouped.cu "$work"/vsrc/src/grouped_parprefix.cu \
  "$work"/vsrc/src/grouped_parprefix_pdl.cu "$work"/vsrc/src/grouped_parprefix_pdl_persistent.cu \
  > "$work/probe.log" 2>&1
PTXB_PROBE_NCU=1 timeout 120 bench/gemm_dev/probe.sh "$work/ncu" "128,16384,2048,768" \
  "$work"/vsrc/src/expert_bf16_grouped.cu "$work"/vsrc/src/grouped_parprefix_pdl.cu > "$work/ncu.log" 2>&1
PTXB_BUDGET_S=330 bench/gemm_dev/variants.sh "$bin" "$work/var" 1 \
  fp8_cluster2,fp8b_cluster2,fp8_cluster2_groupm8,fp8b_cluster2_groupm8,grouped_parprefix,grouped_parprefix_pdl,grouped_parprefix_pdl_persistent \
  > "$work/var.log" 2>&1
rm -rf "$work/var/cache" "$work/vsrc/cache"
tar -C "$work" -czf "$OUT/all.tar.gz" .
cat "$work/probe.log"; grep -v "^$" "$work/ncu/summary.txt" 2>/dev/null; tail -30 "$work/var.log"
