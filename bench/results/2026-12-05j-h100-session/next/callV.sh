#!/usr/bin/env bash
# Session 2026-12-05/06 (seventeenth), prepared, not run. Two questions in one call:
# (a) K's tail or the rows' alignment? The TMA GEMM expert lost 4.8% to cuBLASLt at
#     4000x3000x2000 and none at K 2048 (call T), while the cp.async expert lost the same at both;
#     skipping the last k-block's zero slices did not help. Rows of 2000 bf16 are 4000 bytes: every
#     other row starts off a 128-byte line. The probe (kernel alone against cuBLASLt) at K 1984
#     (3968-byte rows, 128-byte aligned), 2000 (32), 2016 (64) and 2048, and at M,N 4096,3072 with
#     K 2000 (M and N aligned, K not); then one Nsight Compute report of the expert and of
#     cuBLASLt at K 2000 and at K 2048 each (--set full), to read where the time goes.
# (b) The attention backward's mask knobs on the D 96 task, never judged with them (calls T and W
#     judged D 64/128 and GQA: +0.3-0.6%): `ptxbench eval` of `bwd_d96_diagloop` and
#     `bwd_diagloop` beside their experts, three rounds, evidence in the first.
# Everything under OUT is packed into OUT/V.tar.gz (the device returns 8 files at most).
# Usage (repository root of the GPU machine): callV.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out/V"
start=$SECONDS
left() { echo $((limit - 15 - (SECONDS - start))); }
tma=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
timeout "$(left)" bench/gemm_dev/probe.sh "$out/V/kalign" \
  "4000,3000,2000 4000,3000,1984 4000,3000,2016 4000,3000,2048 4096,3072,2000 4096,3072,2048" \
  "$tma" kernels/reference/sm90_gemm_bf16_wgmma.cu > "$out/V/kalign.log" 2>&1
echo "== (a) alignment (after $((SECONDS - start)) s)"; cat "$out/V/kalign/summary.txt" 2>/dev/null
for k in 2000 2048; do
  PTXB_PROBE_NCU=1 PTXB_PROBE_NCU_LIBRARY=1 timeout "$(left)" bench/gemm_dev/probe.sh \
    "$out/V/ncu$k" "4000,3000,$k" "$tma" > "$out/V/ncu$k.log" 2>&1
  rm -f "$out/V/ncu$k"/*.so "$out/V/ncu$k"/*_probe "$out/V/ncu$k"/*.ncu-rep  # the text views stay
done
rm -f "$out/V/kalign"/*.so "$out/V/kalign"/*_probe
echo "== ncu reports (after $((SECONDS - start)) s)"; ls "$out/V"/ncu*/ 2>/dev/null | tr '\n' ' '; echo
if [[ $(left) -gt 200 ]]; then
  bench/results/2026-12-05g-h100-session/next/judge_variants.sh "$bin" "$out/V/jv" \
    bwd_d96_diagloop,bwd_diagloop "$(left)" 2>&1 | tail -20
else
  echo "(b) skipped: $(left) s left"
fi
tar -C "$out" -czf "$out/V.tar.gz" V && rm -rf "$out/V"
echo "done after $((SECONDS - start)) s"
