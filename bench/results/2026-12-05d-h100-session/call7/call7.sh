#!/usr/bin/env bash
# Session 2026-12-05 (eleventh), call 7 (not run: the session's device time was spent; for the
# next session): issue 24's varlen forward with warpgroups skipping the key tiles their rows do
# not need (kSkipMaskedTiles, variant `varlen_skip_masked`): the varlen dev harness (every check
# against the SIMT reference, packed and persistent grids, both head dims) for the variant, then
# `ptxbench eval` of the expert and the variant, interleaved, 2 rounds, if every check passed.
# Usage (repository root of the GPU machine): call7.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
variant=varlen_skip_masked
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/v7 1 "$variant" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_VARLEN_KERNEL=/tmp/v7/src/$variant.cu VARLEN_DEV_BUDGET=240 timeout 320 \
  bench/attention_dev/varlen_dev.sh "$out/harness" /tmp/vd7 > "$out/harness.log" 2>&1
echo "harness: exit $? after $((SECONDS - start)) s"
grep -E '^RESULT' "$out/harness/run.log" | cut -f2- | grep -E 'FAIL|^time\.' | head -30
# the verdict column (4th), not a detail's text
if grep -E '^RESULT.check' "$out/harness/run.log" | awk -F'\t' '$4 == "FAIL"' | grep -q .; then
  echo "a check failed: no evaluation"; exit 0
fi
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/v7 2 "$variant" \
  > "$out/variants.log" 2>&1
tar -C /tmp/v7 --exclude=cache -czf "$out/variants.tar.gz" .
tail -6 "$out/variants.log"
