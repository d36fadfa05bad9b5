#!/usr/bin/env bash
# Call 6: the attention backward expert judged twice more with call 5's binaries (the sustained
# regime's order-balanced pairs at 2%): do two evaluations' sustained speedups agree?
# Usage (repository root, GPU machine): call6/call6.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
src=kernels/reference/sm90_attention_bwd_bf16.cu task=sm90/attention/bwd-bf16
"$bin/ptxbench" eval "$src" --task "$task" --no-timing --no-evidence > /dev/null 2>&1
for i in 1 2; do
  timeout 100 "$bin/ptxbench" eval "$src" --task "$task" --json-out "$out/bwd_$i.json" > "$out/bwd_$i.txt" 2>&1
done
rm -rf "$out/cache"
tar -C "$out" -czf "$out/call6.tar.gz" --exclude=call6.tar.gz .
python3 - "$out" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    v = json.load(open(f))
    print(os.path.basename(f), v['outcome'], f"worker {v['stage_seconds'].get('worker', 0):.1f}",
          "cold", " / ".join(f"{t['speedup']['median']:.3f}" for t in v['timing']),
          "sustained", " / ".join(f"{t['sustained']['speedup']['median']:.3f}({t['sustained']['samples']})" for t in v['timing']))
PY
