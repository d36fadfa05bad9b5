#!/usr/bin/env bash
# Prepared in session 2026-12-05 (thirteenth), not run: the varlen forward's persistent grid with
# dynamic slots (kDynamicSlots, off; variant `varlen_dynamic`), written without a GPU. (a) The
# dev harness on the variant (PTXB_VARLEN_KERNEL): every check, the new `persistent-dynamic` way
# among them, and its timings of each way; (b) `ptxbench eval` of the expert and the variant,
# interleaved, two rounds, within what is left of the call (the short-sequence D 64 shape is the
# one the persistent grid runs).
# Usage (repository root of the GPU machine): call3.sh BIN OUT   (about 8-9 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh "$bin" /tmp/vv 1 varlen_dynamic > "$out/sources.log" 2>&1 ||
  { cat "$out/sources.log"; exit 1; }
PTXB_VARLEN_KERNEL=/tmp/vv/src/varlen_dynamic.cu VARLEN_DEV_BUDGET=200 \
  bench/attention_dev/varlen_dev.sh "$out/dev" > "$out/dev.log" 2>&1
echo "(a) dev harness exit $? after $((SECONDS - start)) s"; tail -25 "$out/dev/summary.txt"
left=$((570 - (SECONDS - start)))
PTXB_BUDGET_S=$((left - 60)) bench/gemm_dev/variants.sh "$bin" /tmp/vv 2 varlen_dynamic \
  > "$out/variants.log" 2>&1
tar -C /tmp/vv --exclude=cache --exclude=src -czf "$out/variants.tar.gz" .
tail -6 "$out/variants.log"
echo "(b) done after $((SECONDS - start)) s"
