#!/usr/bin/env bash
# Session 2026-12-05 (ninth), call 2 (not run; for the next session): the attention backward
# with dQ fused into k1, each consumer on its own keys (kFusedDq, variants `bwd_fused_dq`,
# `bwd_gqa_fused_dq`): the dev harness (building-block probes, every
# shape against the fp32 reference, per-kernel times) beside the expert, then `ptxbench eval` of
# the expert and the variants, 2 rounds, if the harness found the variant correct.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
timeout 330 bench/attention_dev/bwd_variants.sh /tmp/bv bwd_fused_dq > "$out/bwd_variants.log" 2>&1
echo "harness: exit $? after $((SECONDS - start)) s"
tar -C /tmp/bv --exclude='*.so' --exclude=bwd_dev --exclude='*.o' -czf "$out/harness.tar.gz" .
cat /tmp/bv/summary.txt 2>/dev/null | tail -60
if grep -A40 '== bwd_fused_dq' /tmp/bv/summary.txt 2>/dev/null | grep -q 'FAIL'; then
  echo "the fused variant failed in the harness: no evaluation"; exit 0
fi
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/vb 2 bwd_fused_dq,bwd_gqa_fused_dq \
  > "$out/variants.log" 2>&1
tar -C /tmp/vb --exclude=cache -czf "$out/variants.tar.gz" .
tail -25 "$out/variants.log"
