#!/usr/bin/env bash
# Session 2026-12-05 (eleventh), call 5 (not run: no machine was lent; for the next session):
# the forward at D 64 on 192-query tiles with three consumer warpgroups (kThreeConsumersD64,
# variant `fwd_d64_three_consumers`; the D 64 shapes sit at 0.78 of cuDNN dense and 0.795 in the
# varlen task, issue 24). The forward dev harness on its D 64 tests (self-tests, every schedule
# against the fp32 reference, timings) for the expert and the variant, then `ptxbench eval` of
# both on sm90/attention/fwd-bf16, interleaved, 2 rounds, if the variant passed every check.
# Usage (repository root of the GPU machine): call5.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
start=$SECONDS
variant=fwd_d64_three_consumers
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/v5 1 "$variant" > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
# D 64 tests only: names are check.BxHxHKVxSxD.mask and time.BxHxHKVxSxD.mask
tests='^(selftest|abi)|x64\.(full|causal)'
FWD_DEV_TESTS="$tests" FWD_DEV_BUDGET=150 bench/attention_dev/fwd_dev.sh "$out/expert" /tmp/fb_e \
  > "$out/expert.log" 2>&1 &
PTXB_FWD_KERNEL=/tmp/v5/src/$variant.cu FWD_DEV_BUILD_ONLY=1 bench/attention_dev/fwd_dev.sh \
  "$out/variant" /tmp/fb_v > "$out/variant_build.log" 2>&1
wait
PTXB_FWD_KERNEL=/tmp/v5/src/$variant.cu FWD_DEV_PREBUILT=1 FWD_DEV_TESTS="$tests" FWD_DEV_BUDGET=150 \
  bench/attention_dev/fwd_dev.sh "$out/variant" /tmp/fb_v > "$out/variant.log" 2>&1
echo "harnesses: exit $? after $((SECONDS - start)) s"
for side in expert variant; do
  echo "== $side"
  grep -E 'RESULT' "$out/$side/run.log" | cut -f2- | grep -E 'FAIL|^time\.' | head -30
done
# the verdict column (4th; a detail may say task_tol=FAIL for the element rule, as the expert's do)
if grep -E '^RESULT.(check|selftest|abi)' "$out/variant/run.log" | awk -F'\t' '$4 == "FAIL"' | grep -q .; then
  echo "the variant failed a check: no evaluation"; exit 0
fi
left=$((560 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/v5 2 "$variant" \
  > "$out/variants.log" 2>&1
tar -C /tmp/v5 --exclude=cache -czf "$out/variants.tar.gz" .
tail -8 "$out/variants.log"
