#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-first), for a device call on any GPU (never run): changes
# written after the session's device time was spent. `bwd_pingpong` (kDkvPingPong: k1's two
# consumers take turns issuing their products, so that they finish their steps apart instead of
# together), `bwd_dq_pingpong` (kDqPingPong: the same in k2), `bwd_dq_beside_dkv` (kDqBesideDkv:
# k2 starts beside k1's last wave instead of after k1), `bwd_stats_prefetch` (kStatsPrefetch: k1
# reads a step's LSE at the end of the step before) and `bwd_d64_uniformwg` (kD64UniformIndex:
# the D 64 k1 with the uniform warpgroup index, which no longer spills). First
# the dev harness of the expert and the variants on the S 4096 cases (every one checked; a hang of
# the turns' barriers shows there, under the harness's timeout) with each kernel timed; then
# `ptxbench eval` of k1's ping-pong and k2 beside k1 next to the expert, interleaved rounds
# within the call's time (the others next: callNextD.sh; the GQA and D 96 forms and combinations
# as these results direct).
# Output: OUT/BV.tar.gz, OUT/F.tar.gz.
# Usage (repository root of the GPU machine): callNextC.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
# NOTE: each harness runs under bwd_variants.sh's `timeout 300`; a variant whose barriers hang
# would spend that on each of its cases in turn, so the whole step (its process group: the
# script, the harness, the harness's test child) is killed at 330 s and the judge keeps the rest.
setsid bench/attention_dev/bwd_variants.sh /tmp/BV \
  bwd_pingpong,bwd_dq_pingpong,bwd_dq_beside_dkv,bwd_stats_prefetch,bwd_d64_uniformwg \
  --only S4096 > /tmp/BV.log 2>&1 &
bv=$!
for _ in $(seq 330); do kill -0 "$bv" 2>/dev/null || break; sleep 1; done
kill -KILL -- "-$bv" 2>/dev/null && echo "harness step stopped at 330 s"
wait "$bv" 2>/dev/null
cat /tmp/BV/summary.txt 2>/dev/null || tail -5 /tmp/BV.log
find /tmp/BV -name bwd_dev -type f -delete; find /tmp/BV \( -name '*.o' -o -name '*.so' \) -delete
tar -C /tmp -czf "$out/BV.tar.gz" BV BV.log
bench/gemm_dev/judge_variants.sh "$bin" /tmp/F bwd_pingpong,bwd_dq_beside_dkv \
  $((575 - (SECONDS - start))) 2>&1 | tail -24
tar -C /tmp -czf "$out/F.tar.gz" F
