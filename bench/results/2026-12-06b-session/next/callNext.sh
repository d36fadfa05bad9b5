#!/usr/bin/env bash
# Prepared in session 2026-12-06 (nineteenth) for the next device call: (1) the attention
# backward's kOverlapNextStep (never run on a GPU: correctness first) in the dev harness beside
# the expert (`bwd_overlap`: every case of the harness, k1 and k2 times); (2) on an H200 the
# acceptance evaluations (callH200.sh, about 6-9 minutes: run it as a call of its own) are not
# here; on any GPU, if (1) passed every case, `ptxbench eval` of the three overlap variants beside
# their experts, three rounds (judge_variants.sh). Output: OUT/N.tar.gz.
# Usage (repository root of the GPU machine): callNext.sh BIN OUT [LIMIT_S=570]
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="${3:-570}"; mkdir -p "$out/N"
n="$(cd "$out/N" && pwd)"
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$n/gpu.txt"
cat "$n/gpu.txt"
timeout 240 bench/attention_dev/bwd_variants.sh /tmp/bvn bwd_overlap > "$n/bv.log" 2>&1
grep -E "^==|failed$|S4096|S16384" "$n/bv.log" | head -30
find /tmp/bvn \( -name '*.o' -o -name '*.so' -o -name bwd_dev \) -delete 2>/dev/null
tar -C /tmp -czf "$n/bvn.tar.gz" bvn 2>/dev/null
if grep -A40 "== bwd_overlap" "$n/bv.log" | grep -q "^0 of [0-9]* failed"; then
  bench/gemm_dev/judge_variants.sh "$bin" "$n/jv" \
    bwd_overlap,bwd_gqa_overlap,bwd_d96_overlap $((limit - (SECONDS - start) - 20)) 2>&1 | tail -20
else
  echo "bwd_overlap did not pass every case: no evaluation"
fi
tar -C "$out" -czf "$out/N.tar.gz" N && rm -rf "$out/N"
echo "done after $((SECONDS - start)) s"
