#!/usr/bin/env bash
# Session 2026-12-05 (twelfth), call A: (a) issue 19's staged fp8 scales crash under
# compute-sanitizer (the fp8 probe and the fp8b_staged variant prebuilt with -lineinfo under
# BIN/fp8, one call at 1024^3; the variant's SASS kept to map the faulting PC); (b) issue 22's
# backward with dQ fused into k1 (kFusedDq, variant bwd_fused_dq): the dev harness beside the
# expert (building blocks, every shape against the fp32 reference, per-kernel times), then
# `ptxbench eval` of the expert and the variants, interleaved, if the harness found it correct.
# Usage (repository root of the GPU machine): callA.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out/fp8"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$out/gpu.txt"
start=$SECONDS
# (a)
san="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 30 "$bin/fp8/fp8_probe" "$bin/fp8/fp8b_staged.so" block 1024 1024 1024 3 > "$out/fp8/plain.txt" 2>&1
echo "fp8b_staged plain run: exit $?"; tail -2 "$out/fp8/plain.txt"
timeout 120 "$san" --tool memcheck --show-backtrace device --print-limit 20 \
  "$bin/fp8/fp8_probe" "$bin/fp8/fp8b_staged.so" block 1024 1024 1024 1 > "$out/fp8/memcheck.txt" 2>&1
echo "memcheck: exit $?"; grep -m6 -E "Illegal|Invalid|at 0x|at .*\.cu:|ERROR SUMMARY" "$out/fp8/memcheck.txt"
cuobjdump -sass "$bin/fp8/fp8b_staged.so" > "$out/fp8/fp8b_staged.sass.txt" 2>&1
echo "(a) done after $((SECONDS - start)) s"
# (b)
timeout 300 bench/attention_dev/bwd_variants.sh /tmp/bv bwd_fused_dq > "$out/bwd_variants.log" 2>&1
echo "harness: exit $? after $((SECONDS - start)) s"
tar -C /tmp/bv --exclude='*.so' --exclude=bwd_dev --exclude='*.o' -czf "$out/harness.tar.gz" .
grep -E "^==|exit|FAIL|time|us" /tmp/bv/summary.txt 2>/dev/null | tail -50
if grep -A60 '== bwd_fused_dq' /tmp/bv/summary.txt 2>/dev/null | grep -q 'FAIL'; then
  echo "the fused variant failed in the harness: no evaluation"; exit 0
fi
left=$((575 - (SECONDS - start)))
(( left > 90 )) || { echo "no time left for evaluations"; exit 0; }
PTXB_BUDGET_S=$((left - 55)) bench/gemm_dev/variants.sh "$bin" /tmp/vb 2 bwd_fused_dq,bwd_gqa_fused_dq \
  > "$out/variants.log" 2>&1
tar -C /tmp/vb --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
echo "(b) done after $((SECONDS - start)) s"
tail -25 "$out/variants.log"
