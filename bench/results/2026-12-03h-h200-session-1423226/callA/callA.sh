#!/usr/bin/env bash
# Call A: the attention-backward dev harness on the expert and on its kOverlapSteps variant
# (per-kernel times side by side), then both judged by ptxbench eval (one round each, three tasks).
set -uo pipefail
O="$OUT"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh .carry/bin-ad50de9 /tmp/v 1 bwd_overlap_steps > "$O/src.log" 2>&1
for k in base overlap; do
  f=kernels/reference/sm90_attention_bwd_bf16.cu; [ $k = overlap ] && f=/tmp/v/src/bwd_overlap_steps.cu
  PTXB_BWD_KERNEL=$f timeout 150 bench/attention_dev/bwd_dev.sh /tmp/bwd_$k > "$O/bwd_$k.log" 2>&1
  echo "bwd_$k exit $?" >> "$O/bwd_$k.log"; cp /tmp/bwd_$k/log.txt "$O/bwd_${k}_full.txt" 2>/dev/null
done
PTXB_BUDGET_S=230 bench/gemm_dev/variants.sh .carry/bin-ad50de9 "$O/var" 1 \
  bwd_overlap_steps,bwd_gqa_overlap_steps,bwd_d96_overlap_steps > "$O/var.log" 2>&1
tail -25 "$O/bwd_base.log"; tail -25 "$O/bwd_overlap.log"; tail -30 "$O/var.log"
