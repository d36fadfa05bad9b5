#!/usr/bin/env bash
# Session 2026-12-05 (tenth), call 4 (not run: no machine was lent; for the next session):
# issue 24's varlen forward with a persistent grid (Grid::kPersistent, variant
# `varlen_persistent`; the expert is at 0.795 of cuDNN on many short causal sequences at D 64):
# the dev harness first (every check against the SIMT reference and every timing, the packed and
# the persistent grid side by side), then `ptxbench eval` of the expert and the variant,
# interleaved, 2 rounds, if the harness found the persistent grid correct.
# Usage (repository root of the GPU machine): call4.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
timeout 330 bench/attention_dev/varlen_dev.sh /tmp/vd > "$out/harness.log" 2>&1
echo "harness: exit $? after $((SECONDS - start)) s"
tar -C /tmp/vd -czf "$out/harness.tar.gz" .
grep -E '^(check|time)\.' /tmp/vd/summary.txt 2>/dev/null | grep -E 'persistent|FAIL|time\.task' | tail -40
# A failed check (a wrong persistent result, or a hang or crash of its test process): no evaluation.
if grep -E '^check\.' /tmp/vd/summary.txt 2>/dev/null | grep -q 'FAIL'; then
  echo "a check failed: no evaluation"; exit 0
fi
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/vv 2 varlen_persistent \
  > "$out/variants.log" 2>&1
tar -C /tmp/vv --exclude=cache -czf "$out/variants.tar.gz" .
tail -6 "$out/variants.log"
