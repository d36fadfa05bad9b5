#!/usr/bin/env bash
# A/B of candidate sources in one machine start (a speed claim is a ratio measured side by side):
# evaluates each TASK:FILE in the order given with BIN_DIR/ptxbench, writes OUT_DIR/I_NAME_TASK.json
# and .txt, and prints one line per evaluation: label, outcome, median speedup per timed shape.
# Usage (GPU machine, repository root): bench/ab_sources.sh BIN_DIR OUT_DIR TASK:FILE...
#   e.g. bench/ab_sources.sh .carry/bin /tmp/ab sm90/attention/bwd-bf16:old.cu sm90/attention/bwd-bf16:new.cu
set -uo pipefail
bin="$1" out="$2"; shift 2; mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$out/environment.txt"
i=0
for pair in "$@"; do
  task="${pair%%:*}" file="${pair#*:}"; i=$((i + 1))
  label="${i}_$(basename "$file" .cu)_${task##*/}"
  "$bin/ptxbench" eval "$file" --task "$task" --json-out "$out/$label.json" > "$out/$label.txt" 2>&1
  python3 - "$out/$label.json" "$label" <<'P'
import json, sys
v = json.load(open(sys.argv[1]))
sp = [r["speedup"]["median"] for r in (v.get("timing") or [])]
print(sys.argv[2], v["outcome"], " ".join(f"{x:.3f}" for x in sp if x is not None))
P
done
