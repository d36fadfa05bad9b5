#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-first), for a device call on any GPU (never run): two k1
# changes written after the session's device time was spent. `bwd_pingpong` (kDkvPingPong: the two
# consumers take turns issuing their products, so that they finish their steps apart instead of
# together) and `bwd_d64_uniformwg` (kD64UniformIndex: the D 64 k1 with the uniform warpgroup
# index, which no longer spills). First the dev harness of the expert and both variants, every
# case checked (a hang of the turns' barriers shows there, under the harness's timeout) and each
# kernel timed; then `ptxbench eval` of the variants beside their experts, interleaved rounds
# within the call's time.
# Output: OUT/BV.tar.gz, OUT/F.tar.gz.
# Usage (repository root of the GPU machine): callNextC.sh BIN OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
bench/attention_dev/bwd_variants.sh /tmp/BV bwd_pingpong,bwd_d64_uniformwg > /tmp/BV.log 2>&1
cat /tmp/BV/summary.txt
find /tmp/BV -name bwd_dev -type f -delete; find /tmp/BV \( -name '*.o' -o -name '*.so' \) -delete
tar -C /tmp -czf "$out/BV.tar.gz" BV BV.log
bench/gemm_dev/judge_variants.sh "$bin" /tmp/F bwd_pingpong,bwd_gqa_pingpong,bwd_d64_uniformwg \
  $((575 - (SECONDS - start))) 2>&1 | tail -24
tar -C /tmp -czf "$out/F.tar.gz" F
