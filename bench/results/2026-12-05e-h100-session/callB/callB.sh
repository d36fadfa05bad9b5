#!/usr/bin/env bash
# Session 2026-12-05 (twelfth), call B: the forward attention knobs taken on H100 numbers
# (kThreeConsumersD64 in fwd-bf16 and fwd-varlen, the varlen grid rule) against their
# off-switches, and issue 24's varlen warpgroups skipping the key tiles their rows do not need
# (kSkipMaskedTiles, variant varlen_skip_masked): `ptxbench eval` of the experts and the
# variants, interleaved, 2 rounds (the evaluation checks every case against its reference).
# Usage (repository root of the GPU machine): callB.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > "$out/gpu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$out/gpu.txt"
start=$SECONDS
PTXB_BUDGET_S=520 bench/gemm_dev/variants.sh "$bin" /tmp/v 2 \
  fwd_d64_two_consumers,varlen_d64_two_consumers,varlen_packed_only,varlen_skip_masked \
  > "$out/variants.log" 2>&1
tar -C /tmp/v --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
echo "done after $((SECONDS - start)) s"
tail -30 "$out/variants.log"
