#!/usr/bin/env bash
# Prepared in session 2026-12-06 (twentieth), for an H200 (never run): issue 22's acceptance
# numbers for the attention backward expert with kStatsEarly (on an H100 0.92 / 0.97 / 0.93 of
# cuDNN at D 128, 0.85 at D 64): three `ptxbench eval` each of bwd-bf16 and bwd-bf16-d96, one
# after the other on one machine start, then outcome, cold and sustained speedups per timed
# shape and stage seconds. Run callH200.sh of 2026-12-05g (the other issues) as a call of its
# own. Exits at once on another GPU. Output: OUT/verdicts.tar.gz.
# Usage (repository root of the GPU machine): callH200c.sh BIN OUT   (about 4 minutes)
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
grep -q H200 "$out/gpu.txt" || { echo "not an H200:"; cat "$out/gpu.txt"; exit 3; }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/h200cache
start=$SECONDS
for r in 1 2 3; do
  for pair in sm90/attention/bwd-bf16:sm90_attention_bwd_bf16 \
    sm90/attention/bwd-bf16-d96:sm90_attention_bwd_bf16_d96; do
    task="${pair%%:*}" name="${pair#*:}"
    [[ $((SECONDS - start)) -gt 520 ]] && { echo "time up before $name round $r"; break 2; }
    "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
      --json-out "$out/${name}_$r.json" > "$out/${name}_$r.txt" 2>&1
  done
done
python3 bench/speedup_lines.py "$out"
tar -C "$out" -czf "$out/verdicts.tar.gz" --exclude=verdicts.tar.gz --exclude=gpu.txt . 2>/dev/null
find "$out" -maxdepth 1 -type f ! -name verdicts.tar.gz ! -name gpu.txt -delete
