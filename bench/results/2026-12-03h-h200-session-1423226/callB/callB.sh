#!/usr/bin/env bash
# Call B: the attention-backward expert with dQ fused into k1 (branch bwd-fused-dq, working tree):
# the dev harness's 36 cases and per-kernel times, then ptxbench eval of the expert against its
# kFusedDq = false variant (k2 computes dQ, as before), one round each, three tasks.
set -uo pipefail
O="$OUT"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
timeout 200 bench/attention_dev/bwd_dev.sh /tmp/bwd > "$O/bwd.log" 2>&1
echo "bwd exit $?" >> "$O/bwd.log"; cp /tmp/bwd/log.txt "$O/bwd_full.txt" 2>/dev/null
cp /tmp/bwd/kernel_ptxas.txt "$O/" 2>/dev/null
PTXB_BUDGET_S=300 bench/gemm_dev/variants.sh .carry/bin-ad50de9 /tmp/var 1 \
  bwd_unfused_dq,bwd_gqa_unfused_dq,bwd_d96_unfused_dq > "$O/var.log" 2>&1
mkdir -p "$O/var"; cp /tmp/var/*.json /tmp/var/*.txt "$O/var/" 2>/dev/null
tar czf "$O/var.tar.gz" -C /tmp var/src 2>/dev/null
tail -45 "$O/bwd.log"; tail -12 "$O/var.log"
