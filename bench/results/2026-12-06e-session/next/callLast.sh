#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twenty-second) for its last device call (never run: that
# call's machine failed to start, which cost 180 s, and too little device time was left to try
# again); for a call with LIMIT_S seconds to spend (320 or more gives three rounds). On an H200: issue 22's and 24's acceptance numbers for the attention
# backward expert as committed (kDqBesideDkv and kDqPingPong on): `ptxbench eval` of bwd-bf16 and
# bwd-bf16-gqa in turn, up to three rounds, summarized by bench/speedup_lines.py (OUT/H.tar.gz).
# On another GPU: the judge of the two knobs that only ran in the dev harness, k1's LSE prefetch
# (`bwd_stats_prefetch`) and the uniform warpgroup index at D 64 (`bwd_d64_uniformwg`), against
# the new expert (OUT/F.tar.gz).
# Usage (repository root of the GPU machine): callLast.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv |
  tee "$out/gpu.txt"
if grep -q H200 "$out/gpu.txt"; then
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
  export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/h200cache
  mkdir -p /tmp/H
  for r in 1 2 3; do
    for name in bwd_bf16 bwd_bf16_gqa; do
      # NOTE: an evaluation of the backward takes 25-35 s; none starts with less than 45 s left.
      [[ $((SECONDS - start)) -gt $((limit - 45)) ]] && { echo "time up before $name round $r"; break 2; }
      "$bin/ptxbench" eval "kernels/reference/sm90_attention_$name.cu" \
        --task "sm90/attention/${name//_/-}" --json-out "/tmp/H/${name}_$r.json" \
        > "/tmp/H/${name}_$r.txt" 2>&1
    done
  done
  python3 bench/speedup_lines.py /tmp/H | tee /tmp/H/summary.txt
  tar -C /tmp -czf "$out/H.tar.gz" H
else
  bench/gemm_dev/judge_variants.sh "$bin" /tmp/F bwd_stats_prefetch,bwd_d64_uniformwg \
    $((limit - 10 - (SECONDS - start))) 2>&1 | tail -16
  tar -C /tmp -czf "$out/F.tar.gz" F
fi
