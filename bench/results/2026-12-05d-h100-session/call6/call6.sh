#!/usr/bin/env bash
# Session 2026-12-05 (eleventh), call 6 (not run: no machine was lent; for the next session):
# issue 24's varlen forward at D 64 on 192-query tiles with three consumer warpgroups
# (kThreeConsumersD64 in the varlen expert, variant `varlen_d64_three_consumers`; with the
# persistent grid too, `varlen_d64_three_consumers_persistent`): the varlen dev harness's D 64
# tests for the variant (every check against the SIMT reference, packed and persistent grids
# side by side, and the timings), then `ptxbench eval` of the expert and both variants on
# sm90/attention/fwd-varlen, interleaved, 2 rounds, if every check passed. Best run after
# call 5 has shown that three consumers pay in the dense forward.
# Usage (repository root of the GPU machine): call6.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
variants=varlen_d64_three_consumers,varlen_d64_three_consumers_persistent
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/v6 1 "$variants" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_VARLEN_KERNEL=/tmp/v6/src/varlen_d64_three_consumers.cu VARLEN_DEV_TESTS='^abi|\.d64\.' \
  VARLEN_DEV_BUDGET=200 timeout 280 bench/attention_dev/varlen_dev.sh "$out/harness" /tmp/vd6 \
  > "$out/harness.log" 2>&1
echo "harness: exit $? after $((SECONDS - start)) s"
grep -E '^RESULT' "$out/harness/run.log" | cut -f2- | grep -E 'FAIL|^time\.' | head -30
# the verdict column (4th), not a detail's text
if grep -E '^RESULT.check' "$out/harness/run.log" | awk -F'\t' '$4 == "FAIL"' | grep -q .; then
  echo "a check failed: no evaluation"; exit 0
fi
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/v6 2 "$variants" \
  > "$out/variants.log" 2>&1
tar -C /tmp/v6 --exclude=cache -czf "$out/variants.tar.gz" .
tail -8 "$out/variants.log"
