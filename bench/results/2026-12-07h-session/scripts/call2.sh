#!/usr/bin/env bash
# Session 2026-12-07h (thirty-fifth), call 2 (after 2026-12-07g-session/scripts/call1.sh):
# the stream-K tail's new forms (kTailFixup: the shared tiles summed in the GEMM kernel by their
# last piece to arrive; kTailFirst: a CTA's tail pieces before its whole tiles), issue 18's
# 8192^3 shape.
# 1. bench/gemm_dev/probe.sh: each form's C against cuBLASLt's on shapes with a tail whose tiles
#    span two to five CTAs (8192^3; 8320x8448x1000: 16 k-blocks a tile, ranges of 4; ragged
#    9000x8200x8200 with a partial last k-block; 16384x4096x2048): a wrong sum shows as a large
#    max|diff|, a hang as a timeout. Also the forms' kernel times beside the library's.
# 2. bench/gemm_dev/variants.sh, two rounds (evidence in the first only): the three forms of the
#    TMA expert beside the expert and beside the expert of 785594b (old_bf16_wgmma_tma: the same
#    schedule before the loops took their new form), cold speedups per timed shape.
# Usage (repository root of the GPU machine): call2.sh BIN OLD OUT
#   BIN: the release binaries (.carry/lc.tar.xz unpacked); OLD: a folder holding 785594b's
#   sm90_gemm_bf16_wgmma_tma.cu (.carry/old; the device's copy has no git history)
set -uo pipefail
bin="$(cd "$1" && pwd)" old="$(cd "$2" && pwd)" out="$3"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
PTXB_SOURCES_ONLY=1 bash bench/gemm_dev/variants.sh "$bin" /tmp/tail_src 1 \
  tma_tail_fixup,tma_tail_first,tma_tail_fixup_first > /dev/null
PTXB_PROBE_TIMEOUT_S=30 timeout 200 bash bench/gemm_dev/probe.sh /tmp/tail_probe \
  "8192,8192,8192 8320,8448,1000 9000,8200,8200 16384,4096,2048" /tmp/tail_src/src/*.cu |
  tee "$out/probe.txt"
PTXB_OLD_EXPERTS="$old" PTXB_EVIDENCE_ROUNDS=1 PTXB_BUDGET_S=330 timeout 380 \
  bash bench/gemm_dev/variants.sh "$bin" /tmp/tail_variants 2 \
  tma_tail_fixup,tma_tail_first,tma_tail_fixup_first > "$out/variants.txt" 2>&1
tar -C /tmp/tail_variants -czf "$out/variants.tar.gz" --exclude=cache --exclude='*.so' .
tail -30 "$out/variants.txt"
